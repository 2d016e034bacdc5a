"""Training the evaluation weights on simulated games: PSO or CMA-ES. A start in
meatfighter's form trains its 17 weights and the NES features; a right-well evaluation
(one that weighs StackRabbit's well features) trains every weight it weighs, the well
features among them, with CMA-ES, keeping its level sets as they are.

PSO as meatfighter describes it (meatfighter.com/nintendotetrisai): inertia 0.729844 and
acceleration 1.496180 for both the cognitive and the social term (van den Bergh and
Engelbrecht 2006), velocities clamped per dimension, a restart with random positions once
the best fitness has not improved for `patience` iterations (the global best is kept); the
swarm starts around the start weights (particle 0 is exactly them). CMA-ES (nesbot.lab.cmaes)
starts at the start weights with step size `spread`.

A candidate's fitness is the mean of its pre-29 points over G games, each to level 29 or a
top-out, printed with its standard error. Every candidate of an iteration plays the same G
games (common piece sequences, so differences between candidates are not luck of the
draw); each iteration plays new ones (games i*G .. i*G+G-1 of the training seed), so the
weights do not fit one set of sequences. The whole state, random generators included, is
written to the checkpoint after every iteration, so a resumed run continues exactly.
"""

import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from nesbot._core.features import ALL_FEATURE_NAMES, FEATURE_NAMES, WELL_FEATURE_NAMES
from nesbot._core.pieces import KILL_SCREEN_LEVEL
from nesbot._core.weight_sets import DEFAULT_SAFE_STACK_HEIGHT
from nesbot.bot.planning import (
    DEFAULT_DEEP_BRANCH,
    DEFAULT_DEEP_WIDTH,
    DEFAULT_SETTINGS,
    PlannerSettings,
    settings_saved_before,
)
from nesbot.errors import NesbotError
from nesbot.evaluation.evaluators import Evaluator
from nesbot.evaluation.weights import (
    FIXED_NAMES,
    TRAINABLE_NAMES,
    Weights,
    level_sets_data,
    read_json_file,
    set_at_tap_hz,
)
from nesbot.lab.checkpoint_shape import check_cma, check_header, check_swarm
from nesbot.lab.cmaes import CmaState, cma_from_json, cma_to_json, new_cma
from nesbot.lab.game_runs import GameSpec, run_games
from nesbot.lab.game_runs import ray_runner as ray_runner  # the runner `train --ray` uses
from nesbot.lab.statistics import standard_error
from nesbot.output_file import write_output

OPTIMIZERS = ("pso", "cmaes")
INERTIA = 0.729844
COGNITIVE = 1.496180
SOCIAL = 1.496180
CHECKPOINT_VERSION = 3
# An iteration's games (particles x games; a day of play on two cores), each with its
# settings and its result held at once: about a kilobyte each.
MAX_ITERATION_GAMES = 100_000
# The largest --spread and --max-velocity: twice the bound PSO's positions stay within (5),
# a step across the whole space (CMA-ES's step is spread x each weight's size: ten times
# it is no search either).
MAX_STEP = 10.0


@dataclass(frozen=True)
class TrainConfig:
    """What a run's results depend on; a checkpoint only resumes the same config."""

    start: list[float]  # the start weights (TRAINABLE_NAMES order, or its first 17)
    ceiling: float  # kept fixed: rule 2's scale
    safe_stack_height: float = DEFAULT_SAFE_STACK_HEIGHT  # kept fixed: high_stack's start
    # kept fixed: the piece-range features' weights (pre-29 games cannot see them)
    unreachable_columns: float = 0.0
    reach_excess: float = 0.0
    particles: int = 12
    games: int = 30
    level: int = 19
    seed: int = 0
    settings: PlannerSettings = DEFAULT_SETTINGS
    optimizer: str = "pso"  # or "cmaes"
    spread: float = 0.5  # the initial swarm: start + normal(0, spread); CMA-ES's step size
    bound: float = 5.0  # positions stay in [-bound, bound]; restarts draw uniformly there
    max_velocity: float = 1.0  # per dimension
    patience: int = 4  # iterations without a better global best before a restart
    # Every game's pieces depend on the seed and game alone (GameSpec.same_pieces): the
    # candidates of an iteration meet the same pieces, so their ranking is paired.
    same_pieces: bool = False
    # A right-well start: the weights trained, by name (`start` holds their start values
    # in this order; empty: TRAINABLE_NAMES), and the start's level sets, which every
    # candidate keeps as they are (kill_screen, fast_levels and their _by_tap_hz, the
    # tap rates as strings: what asdict writes to a checkpoint and reads back).
    learned: list[str] = field(default_factory=list)
    level_sets: dict[str, Any] = field(default_factory=dict)
    # and its weights that are not trained but kept as they are (those its fast_levels set
    # replaces at the run's tap rate)
    kept_weights: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.particles < 2 or self.games < 1:
            raise NesbotError("train needs --particles >= 2 and --games >= 1")
        for option, value in (("--spread", self.spread), ("--max-velocity", self.max_velocity)):
            if not 0 < value <= MAX_STEP:  # NaN too: it fails every comparison
                raise NesbotError(
                    f"{option} {value:g} must be a number above 0 and at most {MAX_STEP:g}"
                )
        if self.particles * self.games > MAX_ITERATION_GAMES:
            # An iteration's games are listed (and their results kept) at once.
            raise NesbotError(
                f"--particles {self.particles} x --games {self.games}: an iteration plays "
                f"at most {MAX_ITERATION_GAMES:,} games"
            )
        if self.learned:
            if len(self.start) != len(self.learned):
                raise NesbotError(
                    f"train starts from {len(self.learned)} weights, got {len(self.start)}"
                )
            if self.optimizer != "cmaes":
                # PSO's positions stay within +-bound, meatfighter's scale; CMA-ES steps
                # each weight by its own size
                raise NesbotError(
                    "train trains a right-well evaluation with --optimizer cmaes: its "
                    "weights are not on the scale PSO searches"
                )
        elif len(self.start) not in (len(FEATURE_NAMES), len(TRAINABLE_NAMES)):
            raise NesbotError(
                f"train starts from {len(FEATURE_NAMES)} or {len(TRAINABLE_NAMES)} weights, "
                f"got {len(self.start)}"
            )

    @classmethod
    def starting_from(cls, start: Evaluator, **fields: Any) -> "TrainConfig":
        """A run from `start`'s weights, keeping FIXED_NAMES, its settings and its level
        sets as they are. In meatfighter's 17-feature form (with the calming rules) it
        trains TRAINABLE_NAMES; a right-well evaluation (it weighs a well feature) trains
        every weight it weighs but those its fast_levels set replaces. NesbotError for any
        other start."""
        if not start.calming:
            raise NesbotError(
                f"{start.name} is not in meatfighter's 17-feature form (it has no calming "
                "rules); train starts from meatfighter-2018, nesbot-trained, a right-well "
                "evaluation or a weights file"
            )
        learned: list[str] = []
        kept_weights: dict[str, float] = {}
        if any(start.weights.get(name) for name in WELL_FEATURE_NAMES):
            # Not the weights the fast_levels set (from level 19 until the kill screen's)
            # sets at the run's tap rate: the games would hardly see them.
            tap_hz = fields.get("settings", DEFAULT_SETTINGS).tap_hz
            fast = set_at_tap_hz(start.fast_levels, start.fast_levels_by_tap_hz, tap_hz)
            learned = [
                name
                for name in ALL_FEATURE_NAMES
                if start.weights.get(name) and name not in (*FIXED_NAMES, *fast)
            ]
            kept_weights = {name: start.weights[name] for name in fast if start.weights.get(name)}
        else:
            kept = {*TRAINABLE_NAMES, *FIXED_NAMES}
            untrained = [name for name, w in start.weights.items() if w and name not in kept]
            if untrained:
                raise NesbotError(
                    f"{start.name} is not in meatfighter's 17-feature form (train does not "
                    f"train {', '.join(untrained)}); train starts from meatfighter-2018, "
                    "nesbot-trained, a right-well evaluation or a weights file"
                )
        return cls(
            start=[start.weights.get(name, 0.0) for name in learned or TRAINABLE_NAMES],
            ceiling=start.ceiling,
            safe_stack_height=start.safe_stack_height,
            unreachable_columns=start.weights.get("unreachable_columns", 0.0),
            reach_excess=start.weights.get("reach_excess", 0.0),
            learned=learned,
            kept_weights=kept_weights,
            level_sets=level_sets_data(start),
            **fields,
        )


@dataclass
class Swarm:
    positions: np.ndarray  # particles x 17
    velocities: np.ndarray
    best_positions: np.ndarray
    best_fitness: np.ndarray  # per particle
    global_best: np.ndarray
    global_fitness: float
    iteration: int
    stagnant: int
    restarts: int
    history: list[dict[str, Any]]


def play_here(specs: list[GameSpec]) -> list[dict]:
    """Play the games in this process (the default runner)."""
    return run_games(specs, 1)


def fitness_of(points: list[int]) -> tuple[float, float]:
    """The mean of the games' pre-29 points and its standard error (0 for one game)."""
    return float(np.mean(points)), standard_error(points)


def candidate_weights(
    vector: "Sequence[float] | np.ndarray",
    config: TrainConfig,
    provenance: dict[str, Any] | None = None,
) -> Weights:
    """The weights of a point of the search: `vector` in the run's order (config.learned,
    or TRAINABLE_NAMES), with the settings, weights and level sets the run keeps."""
    values = [float(v) for v in vector]
    if config.learned:
        trained = dict(zip(config.learned, values, strict=True))
    else:
        trained = Weights.from_vector(values).by_name()
    return Weights.named(
        trained
        | config.kept_weights
        | {"unreachable_columns": config.unreachable_columns, "reach_excess": config.reach_excess},
        config.ceiling,
        config.safe_stack_height,
        provenance,
        **config.level_sets,
    )


def particle_evaluator(vector: np.ndarray, config: TrainConfig) -> Evaluator:
    return Evaluator.from_weights(candidate_weights(vector, config), "particle")


def _specs(config: TrainConfig, positions: np.ndarray, iteration: int) -> list[GameSpec]:
    first = iteration * config.games  # the same games for every candidate of an iteration
    return [
        GameSpec(
            particle_evaluator(p, config),
            config.settings,
            config.level,
            config.seed,
            first + game,
            stop_level=KILL_SCREEN_LEVEL,
            same_pieces=config.same_pieces,
        )
        for p in positions
        for game in range(config.games)
    ]


def evaluate_swarm(
    config: TrainConfig,
    positions: np.ndarray,
    run: Callable[[list[GameSpec]], list[dict]],
    iteration: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """Each candidate's fitness and its standard error on the games of `iteration`."""
    results = run(_specs(config, positions, iteration))
    points = [r["pre29_points"] for r in results]
    g = config.games
    both = [fitness_of(points[i * g : (i + 1) * g]) for i in range(len(positions))]
    return np.array([f for f, _ in both]), np.array([se for _, se in both])


def new_swarm(config: TrainConfig, rng: np.random.Generator) -> Swarm:
    n, dims = config.particles, len(config.start)
    start = np.array(config.start)
    positions = start + rng.normal(0.0, config.spread, (n, dims))
    positions[0] = start
    positions = np.clip(positions, -config.bound, config.bound)
    velocities = rng.uniform(-config.max_velocity, config.max_velocity, (n, dims))
    return Swarm(
        positions,
        velocities,
        positions.copy(),
        np.full(n, -np.inf),
        start.copy(),
        -np.inf,
        0,
        0,
        0,
        [],
    )


def step(
    swarm: Swarm,
    fitness: np.ndarray,
    config: TrainConfig,
    rng: np.random.Generator,
    se: np.ndarray | None = None,
) -> None:
    """Take in the fitness of the current positions (and its standard errors), then move
    the swarm one iteration."""
    improved = fitness > swarm.best_fitness
    swarm.best_fitness[improved] = fitness[improved]
    swarm.best_positions[improved] = swarm.positions[improved]
    leader = int(np.argmax(fitness))
    if fitness[leader] > swarm.global_fitness:
        swarm.global_fitness = float(fitness[leader])
        swarm.global_best = swarm.positions[leader].copy()
        swarm.stagnant = 0
    else:
        swarm.stagnant += 1
    swarm.history.append(
        {
            "iteration": swarm.iteration + 1,
            "best": swarm.global_fitness,
            "iteration_best": float(fitness[leader]),
            "iteration_best_se": None if se is None else float(se[leader]),
            "iteration_mean": float(np.mean(fitness)),
        }
    )
    swarm.iteration += 1
    n, dims = swarm.positions.shape
    if swarm.stagnant >= config.patience:
        swarm.positions = rng.uniform(-config.bound, config.bound, (n, dims))
        swarm.velocities = rng.uniform(-config.max_velocity, config.max_velocity, (n, dims))
        swarm.best_positions = swarm.positions.copy()
        swarm.best_fitness = np.full(n, -np.inf)
        swarm.stagnant = 0
        swarm.restarts += 1
        return
    r1 = rng.random((n, dims))
    r2 = rng.random((n, dims))
    swarm.velocities = (
        INERTIA * swarm.velocities
        + COGNITIVE * r1 * (swarm.best_positions - swarm.positions)
        + SOCIAL * r2 * (swarm.global_best - swarm.positions)
    )
    swarm.velocities = np.clip(swarm.velocities, -config.max_velocity, config.max_velocity)
    swarm.positions = np.clip(swarm.positions + swarm.velocities, -config.bound, config.bound)


# ---------------------------------------------------------------- checkpoints


def save_checkpoint(
    path: Path,
    config: TrainConfig,
    state: "Swarm | CmaState",
    rng: np.random.Generator | None = None,
) -> None:
    data: dict[str, Any] = {"version": CHECKPOINT_VERSION, "config": asdict(config)}
    if isinstance(state, CmaState):
        data |= cma_to_json(state)
    else:
        assert rng is not None, "a swarm's checkpoint keeps its random generator"
        data["rng"] = rng.bit_generator.state
        data |= {
            k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in vars(state).items()
        }
        # -inf (particles not yet evaluated) is not JSON; None stands for it.
        data["best_fitness"] = [None if np.isinf(f) else f for f in state.best_fitness]
        data["global_fitness"] = None if np.isinf(state.global_fitness) else state.global_fitness
    # Renamed into place when whole: a crash leaves the previous checkpoint.
    write_output(path, "checkpoint", json.dumps(data) + "\n")


def load_checkpoint(
    path: Path, config: TrainConfig
) -> tuple["Swarm | CmaState", np.random.Generator | None]:
    data = check_header(path, read_json_file(path, "checkpoint"))
    if data.get("version") != CHECKPOINT_VERSION:
        raise NesbotError(f"checkpoint {path} is not a nesbot train checkpoint of this version")
    wanted = json.loads(json.dumps(asdict(config)))
    # checkpoints from before these settings existed ran with their defaults
    saved = {
        "same_pieces": False,
        "safe_stack_height": DEFAULT_SAFE_STACK_HEIGHT,
        "unreachable_columns": 0.0,
        "reach_excess": 0.0,
        "learned": [],
        "level_sets": {},
        "kept_weights": {},
    } | data["config"]
    old_settings = saved.get("settings", {})
    saved["settings"] = settings_saved_before(
        {
            "premove": 0,
            # played without the hedge, which only a reaction uses
            "hedge": not old_settings.get("reaction", 0),
            "deep_width": DEFAULT_DEEP_WIDTH,
            "deep_branch": DEFAULT_DEEP_BRANCH,
        }
        | old_settings
    )
    if saved != wanted:
        differ = [k for k, v in wanted.items() if saved.get(k) != v]
        raise NesbotError(f"checkpoint {path} was made with other settings ({', '.join(differ)})")
    if config.optimizer == "cmaes":
        check_cma(path, data, len(config.start))
        try:
            cma = cma_from_json(data, config.start, config.spread, config.particles, config.seed)
        except NesbotError as e:  # said without the file's name
            raise NesbotError(f"checkpoint {path}: {e}") from None
        except (AttributeError, IndexError, KeyError, OverflowError, TypeError, ValueError) as e:
            raise NesbotError(f"checkpoint {path}: its CMA-ES state does not load ({e})") from None
        return cma, None
    check_swarm(path, data, config.particles, len(config.start))
    rng = np.random.default_rng()
    try:
        rng.bit_generator.state = data["rng"]
    except (KeyError, TypeError, ValueError) as e:
        raise NesbotError(f"checkpoint {path}: rng is not a generator's state ({e})") from None

    def fitness(v: float | None) -> float:
        return -np.inf if v is None else v

    swarm = Swarm(
        positions=np.array(data["positions"]),
        velocities=np.array(data["velocities"]),
        best_positions=np.array(data["best_positions"]),
        best_fitness=np.array([fitness(f) for f in data["best_fitness"]]),
        global_best=np.array(data["global_best"]),
        global_fitness=fitness(data["global_fitness"]),
        iteration=data["iteration"],
        stagnant=data["stagnant"],
        restarts=data["restarts"],
        history=data["history"],
    )
    return swarm, rng


# ---------------------------------------------------------------- running


def train(
    config: TrainConfig,
    iterations: int,
    checkpoint: Path | None = None,
    resume: bool = False,
    run: Callable[[list[GameSpec]], list[dict]] | None = None,
    log: Callable[[str], None] = lambda line: print(line, file=sys.stderr, flush=True),
) -> "Swarm | CmaState":
    """Run the optimizer until `iterations` iterations in total (a resumed run counts the
    earlier ones); `run` plays a list of games (default: this process)."""
    if config.optimizer not in OPTIMIZERS:
        raise NesbotError(f"--optimizer {config.optimizer!r} is not one of {', '.join(OPTIMIZERS)}")
    if resume:  # else a missing or mistyped checkpoint would start afresh, unsaid
        if checkpoint is None:
            raise NesbotError("--resume continues a --checkpoint: give one")
        if not checkpoint.exists():
            raise NesbotError(f"--resume: checkpoint {checkpoint} does not exist")
    run = run or play_here
    rng: np.random.Generator | None = None
    if checkpoint is not None and checkpoint.exists():
        if not resume:
            raise NesbotError(
                f"checkpoint {checkpoint} exists: pass --resume to continue it, or remove it"
            )
        state, rng = load_checkpoint(checkpoint, config)
        log(f"resumed {checkpoint} at iteration {state.iteration}")
    elif config.optimizer == "cmaes":
        state = new_cma(config.start, config.spread, config.particles, config.seed)
    else:
        rng = np.random.default_rng(config.seed)
        state = new_swarm(config, rng)
    while state.iteration < iterations:
        started = time.perf_counter()
        if isinstance(state, CmaState):
            candidates = state.ask()
            fitness, se = evaluate_swarm(config, candidates, run, state.iteration)
            state.tell(candidates, fitness, se)
        else:
            assert rng is not None  # a swarm is made or loaded with its generator
            fitness, se = evaluate_swarm(config, state.positions, run, state.iteration)
            step(state, fitness, config, rng, se)
        if checkpoint is not None:
            save_checkpoint(checkpoint, config, state, rng)
        last = state.history[-1]
        log(
            f"iteration {state.iteration}/{iterations}: best {last['best']:,.0f}  this "
            f"iteration best {last['iteration_best']:,.0f} (se {last['iteration_best_se']:,.0f}) "
            f"mean {last['iteration_mean']:,.0f}  {time.perf_counter() - started:.0f} s"
        )
    return state


def trained_weights(
    state: "Swarm | CmaState",
    config: TrainConfig,
    command: str,
    run: Callable[[list[GameSpec]], list[dict]] | None = None,
) -> Weights:
    """The weights a run ends with. PSO: the global best. CMA-ES: the distribution's mean,
    measured on the games of the iteration after the last (training never played them)."""
    cma = isinstance(state, CmaState)
    chosen: list[float]
    provenance: dict[str, Any] = {
        "source": f"nesbot train ({'CMA-ES' if cma else 'PSO'})",
        "command": command,
        "seed": config.seed,
        "games": config.games,
        "iterations": state.iteration,
        "particles": config.particles,
        "level": config.level,
        "planner": asdict(config.settings),
    }
    if config.learned:
        provenance["learned"] = config.learned  # the rest kept as the start had them
    if isinstance(state, CmaState):
        chosen = state.mean()
        fitness, se = evaluate_swarm(config, np.array([chosen]), run or play_here, state.iteration)
        first = state.iteration * config.games
        provenance |= {
            "chosen": "the CMA-ES distribution mean after the last iteration",
            "fitness": float(fitness[0]),
            "fitness_se": float(se[0]),
            "fitness_definition": f"mean pre-29 points over training seed {config.seed}'s "
            f"games {first}-{first + config.games - 1}, which no iteration played",
            "best_candidate_fitness": state.best_fitness,
            "best_candidate_fitness_se": state.best_se,
            "history": state.history,
        }
    else:
        chosen = list(state.global_best)
        provenance |= {
            "fitness": state.global_fitness,
            "fitness_definition": "mean pre-29 points over the games of the iteration it "
            "was found in (each iteration plays new games)",
            "restarts": state.restarts,
        }
    return candidate_weights(chosen, config, provenance)
