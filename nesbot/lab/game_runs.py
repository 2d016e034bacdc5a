"""Runs of simulated games (`nesbot simulate`): many NES-exact games played by the planner.

Games end at a top-out or on reaching level 39 (100 lines of level 29 and beyond), or the
level `stop_level` asks for.
Game i of seed S starts from a state drawn from numpy's Generator seeded with (S, i): the
NES RNG somewhere on its 32,767-step cycle, the frame counter and the spawn count. Its
result depends on nothing else, so the figures are the same however many worker
processes or Ray nodes share the games (only pieces_per_s, a speed, varies).
Where they run is nesbot.lab.workers's; what they come to nesbot.lab.statistics's.
"""

import itertools
import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from nesbot._core.game import Game
from nesbot._core.pieces import KILL_SCREEN_LEVEL
from nesbot._core.planner import Planner
from nesbot._core.whole_games import nes_rng, play
from nesbot.arguments import check_workers
from nesbot.bot.planning import DEFAULT_SETTINGS, PlannerSettings, build_planner
from nesbot.bot.value_model import value_model_for
from nesbot.errors import NesbotError
from nesbot.evaluation.evaluators import Evaluator
from nesbot.lab.saved_games import SavedGames
from nesbot.lab.statistics import LEVEL_LIMIT, Summary, summarize
from nesbot.lab.workers import map_indexed, ray_map
from nesbot.progress import Progress

RNG_CYCLE = 32_767
# Games whose settings simulate() makes and hands to the workers at a time: enough that the
# workers seldom wait for the batch's last game, few enough to hold in memory.
BATCH = 10_000
MAX_FRAMES = 20_000_000  # a guard only: a game from level 0 to level 39 is ~100x shorter
# BetaTetris plays its games to line 430, level 49 from level 18. Past about level 155 the
# console can crash (its score routine outlasts a frame), which the simulator does not model.
MAX_STOP_LEVEL = 155


def game_setup(seed: int, index: int) -> tuple[int, int, int]:
    """(rng, spawn_count, frame_counter) of game `index` of `seed`."""
    draw = np.random.default_rng([seed, index])
    return (
        nes_rng(int(draw.integers(RNG_CYCLE))),
        int(draw.integers(256)),
        int(draw.integers(65536)),
    )


def pieces_seed_of(seed: int, index: int) -> int:
    """The pieces seed of game `index` of `seed` with --same-pieces."""
    return int(np.random.default_rng([seed, index, 1]).integers(2**62))


@dataclass(frozen=True)
class GameSpec:
    """Everything one simulated game depends on."""

    evaluator: Evaluator
    settings: PlannerSettings
    level: int
    seed: int
    index: int
    stop_level: int = LEVEL_LIMIT  # stop at this level (29: the 19-28 plateau only)
    # The pieces depend on (seed, index) alone, not on the play (whole_games.play's
    # pieces_seed): two evaluators meet the same pieces, so their difference is paired.
    same_pieces: bool = False


_planner: tuple[tuple[Evaluator, PlannerSettings], Planner] | None = None


def planner_for(evaluator: Evaluator, settings: PlannerSettings) -> Planner:
    """The planner of `evaluator` and `settings`; each process keeps its last one."""
    global _planner
    key = (evaluator, settings)
    if _planner is None or _planner[0] != key:
        _planner = (key, build_planner(evaluator, settings))
    return _planner[1]


def start_game(spec: GameSpec) -> tuple[Game, int]:
    """Game `spec.index` of `spec.seed` at its first piece, and its pieces seed for
    whole_games.play (-1: the NES picker's own)."""
    rng, spawn_count, frame_counter = game_setup(spec.seed, spec.index)
    game = Game.start(spec.level, rng, spawn_count, frame_counter)
    pieces_seed = pieces_seed_of(spec.seed, spec.index) if spec.same_pieces else -1
    return game, pieces_seed


def play_one(spec: GameSpec) -> dict:
    """Play one simulated game."""
    game, pieces_seed = start_game(spec)
    planner = planner_for(spec.evaluator, spec.settings)
    return play(planner, game, MAX_FRAMES, spec.stop_level, spec.settings.reaction, pieces_seed)


OnResult = Callable[[int, dict], None]  # (index in specs, result) as each game ends


def run_games(specs: list[GameSpec], workers: int, on_result: OnResult | None = None) -> list[dict]:
    """Every spec's result, in the order of `specs`, on `workers` processes."""
    check_workers(workers)
    results: dict[int, dict] = {}
    for index, result in map_indexed(play_one, specs, workers):
        results[index] = result
        if on_result:
            on_result(index, result)
    return [results[i] for i in range(len(specs))]


def ray_runner(address: str, workers: int) -> Callable[..., list[dict]]:
    """A runner that plays games as Ray tasks (workers.ray_map): run(specs, on_result=None)
    calls on_result(index, result) as each game finishes and returns the results in the
    order of `specs`, as run_games does."""
    return ray_map(play_one, address, workers)


def run_identity(spec: GameSpec) -> dict[str, Any]:
    """What a run's games depend on but their index (SavedGames keeps it with them)."""
    evaluator = spec.evaluator.at_tap_hz(spec.settings.tap_hz)  # the set its planner plays
    model = value_model_for(spec.evaluator, spec.settings.tap_hz)
    learned = {"value_model": model.identity()} if model else {}  # none: as saved before
    # Through JSON and back: it is compared with what a file read back holds (lists, not
    # tuples).
    return json.loads(
        json.dumps(
            {
                "evaluator": {
                    "name": evaluator.name,
                    "weights": evaluator.as_vector(),
                    "kill_screen": evaluator.kill_screen_vector(),
                    "calming": evaluator.calming,
                    "ceiling": evaluator.ceiling,
                    "safe_stack_height": evaluator.safe_stack_height,
                    "kill_screen_safe_stack_height": evaluator.kill_screen_safe_stack_height,
                    "kill_screen_from_level": evaluator.kill_screen_from_level,
                }
                | fast_levels_identity(evaluator)
                | learned,
                "settings": asdict(spec.settings),
                "level": spec.level,
                "seed": spec.seed,
                "stop_level": spec.stop_level,
                "same_pieces": spec.same_pieces,
            }
        )
    )


def fast_levels_identity(evaluator: Evaluator) -> dict[str, Any]:
    """An evaluator's fast_levels set as run_identity keeps it: nothing without one, so
    the games saved before the set existed are still the same run."""
    if not evaluator.fast_levels:
        return {}
    return {
        "fast_levels": evaluator.fast_levels_vector(),
        "fast_levels_safe_stack_height": evaluator.fast_levels_safe_stack_height,
        "fast_levels_from_level": evaluator.fast_levels_from_level,
    }


def simulate(
    evaluator: Evaluator,
    games: int,
    level: int = 19,
    seed: int = 0,
    workers: int = 1,
    settings: PlannerSettings = DEFAULT_SETTINGS,
    progress: bool = True,
    ray: str | None = None,
    same_pieces: bool = False,
    stop_level: int = LEVEL_LIMIT,
    save_games: str | Path | None = None,
) -> tuple[Summary, list[dict]]:
    """Play `games` simulated games from `level` until a top-out or level `stop_level`;
    the summary and every game's result. `save_games`: a file that keeps each game as it
    ends, from which the same run goes on (SavedGames); pieces_per_s counts the games
    played this time.
    The games run on `workers` processes, or as Ray tasks when `ray` is an address
    (ray_runner); the figures are the same either way. `same_pieces`: GameSpec's."""
    if games < 1:
        raise NesbotError(f"--games {games}: need at least 1")
    if not 0 <= level <= KILL_SCREEN_LEVEL:
        raise NesbotError(f"--level {level} is outside 0-{KILL_SCREEN_LEVEL}")
    if not level < stop_level <= MAX_STOP_LEVEL:
        raise NesbotError(
            f"--stop-level {stop_level} must be above the start level {level} "
            f"and at most {MAX_STOP_LEVEL}"
        )

    def spec(index: int) -> GameSpec:
        return GameSpec(
            evaluator, settings, level, seed, index, stop_level, same_pieces=same_pieces
        )

    run = ray_runner(ray, workers) if ray is not None else partial(run_games, workers=workers)
    saved = SavedGames(save_games, run_identity(spec(0))) if save_games else None
    done = dict(saved.done) if saved else {}
    remaining = games - sum(index < games for index in done)
    started = time.perf_counter()
    pieces = 0
    try:
        with Progress("simulate", remaining, "game", enabled=progress) as bar:
            # A batch's settings at a time, not every game's first: --games 10^12 starts
            # playing at once, and holds only the results of the games it has played.
            unplayed = (index for index in range(games) if index not in done)
            for batch in itertools.batched(unplayed, BATCH, strict=False):
                todo = [spec(index) for index in batch]

                def finished(index: int, result: dict, todo: list[GameSpec] = todo) -> None:
                    bar.update(1)
                    if saved:
                        saved.add(todo[index].index, result)

                played = run(todo, on_result=finished)
                done |= {s.index: result for s, result in zip(todo, played, strict=True)}
                pieces += sum(result["pieces"] for result in played)
    finally:
        if saved:
            saved.close()
    seconds = time.perf_counter() - started
    results = [done[i] for i in range(games)]
    summary = summarize(results, seconds, stop_level)
    return replace(summary, pieces_per_s=pieces / max(seconds, 1e-9)), results
