"""Weights fitted to playouts of the alternatives a choice had (approximate policy
iteration, as CBMPI trains Tetris weights): docs/strength-log.md, "A learned value".

`collect` plays games of the community's format (level 18, an 18-frame reaction; the
evaluator the fit starts from, nesbot-rightwell-wellsums unless --evaluator says; the
pieces drawn from the game's seed as `simulate --same-pieces` draws them) to level 29 a
piece at a time. At a sampled share of the pieces, every placement a of the piece and b
of the known next piece is kept with its features (evaluate_trace: every feature, at the
level the pair ends on); the K placements a with the best two-piece value by the
starting weights (and the bot's own choice, if it is not among them) are each played on
by the bot for H pieces over the same M draws of the pieces and valued as `nesbot rate`
values a place (rating.playouts.played_on: the points, plus the rest of the pre-29 game
at an all-Tetris rate's share if alive). One file per game in --data, so an interrupted
run goes on where it stopped. With --fast-levels only the states at the levels of the
evaluator's fast_levels set (19-28) are sampled, and their placements ranked by that set.
With --kill-screen the games go on to level 39 and only the states from level 29 are
sampled, ranked by the kill_screen set; a playout is valued by its points plus, alive, the
rest of the game to level 39 at the same share of an all-Tetris rate (a top-out there
loses the rest of the kill screen, which 30 pieces alone would not count).

`fit` looks for the weights whose two-piece choice among each state's K placements has
the most playout points: CMA-ES over the starting evaluator's nonzero weights (those
--fixed does not keep), each step a multiple of the weight; the games whose index is a
multiple of 5 are held out. It prints the gain over the starting weights' choice on both
halves, a state's mean, and writes the weights file (the kill-screen sets kept as they
were). With --fast-levels it fits the fast_levels set alone, from the states collected at
its levels, and writes the evaluator's own weights with that set replaced; --kill-screen
the same for the kill_screen set.

    .venv/bin/python scripts/strength/rollout_weights.py collect --seed 7000 --start 1000 \\
        --games 240 --workers 2 --data rollouts/
    .venv/bin/python scripts/strength/rollout_weights.py fit --data rollouts/ --out w.json \\
        [--fixed stack_height_over,extreme_gap,stack_holes,well_sums]
    .venv/bin/python scripts/strength/rollout_weights.py collect --seed 7000 --start 2000 \\
        --games 120 --rate 0.1 --fast-levels --evaluator nesbot-rightwell-tall --data fast/
    .venv/bin/python scripts/strength/rollout_weights.py collect --seed 7000 --start 3000 \\
        --games 90 --rate 0.15 --k 5 --kill-screen --evaluator nesbot-rightwell-tall \\
        --data kill/
"""

import argparse
import json
import os
from dataclasses import dataclass, replace
from pathlib import Path

import cma
import numpy as np

from nesbot._core.features import ALL_FEATURE_NAMES
from nesbot._core.game import Game
from nesbot._core.moves import Searcher
from nesbot._core.pieces import KILL_SCREEN_LEVEL
from nesbot._core.planner import Planner
from nesbot._core.value_terms import evaluate_trace
from nesbot._core.whole_games import play
from nesbot.bot.planning import PlannerSettings
from nesbot.evaluation.evaluators import Evaluator, get_evaluator
from nesbot.evaluation.weights import Weights, save_weights
from nesbot.lab.ab import from_zero
from nesbot.lab.game_runs import MAX_FRAMES, game_setup, pieces_seed_of, planner_for
from nesbot.lab.statistics import standard_error
from nesbot.lab.workers import map_indexed
from nesbot.nes.ram import bcd_value
from nesbot.rating.playouts import played_on

REACTION = 18
STOP_LEVEL = 39  # the kill screen's states are played to the format's level 39
# The weight sets a fit can be made for: the weights before level 29, or one of these.
SETS = ("fast_levels", "kill_screen")
# The weights the documented fit started from (the default with a reaction then).
START = "nesbot-rightwell-wellsums"
FEATURES = len(ALL_FEATURE_NAMES)
MAX_NEXT = 48  # placements of the next piece kept (no piece has more at 30 Hz)
MAX_KEPT = 8  # placements a kept per state: K and the bot's own


def _lines(game: Game) -> int:
    return bcd_value(*game.state()["lines"])


def _burned(cleared: int) -> int:
    # evaluate.pxd's burned_lines (not callable from Python): a Tetris burns nothing.
    return 0 if cleared == 4 else cleared


def _locked(game: Game, x: int, y: int, orientation: int) -> bool:
    """Lock the piece at (x, y, orientation); False where the searcher's path ends on a
    place the piece does not rest on (a lock on the spawn row, the game ending)."""
    try:
        game.lock_at(x, y, orientation)
    except ValueError:
        return False
    return True


def _start(name: str, part: str | None = None) -> tuple[Evaluator, np.ndarray]:
    """The evaluator the bot plays and the fit starts from, and its weights in order (with
    `part`, one of SETS, that set's: the weights it plays levels 19-28 or 29 on with)."""
    evaluator = get_evaluator(name, reaction=REACTION)
    weights = evaluator.weights
    if part is not None:
        if not getattr(evaluator, part):
            raise SystemExit(f"error: {name} has no {part} set to fit")
        weights = {**weights, **getattr(evaluator, part)}
    return evaluator, np.array([weights.get(n, 0.0) for n in ALL_FEATURE_NAMES])


def _levels(evaluator: Evaluator, part: str | None) -> range:
    """The levels whose states are collected and fitted: the fast_levels set's (from its
    from_level to the kill screen), the kill_screen set's (from its from_level) to level
    39, or every level before the kill screen."""
    if part == "kill_screen":
        return range(evaluator.kill_screen_from_level, STOP_LEVEL)
    return range(evaluator.fast_levels_from_level if part else 0, KILL_SCREEN_LEVEL)


@dataclass(frozen=True)
class _Bot:
    """What every sampled state of a game uses: the starting evaluator, its weights in
    order, the same weights with every feature in evaluate_trace's rows (a zero weight as
    one too small to matter), the bot's planner and a placement searcher."""

    evaluator: Evaluator
    w0: np.ndarray
    every: Evaluator
    planner: Planner
    searcher: Searcher

    @classmethod
    def of(cls, name: str, part: str | None) -> "_Bot":
        evaluator, w0 = _start(name, part)
        every = {n: evaluator.weights.get(n, 0.0) or 1e-30 for n in ALL_FEATURE_NAMES}
        return cls(
            evaluator,
            w0,
            replace(evaluator, weights=every),
            planner_for(evaluator, PlannerSettings(reaction=REACTION)),
            Searcher(tap_interval=2),
        )


def _pair_features(game: Game, lines: int, burned: int, every: Evaluator) -> np.ndarray:
    """The features of the board after both pieces, and the ceiling penalty at weight 1."""
    state = game.state()
    trace = evaluate_trace(state["rows"], lines, 0, every, 0.0, burned, state["level"], 2)
    value = {name: v for name, v, _, _ in trace}
    return np.array(
        [value.get(n, 0.0) for n in ALL_FEATURE_NAMES] + [value["ceiling_penalty"]], np.float32
    )


def _state(
    game: Game, bot_rows: list, bot: _Bot, draws: np.random.Generator, args: argparse.Namespace
) -> dict | None:
    """One sampled state: the kept placements' pair features and playout points (the
    draws of the pieces from `draws`)."""
    start = from_zero(game)
    lines0 = _lines(start)
    options = []
    for x, y, o, _ in bot.searcher.placements_of(start):
        after = start.copy()
        if not _locked(after, x, y, o) or after.topped_out or not after.active:
            continue
        first = _lines(after) - lines0
        pairs = []
        for xb, yb, ob, _ in bot.searcher.placements_of(after)[:MAX_NEXT]:
            both = after.copy()
            if not _locked(both, xb, yb, ob):
                continue
            second = _lines(both) - lines0 - first
            pairs.append(
                _pair_features(both, first + second, _burned(first) + _burned(second), bot.every)
            )
        pairs = np.array(pairs)
        ceiling = pairs[:, FEATURES] * bot.evaluator.ceiling
        value = float((pairs[:, :FEATURES] @ bot.w0 + ceiling).min())
        options.append((value, after, pairs))
    if len(options) < 2:
        return None
    options.sort(key=lambda option: option[0])
    kept = options[: args.k]
    mine = next(i for i, o in enumerate(options) if o[1].state()["rows"] == bot_rows)
    if mine >= args.k:
        kept.append(options[mine])
    seeds = draws.integers(2**62, size=args.m).tolist()
    stop = _levels(bot.evaluator, args.part).stop  # the rest of the game counted to it
    points = [
        [played_on(bot.planner, o[1].copy(), s, args.h, REACTION, stop) for s in seeds]
        for o in kept
    ]
    features = np.full((MAX_KEPT, MAX_NEXT, FEATURES + 1), np.nan, np.float32)
    for i, (_, _, pairs) in enumerate(kept):
        features[i, : len(pairs)] = pairs
    q = np.full(MAX_KEPT, np.nan)
    q[: len(kept)] = np.mean(points, axis=1)
    return {"features": features, "q": q, "bot": min(mine, args.k), "level": start.state()["level"]}


def collect_game(job: tuple[argparse.Namespace, int]) -> int:
    """Game `index`'s sampled states, saved to --data: how many (-1: saved before)."""
    args, index = job
    path = Path(args.data) / f"game{index:05d}.npz"
    if path.exists():
        return -1
    bot = _Bot.of(args.evaluator, args.part)
    levels = _levels(bot.evaluator, args.part)
    stop = levels.stop
    sample = np.random.default_rng([args.seed, index, 38])
    game = Game.start(18, *game_setup(args.seed, index))
    pieces_seed = pieces_seed_of(args.seed, index)
    states = []
    while not game.topped_out and game.state()["level"] < stop:
        after = game.copy()
        play(bot.planner, after, MAX_FRAMES, stop, REACTION, pieces_seed, 1)
        if sample.random() < args.rate and game.active and game.state()["level"] in levels:
            state = _state(game, after.state()["rows"], bot, sample, args)
            if state is not None:
                states.append(state)
        game = after
    arrays = {k: np.array([s[k] for s in states]) for k in ("features", "q", "bot", "level")}
    if not states:
        arrays = {
            "features": np.zeros((0, MAX_KEPT, MAX_NEXT, FEATURES + 1)),
            "q": np.zeros((0, MAX_KEPT)),
            "bot": np.zeros(0),
            "level": np.zeros(0),
        }
    partial = path.with_name(f".{path.name}")  # hidden from fit's glob until whole
    np.savez_compressed(partial, **arrays)
    os.replace(partial, path)  # a file is whole or absent
    return len(states)


def collect(args: argparse.Namespace) -> None:
    Path(args.data).mkdir(parents=True, exist_ok=True)
    jobs = [(args, i) for i in range(args.start, args.start + args.games)]
    for number, states in map_indexed(collect_game, jobs, args.workers):
        print(
            f"game {args.start + number}: {'done before' if states < 0 else f'{states} states'}",
            flush=True,
        )


class Choices:
    """Each state's kept placements; `points(w)` is what the two-piece choice by weights
    w gets (the playout points of the placement whose best pair is least)."""

    def __init__(self, features: np.ndarray, q: np.ndarray, ceiling: float) -> None:
        self.pair_ok = ~np.isnan(features[..., 0])
        self.kept_ok = ~np.isnan(q)
        self.x = np.nan_to_num(features[..., :FEATURES]).astype(np.float32)
        self.ceiling = np.nan_to_num(features[..., FEATURES]).astype(np.float32) * ceiling
        self.q = np.nan_to_num(q)

    def points(self, w: np.ndarray) -> np.ndarray:
        value = np.where(self.pair_ok, self.x @ w.astype(np.float32) + self.ceiling, np.inf)
        choice = np.where(self.kept_ok, value.min(-1), np.inf).argmin(-1)
        return self.q[np.arange(len(choice)), choice]


def _mean_se(x: np.ndarray) -> str:
    return f"{x.mean():+,.0f} ± {standard_error(x):,.0f}"


def fit(args: argparse.Namespace) -> None:
    files = sorted(Path(args.data).glob("game*.npz"))
    loaded = [np.load(f) for f in files]
    evaluator, w0 = _start(args.evaluator, args.part)
    if args.part and not all("level" in d for d in loaded):
        raise SystemExit(f"error: --{args.part.replace('_', '-')} needs states with their level")
    # Without a set every state is fitted, those of files without levels too.
    levels = _levels(evaluator, args.part)
    kept = [np.isin(d["level"], levels) if "level" in d else slice(None) for d in loaded]
    features = np.concatenate([d["features"][k] for d, k in zip(loaded, kept, strict=True)])
    q = np.concatenate([d["q"][k] for d, k in zip(loaded, kept, strict=True)])
    game = np.concatenate(
        [[int(f.stem[4:])] * len(d["q"][k]) for f, d, k in zip(files, loaded, kept, strict=True)]
    )
    choices = Choices(features, q, evaluator.ceiling)
    held_out = game % 5 == 0
    fixed = set(args.fixed.split(",")) if args.fixed else set()
    free = [i for i, n in enumerate(ALL_FEATURE_NAMES) if w0[i] != 0 and n not in fixed]
    base = choices.points(w0)

    def weights(theta: np.ndarray) -> np.ndarray:
        w = w0.copy()
        w[free] *= 1 + np.asarray(theta)
        return w

    def loss(theta: np.ndarray) -> float:
        return -float((choices.points(weights(theta)) - base)[~held_out].mean())

    search = cma.CMAEvolutionStrategy(
        np.zeros(len(free)),
        args.sigma,
        {"seed": args.cma_seed, "verbose": -9, "maxiter": args.iters},
    )
    while not search.stop():
        candidates = search.ask()
        search.tell(candidates, [loss(c) for c in candidates])
    w = weights(search.result.xfavorite)
    gain = choices.points(w) - base
    print(f"{len(q)} states of {len(files)} games ({held_out.sum()} held out)")
    print(
        "playout points a state over the starting weights' choice: "
        f"fitted on {_mean_se(gain[~held_out])}, held out {_mean_se(gain[held_out])}"
    )
    for i in free:
        print(f"  {ALL_FEATURE_NAMES[i]:<24}{w0[i]:>9.3f} -> {w[i]:>9.3f}")
    if args.out:
        if args.part:
            _write_set(w, evaluator, args.part, args.out)
        else:
            _write_weights(w, w0, evaluator, args.out)


def _write_set(w: np.ndarray, evaluator: Evaluator, part: str, out: str) -> None:
    """A weights file: the evaluator's own, its `part` set (its from_level kept) replaced
    by the fitted weights written out whole."""
    fitted = dict(zip(ALL_FEATURE_NAMES, np.round(w, 4).tolist(), strict=True))
    sets = {
        "kill_screen": evaluator.kill_screen,
        "fast_levels": evaluator.fast_levels,
        part: {**getattr(evaluator, part), **fitted},
    }
    weights = Weights.named(
        evaluator.weights,
        evaluator.ceiling,
        evaluator.safe_stack_height,
        {"source": f"scripts/strength/rollout_weights.py fit --{part.replace('_', '-')}"},
        sets["kill_screen"],
        evaluator.kill_screen_by_tap_hz,
        sets["fast_levels"],
        evaluator.fast_levels_by_tap_hz,
    )
    save_weights(weights, out)


def _write_weights(w: np.ndarray, w0: np.ndarray, evaluator: Evaluator, out: str) -> None:
    """A weights file: these weights before level 29 (before 19 if the evaluator has a
    fast_levels set), the evaluator's kill-screen and fast_levels sets (its weights w0 with
    their changes) written out whole (such a set only overrides the weights it names)."""
    old = dict(zip(ALL_FEATURE_NAMES, w0.tolist(), strict=True))
    data = dict(zip(ALL_FEATURE_NAMES, np.round(w, 4).tolist(), strict=True))
    data |= {
        "ceiling": evaluator.ceiling,
        "safe_stack_height": evaluator.safe_stack_height,
        "kill_screen": old | evaluator.kill_screen,
        "kill_screen_by_tap_hz": {hz: old | s for hz, s in evaluator.kill_screen_by_tap_hz.items()},
        "provenance": {"source": "scripts/strength/rollout_weights.py fit"},
    }
    if evaluator.fast_levels:  # levels 19-28 keep the evaluator's own set too
        data["fast_levels"] = old | evaluator.fast_levels
    Path(out).write_text(json.dumps(data, indent=2) + "\n")


def _set_options(parser: argparse.ArgumentParser, fast_levels: str, kill_screen: str) -> None:
    """--fast-levels and --kill-screen (one of SETS as args.part, else None), helped thus."""
    which = parser.add_mutually_exclusive_group()
    for part, about in zip(SETS, (fast_levels, kill_screen), strict=True):
        which.add_argument(
            f"--{part.replace('_', '-')}", dest="part", action="store_const", const=part, help=about
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    c = commands.add_parser("collect")
    c.add_argument("--seed", type=int, default=7000)
    c.add_argument("--start", type=int, default=1000)
    c.add_argument("--games", type=int, default=240)
    c.add_argument("--rate", type=float, default=0.05, help="share of pieces sampled")
    c.add_argument("--k", type=int, default=6, help="placements played out a state")
    c.add_argument("--m", type=int, default=2, help="draws of the pieces a placement")
    c.add_argument("--h", type=int, default=30, help="pieces a playout")
    c.add_argument("--workers", type=int, default=2)
    c.add_argument("--data", required=True)
    c.add_argument("--evaluator", default=START, help=f"the bot's evaluator ({START})")
    _set_options(c, "states the fast_levels set weighs only", "states from level 29 only, to 39")
    f = commands.add_parser("fit")
    f.add_argument("--data", required=True)
    f.add_argument("--evaluator", default=START, help=f"the weights to start from ({START})")
    f.add_argument("--fixed", default="", help="weights kept, comma separated")
    f.add_argument("--sigma", type=float, default=0.3)
    f.add_argument("--iters", type=int, default=200)
    f.add_argument("--cma-seed", type=int, default=1)
    f.add_argument("--out", default="")
    _set_options(f, "fit the fast_levels set (levels 19-28)", "fit the kill_screen set (29-38)")
    args = parser.parse_args()
    (collect if args.command == "collect" else fit)(args)


if __name__ == "__main__":
    main()
