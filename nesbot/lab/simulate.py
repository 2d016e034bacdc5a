"""Simulated-game statistics: many NES-exact games played by the two-piece planner.

Games end at a top-out or on reaching level 39 (100 lines of level 29 and beyond), or the
level `stop_level` asks for.
Game i of seed S starts from a state drawn from numpy's Generator seeded with (S, i): the
NES RNG somewhere on its 32,767-step cycle, the frame counter and the spawn count. Its
result depends on nothing else, so the figures are the same however many worker
processes or Ray nodes share the games (only pieces_per_s, a speed, varies).
"""

import json
import logging
import multiprocessing
import socket
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from nesbot._core.game import Game
from nesbot._core.pieces import KILL_SCREEN_LEVEL
from nesbot._core.planner import Planner
from nesbot._core.whole_games import nes_rng, play
from nesbot.bot.planning import DEFAULT_SETTINGS, PlannerSettings, build_planner
from nesbot.errors import NesbotError
from nesbot.evaluation.evaluators import Evaluator
from nesbot.lab.saved_games import SavedGames
from nesbot.nes import ram
from nesbot.progress import Progress

MEATFIGHTER_MEDIAN = 989_200  # his published median of ~1.7 million 19-28 games
RNG_CYCLE = 32_767
MAX_FRAMES = 20_000_000  # a guard only: a game from level 0 to level 39 is ~100x shorter
# A bot that keeps the stack low can survive 1 frame per row for thousands of lines (and the
# level byte wraps to 0 after 255, back to slow gravity), so a game also ends when it reaches
# level 39: post-29 lines count up to 100.
LEVEL_LIMIT = 39
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
    # The pieces depend on (seed, index) alone, not on the play (simulate.play's
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
    simulate.play (-1: the NES picker's own)."""
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
    _check_workers(workers)
    results: dict[int, dict] = {}
    for index, result in map_indexed(play_one, specs, workers):
        results[index] = result
        if on_result:
            on_result(index, result)
    return [results[i] for i in range(len(specs))]


def _call_indexed[T, R](function: Callable[[T], R], indexed: tuple[int, T]) -> tuple[int, R]:
    index, item = indexed
    return index, function(item)


def map_indexed[T, R](
    function: Callable[[T], R], items: list[T], workers: int
) -> Iterator[tuple[int, R]]:
    """(index, function(item)) of every item, as each finishes (so progress moves whatever
    game is slow), on `workers` processes; `function` must be a module's own function."""
    indexed = partial(_call_indexed, function)
    if workers == 1 or len(items) <= 1:
        yield from map(indexed, enumerate(items))
        return
    # spawn, not fork: the parent may hold threads (video writer, Ray) that fork would copy.
    context = multiprocessing.get_context("spawn")
    with context.Pool(min(workers, len(items))) as pool:
        yield from pool.imap_unordered(indexed, enumerate(items), chunksize=1)


def _check_workers(workers: int) -> None:
    if workers < 1:
        raise NesbotError(f"--workers {workers}: need at least 1")


def ray_runner(address: str, workers: int) -> Callable[..., list[dict]]:
    """A runner that plays games as Ray tasks: `address` "local" starts a Ray instance on
    this machine with `workers` CPUs, anything else joins that cluster (nesbot must be
    installed on its nodes; `workers` is then unused). A Ray already running in this
    process is reused. run(specs, on_result=None) calls on_result(index, result) as each
    game finishes and returns the results in the order of `specs`, as run_games does."""
    _check_workers(workers)
    try:
        import ray
    except ImportError:
        raise NesbotError("--ray needs Ray: pip install 'nesbot[ray]'") from None
    if not ray.is_initialized():
        _start_ray(ray, address, workers)
    remote_play = ray.remote(play_one)

    def run(specs: list[GameSpec], on_result: OnResult | None = None) -> list[dict]:
        pending = [remote_play.remote(spec) for spec in specs]
        index = {ref: i for i, ref in enumerate(pending)}
        results: dict[int, dict] = {}
        try:
            while pending:
                # Whatever finished within half a second (at once when all have), so the
                # progress bar moves while the games run.
                done, pending = ray.wait(pending, num_returns=len(pending), timeout=0.5)
                for ref, result in zip(done, ray.get(done), strict=True):
                    results[index[ref]] = result
                    if on_result:
                        on_result(index[ref], result)
        except ray.exceptions.RayError as e:
            cause = getattr(e, "cause", None) or e  # a task's own exception
            reason = _first_line(f"{type(cause).__name__}: {cause}")
            raise NesbotError(f"a game failed on the Ray cluster: {reason}") from e
        return [results[i] for i in range(len(specs))]

    return run


def _first_line(text: object) -> str:
    return (str(text).strip().splitlines() or [""])[0]


def _start_ray(ray, address: str, workers: int) -> None:
    quiet = {"log_to_driver": False, "logging_level": logging.WARNING}
    if address == "local":
        try:  # "local", not None: None would join a cluster that `ray start` left running
            ray.init(address="local", num_cpus=workers, include_dashboard=False, **quiet)
        except (OSError, ValueError, RuntimeError) as e:
            raise NesbotError(f"cannot start Ray on this machine: {_first_line(e)}") from None
        return
    _probe(address)
    try:
        ray.init(address=address, **quiet)
    except (OSError, ValueError, RuntimeError) as e:
        raise NesbotError(f"cannot join the Ray cluster at {address}: {_first_line(e)}") from None


def _probe(address: str, seconds: float = 10.0) -> None:
    """Fail at once when nothing answers at HOST:PORT: Ray itself would retry for many
    minutes, logging a warning every few seconds."""
    host, colon, port = address.split("://", 1)[-1].rpartition(":")
    if not (colon and host and port.isdigit()):
        return  # "auto" and malformed addresses: Ray's own checks of these are quick
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=seconds).close()
    except OSError as e:
        reason = e.strerror or _first_line(e) or type(e).__name__
        raise NesbotError(f"cannot join the Ray cluster at {address}: {reason}") from None


@dataclass(frozen=True)
class Summary:
    """The `nesbot simulate --json` object (issue #5's keys, in its order)."""

    games: int
    maxout_rate: float
    pre29_score_mean: float
    pre29_score_median: float
    pre29_score_p10: float
    pre29_score_p90: float
    reach29_rate: float
    lines_mean: float
    tetris_rate: float
    post29_lines_median: float | None
    pieces_per_s: float
    fallbacks: int  # plans whose every option the calming rules vetoed (the least bad played)
    truncated: int  # plans whose search ran out of node capacity (played on what it found)
    # Standard errors of the games' sample: the figure of other games of the same bot lies
    # within about two of them of this one's, 19 times in 20.
    maxout_rate_se: float
    reach29_rate_se: float
    pre29_score_mean_se: float
    # The pre-29 score as BetaTetris counts it: line clears alone, no soft-drop points
    # (docs/strength.md, "How the pre-29 figure is counted").
    pre29_line_score_mean: float
    pre29_line_score_mean_se: float
    # The whole game, as the community's format counts it (docs/strength.md): games stop at
    # level stop_level. Scores are uncapped. score39 is the score when the clear that
    # reaches level 39 is made (a game that tops out before counts its final score); its
    # line form counts line clears alone, as BetaTetris does. None when stop_level < 39.
    stop_level: int
    reach39_rate: float | None
    reach39_rate_se: float | None
    score39_mean: float | None
    score39_mean_se: float | None
    score39_line_mean: float | None
    score39_line_mean_se: float | None
    final_score_mean: float
    final_score_mean_se: float

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    def describe(self) -> str:
        """The figures for a person: rounded, rates in percent with their standard error."""

        def rate(value: float, se: float) -> str:
            return f"{value:.1%} ± {se:.1%}"

        rows = [
            ("games", f"{self.games:,}"),
            ("max-out rate", rate(self.maxout_rate, self.maxout_rate_se)),
            ("reach level 29", rate(self.reach29_rate, self.reach29_rate_se)),
            (
                "pre-29 score mean",
                f"{self.pre29_score_mean:,.0f} ± {self.pre29_score_mean_se:,.0f}",
            ),
            (
                "pre-29 score p10/50/90",
                f"{self.pre29_score_p10:,.0f} / {self.pre29_score_median:,.0f} / "
                f"{self.pre29_score_p90:,.0f}",
            ),
            (
                "  of it line clears",
                f"{self.pre29_line_score_mean:,.0f} ± {self.pre29_line_score_mean_se:,.0f}"
                " (mean, BetaTetris's count)",
            ),
            *(
                []
                if self.reach39_rate is None
                else [
                    ("reach level 39", rate(self.reach39_rate, self.reach39_rate_se or 0.0)),
                    (
                        "score at level 39",
                        f"{self.score39_mean:,.0f} ± {self.score39_mean_se:,.0f}",
                    ),
                    (
                        "  of it line clears",
                        f"{self.score39_line_mean:,.0f} ± {self.score39_line_mean_se:,.0f}"
                        " (mean, BetaTetris's count)",
                    ),
                ]
            ),
            (
                f"final score (stop {self.stop_level})",
                f"{self.final_score_mean:,.0f} ± {self.final_score_mean_se:,.0f} (uncapped)",
            ),
            ("lines mean", f"{self.lines_mean:,.1f}"),
            ("tetris rate", f"{self.tetris_rate:.1%} of lines"),
            (
                "lines after 29, median",
                "none reached 29"
                if self.post29_lines_median is None
                else f"{self.post29_lines_median:,.0f}",
            ),
            ("pieces/s", f"{self.pieces_per_s:,.0f}"),
            ("fallbacks, truncated", f"{self.fallbacks}, {self.truncated}"),
        ]
        lines = [f"{name:<24}{value}" for name, value in rows]
        lines.append("(± one standard error; --json has every figure unrounded)")
        return "\n".join(lines)


def run_identity(spec: GameSpec) -> dict[str, Any]:
    """What a run's games depend on but their index (SavedGames keeps it with them)."""
    evaluator = spec.evaluator.at_tap_hz(spec.settings.tap_hz)  # the set its planner plays
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
                | fast_levels_identity(evaluator),
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


def summarize(results: list[dict], seconds: float, stop_level: int = LEVEL_LIMIT) -> Summary:
    pre29 = np.array([r["pre29_points"] for r in results], dtype=float)
    pre29_lines = np.array([r["pre29_line_points"] for r in results], dtype=float)
    lines = np.array([r["lines"] for r in results], dtype=float)
    post29 = [r["lines"] - r["lines_at_29"] for r in results if r["lines_at_29"] is not None]
    total_lines = lines.sum()
    maxouts = np.array([r["maxout"] for r in results], dtype=float)
    reached = np.array([r["lines_at_29"] is not None for r in results], dtype=float)
    final = np.array([r["points"] for r in results], dtype=float)
    level39 = _at_level_39(results, stop_level)
    return Summary(
        games=len(results),
        maxout_rate=float(maxouts.mean()),
        pre29_score_mean=float(pre29.mean()),
        pre29_score_median=float(np.median(pre29)),
        pre29_score_p10=float(np.percentile(pre29, 10)),
        pre29_score_p90=float(np.percentile(pre29, 90)),
        reach29_rate=float(reached.mean()),
        lines_mean=float(lines.mean()),
        tetris_rate=4 * sum(r["tetrises"] for r in results) / total_lines if total_lines else 0.0,
        post29_lines_median=float(np.median(post29)) if post29 else None,
        pieces_per_s=sum(r["pieces"] for r in results) / max(seconds, 1e-9),
        fallbacks=sum(r["fallbacks"] for r in results),
        truncated=sum(r["truncated"] for r in results),
        maxout_rate_se=standard_error(maxouts),
        reach29_rate_se=standard_error(reached),
        pre29_score_mean_se=standard_error(pre29),
        pre29_line_score_mean=float(pre29_lines.mean()),
        pre29_line_score_mean_se=standard_error(pre29_lines),
        stop_level=stop_level,
        **level39,
        final_score_mean=float(final.mean()),
        final_score_mean_se=standard_error(final),
    )


def _at_39_or_end(result: dict, at_39: str, at_end: str) -> int:
    return result[at_end] if result[at_39] is None else result[at_39]


def _at_level_39(results: list[dict], stop_level: int) -> dict[str, float | None]:
    """Summary's level-39 figures: the game's points when level 39 began, or at its end
    for a game that topped out before (None throughout if the games stop below 39)."""
    reached = np.array([r["points_at_39"] is not None for r in results], dtype=float)
    score = np.array([_at_39_or_end(r, "points_at_39", "points") for r in results], dtype=float)
    lines = np.array(
        [_at_39_or_end(r, "line_points_at_39", "line_points") for r in results], dtype=float
    )
    figures: dict[str, float | None] = {
        "reach39_rate": float(reached.mean()),
        "reach39_rate_se": standard_error(reached),
        "score39_mean": float(score.mean()),
        "score39_mean_se": standard_error(score),
        "score39_line_mean": float(lines.mean()),
        "score39_line_mean_se": standard_error(lines),
    }
    return figures if stop_level >= 39 else dict.fromkeys(figures)


def standard_error(sample: np.ndarray) -> float:
    """The standard error of a sample's mean (0 for a single value)."""
    if len(sample) < 2:
        return 0.0
    return float(np.std(sample, ddof=1) / np.sqrt(len(sample)))


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
    specs = [
        GameSpec(evaluator, settings, level, seed, i, stop_level, same_pieces=same_pieces)
        for i in range(games)
    ]
    run = ray_runner(ray, workers) if ray is not None else partial(run_games, workers=workers)
    saved = SavedGames(save_games, run_identity(specs[0])) if save_games else None
    done = dict(saved.done) if saved else {}
    todo = [spec for spec in specs if spec.index not in done]
    started = time.perf_counter()
    try:
        with Progress("simulate", len(todo), "game", enabled=progress) as bar:

            def finished(index: int, result: dict) -> None:
                bar.update(1)
                if saved:
                    saved.add(todo[index].index, result)

            played = run(todo, on_result=finished) if todo else []
    finally:
        if saved:
            saved.close()
    seconds = time.perf_counter() - started
    done |= {spec.index: result for spec, result in zip(todo, played, strict=True)}
    results = [done[i] for i in range(games)]
    summary = summarize(results, seconds, stop_level)
    pieces = sum(result["pieces"] for result in played)
    return replace(summary, pieces_per_s=pieces / max(seconds, 1e-9)), results


def require_matplotlib() -> None:
    """Fail with one sentence, before a long run, if --plot cannot draw."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise NesbotError("--plot needs matplotlib: pip install 'nesbot[plot]'") from None


def plot_scores(results: Iterable[dict], path: str | Path, title: str) -> None:
    """Histogram and CDF of pre-29 scores, meatfighter's median and the cap marked."""
    require_matplotlib()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    scores = np.sort([r["pre29_points"] for r in results])
    figure, (hist, cdf) = plt.subplots(1, 2, figsize=(12, 4.5), constrained_layout=True)
    hist.hist(scores, bins=40, color="#4477aa")
    hist.set_xlabel("points before level 29")
    hist.set_ylabel("games")
    cdf.step(scores, np.arange(1, len(scores) + 1) / len(scores), where="post", color="#4477aa")
    cdf.set_xlabel("points before level 29")
    cdf.set_ylabel("share of games at or below")
    for axis in (hist, cdf):
        axis.axvline(
            MEATFIGHTER_MEDIAN,
            color="#cc6677",
            linestyle="--",
            label=f"meatfighter median {MEATFIGHTER_MEDIAN:,}",
        )
        axis.axvline(ram.SCORE_CAP, color="#228833", linestyle=":", label="999,999 cap")
        axis.xaxis.set_major_formatter(lambda v, _pos: f"{v / 1e6:.1f}M")
    cdf.legend(loc="upper left")
    figure.suptitle(title)
    try:
        figure.savefig(path, dpi=110)
    except OSError as e:
        raise NesbotError(f"cannot write plot {path}: {e.strerror}") from None
    finally:
        plt.close(figure)
