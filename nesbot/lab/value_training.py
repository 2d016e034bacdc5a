"""Approximate policy iteration for a learned value (nesbot._core.learned).

Each iteration plays `games` episodes from the states the format's tuning games reach level
29 in (scripts/strength/from_level_29.py's states; for a model that plays from an earlier
`from_level`, the states they reach that level in), each from a start state and with pieces
drawn for (seed, iteration, episode), to level 39 or the top-out, piece by piece, with the
planner playing the model of the iteration before (re-ranking its choices, or at the
lookahead's leaves with `at_leaves`; the first iteration's model is all zeros, the
defaults' own play, unless the run starts from a model's table, `init`). Every afterstate
(the board after a piece locks and its lines clear) is kept with the line-clear points of
the piece that made it. The targets are TD(lambda) returns: the points still to come from
each afterstate, the tail bootstrapped with the model before (undiscounted, 0 after a
top-out or level 39; with `reach_bonus`, reaching `bonus_level` (39) earns that many thousand
points more, so the value weighs surviving to it as well as the points; `points_weight` 0
leaves the bonus alone: a value of the odds of reaching that level). The model is
then fitted to the targets of the last `replay` iterations' afterstates by ridge regression
toward the model before (the normal equations of the tables' entries, solved exactly: no
random draws), so the value learns what the alternatives' outcomes tell through the policy
that plays them, and the next iteration plays by it.

Seeded and resumable: the episodes of an iteration depend on (seed, iteration) alone, and
the checkpoint (an .npz of numbers: the model, the replay's afterstates, the log) is written
after every iteration, so a run stopped and resumed with the same command makes the same
models as one run (tests/test_value_training.py).
"""

import json
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any, cast

import numpy as np

from nesbot._core.game import Game
from nesbot._core.learned import ACTIVE, SIZE, game_features
from nesbot._core.whole_games import play
from nesbot.bot.planning import PlannerSettings
from nesbot.bot.value_model import ValueModelFile, with_value_model
from nesbot.errors import NesbotError
from nesbot.evaluation.evaluators import Evaluator
from nesbot.input_file import parse_json
from nesbot.lab.game_runs import MAX_FRAMES, planner_for
from nesbot.lab.workers import map_indexed
from nesbot.output_file import OutputFile

LEVEL_39 = 39
POINTS_UNIT = 1000.0  # the model's values are in thousands of points


@dataclass(frozen=True)
class ValueTrainingConfig:
    """What a run depends on (a checkpoint resumes only with the same)."""

    tap_hz: int = 15
    reaction: int = 18
    seed: int = 1
    games: int = 40  # episodes an iteration
    lam: float = 0.9  # TD(lambda), from the second iteration on
    sweeps: int = 3  # fitted value iterations a fit makes (targets bootstrapped again)
    ridge: float = 30.0  # pull toward the model before, per table entry
    replay: int = 2  # iterations whose afterstates a fit uses
    scale: float = 3.0  # evaluation units a thousand points are worth, in play
    max_pieces: int = 600  # an episode's cap (past it the tail is bootstrapped)
    states: str = ""  # the level-29 states file
    evaluator: str = ""  # the base evaluator's name
    at_leaves: bool = False  # the model plays at the lookahead's last boards (ValueModelFile)
    init: str = ""  # the model file the run starts from ("": all zeros)
    # thousands of points an episode earns for reaching bonus_level (0: points alone): a
    # value that weighs surviving against the Tetrises
    reach_bonus: float = 0.0
    from_level: int = 29  # the level the model plays from (the start states')
    # where reach_bonus is earned, and the model's goal level (it reads the lines left to it)
    bonus_level: int = LEVEL_39
    points_weight: float = 1.0  # what the line points count in the rewards


@dataclass
class Episode:
    features: np.ndarray  # (n, ACTIVE) int32: afterstate t's table entries
    rewards: np.ndarray  # (n,) the line points (thousands) of the piece that made afterstate t
    final_reward: float  # the points of the piece after the last afterstate (its end)
    truncated: bool  # cut at max_pieces: the last afterstate's tail is bootstrapped
    reached_39: bool
    points: float  # line points from the start state (thousands)
    # the piece that first reached the bonus level: the index of its reward, len(rewards)
    # for the last piece's (final_reward), -1 if none did
    bonus_at: int = -1

    def rewarded(self, points_weight: float, bonus: float) -> "Episode":
        """The episode with its line points weighed by `points_weight` and `bonus` added
        to the reward of the piece that reached the bonus level, so that the targets carry
        it back."""
        rewards = self.rewards * points_weight
        final = self.final_reward * points_weight
        if self.bonus_at == len(self.rewards):
            final += bonus
        elif self.bonus_at >= 0:
            rewards[self.bonus_at] += bonus
        return replace(self, rewards=rewards, final_reward=final)


def play_episode(
    evaluator: Evaluator,
    settings: PlannerSettings,
    state: dict,
    pieces_seed: int,
    max_pieces: int,
    bonus_level: int = LEVEL_39,
) -> Episode:
    """One episode from `state`, a piece at a time, its afterstates kept."""
    game = Game.from_state(state)
    planner = planner_for(evaluator, settings)
    features: list[np.ndarray] = []
    rewards: list[float] = []
    final = 0.0
    truncated = reached = False
    total = 0.0
    bonus_at = -1
    while True:
        if len(features) >= max_pieces:
            truncated = True
            break
        result = play(planner, game, MAX_FRAMES, LEVEL_39, settings.reaction, pieces_seed, 1)
        points = result["line_points"] / POINTS_UNIT
        total += points
        if bonus_at < 0 and state["level"] < bonus_level <= result["level"]:
            bonus_at = len(features)
        if result["topped_out"] or result["level"] >= LEVEL_39 or not game.active:
            final = points
            reached = result["level"] >= LEVEL_39
            break
        features.append(game_features(game, bonus_level))
        rewards.append(points)
    return Episode(
        np.array(features, dtype=np.int32).reshape(-1, ACTIVE),
        np.array(rewards, dtype=np.float64),
        final,
        truncated,
        reached,
        total,
        bonus_at,
    )


def _episode_job(job: tuple[Evaluator, PlannerSettings, dict, int, int, int]) -> Episode:
    return play_episode(*job)


def episode_starts(
    config: ValueTrainingConfig, iteration: int, starts: int
) -> tuple[np.ndarray, np.ndarray]:
    """The start states (indices) and pieces seeds of an iteration's episodes."""
    rng = np.random.default_rng([config.seed, iteration])
    return rng.integers(0, starts, config.games), rng.integers(1 << 40, 1 << 50, config.games)


def lambda_returns(
    episode_values: np.ndarray, rewards: np.ndarray, final: float, truncated: bool, lam: float
) -> np.ndarray:
    """TD(lambda) targets of one episode's afterstates: values V(s_t) (the model before),
    rewards r_t (the piece that made s_t), `final` the reward of the piece after the last."""
    n = len(rewards)
    targets = np.zeros(n)
    if n == 0:
        return targets
    # after the last afterstate: its tail (truncated: bootstrapped by its own value)
    following = episode_values[-1] if truncated else final
    targets[-1] = following
    for t in range(n - 2, -1, -1):
        # G_t = r_{t+1} + (1 - lam) V(s_{t+1}) + lam G_{t+1}
        targets[t] = rewards[t + 1] + (1 - lam) * episode_values[t + 1] + lam * targets[t + 1]
    return targets


def normal_matrix(features: np.ndarray, ridge: float) -> np.ndarray:
    """The least-squares fit's matrix over the afterstates' table entries, with the ridge."""
    counts = np.zeros(SIZE * SIZE)
    for start in range(0, len(features), 20_000):
        rows = features[start : start + 20_000].astype(np.int64)
        pairs = (rows[:, :, None] * SIZE + rows[:, None, :]).ravel()
        counts += np.bincount(pairs, minlength=SIZE * SIZE)
    gram = counts.reshape(SIZE, SIZE)
    gram[np.diag_indices(SIZE)] += ridge
    return gram


def fit(
    table: np.ndarray, features: np.ndarray, targets: np.ndarray, ridge: float, gram: np.ndarray
) -> np.ndarray:
    """The tables minimizing sum (value - target)^2 + ridge |table - before|^2 (exactly);
    `gram` is normal_matrix(features, ridge)."""
    moment = np.bincount(features.ravel(), weights=np.repeat(targets, ACTIVE), minlength=SIZE)
    return np.linalg.solve(gram, moment + ridge * table)


@dataclass
class TrainingState:
    config: ValueTrainingConfig
    iteration: int  # iterations done
    table: np.ndarray
    replay_features: list[np.ndarray]  # per kept iteration: episodes' afterstates, stacked
    replay_rewards: list[np.ndarray]
    replay_ends: list[np.ndarray]  # per episode: (end index, truncated, final reward x1000)
    log: list[dict[str, Any]]


def new_state(config: ValueTrainingConfig, table: np.ndarray | None = None) -> TrainingState:
    """A run's start: all zeros, or `table` (config.init's)."""
    start = np.zeros(SIZE) if table is None else np.array(table, dtype=np.float64)
    return TrainingState(config, 0, start, [], [], [], [])


def save_checkpoint(state: TrainingState, path: Path) -> None:
    """The whole run's state as numbers (np.savez, no pickle), written atomically."""
    arrays: dict[str, np.ndarray] = {
        "meta": np.array(
            json.dumps(
                {"config": asdict(state.config), "iteration": state.iteration, "log": state.log}
            )
        ),
        "table": state.table,
    }
    for k, (f, r, e) in enumerate(
        zip(state.replay_features, state.replay_rewards, state.replay_ends, strict=True)
    ):
        arrays[f"features{k}"] = f
        arrays[f"rewards{k}"] = r
        arrays[f"ends{k}"] = e
    with OutputFile(path, "checkpoint", binary=True) as out:
        try:
            np.savez_compressed(out.file, allow_pickle=False, **cast(dict[str, Any], arrays))
        except OSError as e:
            raise NesbotError(f"cannot write checkpoint {path}: {e.strerror}") from None


def load_checkpoint(path: Path, config: ValueTrainingConfig) -> TrainingState:
    try:
        data = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as e:
        raise NesbotError(f"cannot read checkpoint {path}: {e}") from None
    meta = parse_json(str(data["meta"]), f"checkpoint {path}: its meta")
    # a key added since the checkpoint was written holds its default there
    stored = {f.name: f.default for f in fields(ValueTrainingConfig)} | meta["config"]
    if stored != asdict(config):
        changed = sorted(k for k, v in asdict(config).items() if stored.get(k) != v)
        raise NesbotError(f"checkpoint {path} is of another run (differs in {', '.join(changed)})")
    kept = sum(1 for name in data.files if name.startswith("features"))
    return TrainingState(
        config,
        meta["iteration"],
        data["table"],
        [data[f"features{k}"] for k in range(kept)],
        [data[f"rewards{k}"] for k in range(kept)],
        [data[f"ends{k}"] for k in range(kept)],
        meta["log"],
    )


def _stack(episodes: list[Episode]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    features = (
        np.concatenate([e.features for e in episodes])
        if episodes
        else np.zeros((0, ACTIVE), np.int32)
    )
    rewards = np.concatenate([e.rewards for e in episodes]) if episodes else np.zeros(0)
    ends = np.array([[0, e.truncated, e.final_reward] for e in episodes], dtype=np.float64).reshape(
        -1, 3
    )
    ends[:, 0] = np.cumsum([len(e.rewards) for e in episodes])
    return features, rewards, ends


def targets_of(
    table: np.ndarray, features: np.ndarray, rewards: np.ndarray, ends: np.ndarray, lam: float
) -> np.ndarray:
    values = table[features].sum(axis=1)
    out = np.zeros(len(rewards))
    start = 0
    for end, truncated, final in ends:
        stop = int(end)
        out[start:stop] = lambda_returns(
            values[start:stop], rewards[start:stop], final, bool(truncated), lam
        )
        start = stop
    return out


def model_file(state: TrainingState, provenance: dict[str, Any] | None = None) -> ValueModelFile:
    """The run's current model as its file holds it (what the next iteration plays)."""
    config = state.config
    return ValueModelFile(
        tuple(float(x) for x in state.table),
        config.tap_hz,
        config.from_level,
        config.scale,
        provenance or {},
        config.at_leaves,
        config.bonus_level,
    )


def iterate(
    state: TrainingState, evaluator: Evaluator, starts: list[dict], workers: int
) -> dict[str, Any]:
    """One iteration: play by the current model, fit the next; returns its log entry."""
    config = state.config
    settings = PlannerSettings(reaction=config.reaction, tap_hz=config.tap_hz)
    player = with_value_model(evaluator, model_file(state), f"iteration{state.iteration}")
    picks, seeds = episode_starts(config, state.iteration, len(starts))
    jobs = [
        (player, settings, starts[int(p)], int(s), config.max_pieces, config.bonus_level)
        for p, s in zip(picks, seeds, strict=True)
    ]
    episodes: list[Episode | None] = [None] * len(jobs)
    for k, episode in map_indexed(_episode_job, jobs, workers):
        episodes[k] = episode
    played = [e for e in episodes if e is not None]
    features, rewards, ends = _stack(
        [e.rewarded(config.points_weight, config.reach_bonus) for e in played]
    )
    state.replay_features = [*state.replay_features, features][-config.replay :]
    state.replay_rewards = [*state.replay_rewards, rewards][-config.replay :]
    state.replay_ends = [*state.replay_ends, ends][-config.replay :]
    all_features = np.concatenate(state.replay_features)
    # The first iteration of a run from zeros has no model to bootstrap from: its targets
    # are the points to come themselves (lambda 1); then `sweeps` rounds of fitted value
    # iteration, each target bootstrapped by the fit before.
    previous = state.table
    lam = 1.0 if state.iteration == 0 and not config.init else config.lam
    table = previous
    targets = np.zeros(0)
    gram = normal_matrix(all_features, config.ridge)
    for _ in range(1 if lam == 1.0 else config.sweeps):
        targets = np.concatenate(
            [
                targets_of(table, f, r, e, lam)
                for f, r, e in zip(
                    state.replay_features, state.replay_rewards, state.replay_ends, strict=True
                )
            ]
        )
        table = fit(previous, all_features, targets, config.ridge, gram)
    before = previous[all_features].sum(axis=1)
    state.table = table
    after = state.table[all_features].sum(axis=1)
    points = np.array([e.points for e in played]) * POINTS_UNIT
    entry = {
        "iteration": state.iteration,
        "episodes": len(played),
        "afterstates": len(features),
        "reach39": float(np.mean([e.reached_39 for e in played])),
        f"reach{config.bonus_level}": float(np.mean([e.bonus_at >= 0 for e in played])),
        "points_mean": float(points.mean()),
        "points_se": float(points.std(ddof=1) / np.sqrt(len(points))) if len(points) > 1 else 0.0,
        "rmse_before": float(np.sqrt(np.mean((before - targets) ** 2))),
        "rmse_after": float(np.sqrt(np.mean((after - targets) ** 2))),
        "target_mean": float(targets.mean()),
    }
    state.iteration += 1
    state.log.append(entry)
    return entry
