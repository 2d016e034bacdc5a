"""Kill-screen weight sets compared where the format's games meet the kill screen.

Games of the community's format (level 18, an 18-frame reaction) are played to level 29
(or `--arrive-level`, to judge an approach that takes over before it) once with
`--evaluator` (no kill_screen set), the pieces drawn from the game's seed (`simulate
--same-pieces`), and the states they reach that level in are kept (`--cache`). That
evaluator and each kill_screen set (its weights changed from level 29 on, or its
from_level) then play every one of those states on to level 39 with the same pieces, so
the differences are paired. Prints, per set: games reaching level 39, the line clears'
points from there to level 39 or the top-out (BetaTetris's count), the paired difference
± one standard error, and the lines played from there with their Tetris share.

    .venv/bin/python scripts/strength/from_level_29.py --games 200 --seed 7000 \\
        --set 'low6={"high_stack": 10, "safe_stack_height": 6}'

A set's "planner" key changes the planner's settings for its row (PlannerSettings fields,
e.g. {"kill_screen_deep_width": 8}; its "reaction" also sets the frames the next piece is
hidden from there on, to measure what the reaction costs); `--against NAME` takes the
differences against that row instead of the evaluator's.
"""

import argparse
import dataclasses
import json
from pathlib import Path

import numpy as np

from nesbot._core.game import Game
from nesbot._core.pieces import KILL_SCREEN_LEVEL
from nesbot._core.whole_games import play
from nesbot.bot.planning import PlannerSettings
from nesbot.errors import NesbotError
from nesbot.evaluation.evaluators import Evaluator, get_evaluator
from nesbot.lab.game_runs import MAX_FRAMES, GameSpec, pieces_seed_of, planner_for, start_game
from nesbot.lab.statistics import standard_error
from nesbot.lab.workers import map_indexed
from nesbot.nes.ram import bcd_value

START_LEVEL = 18
REACTION = 18
LEVEL_39 = 39


def arrive(job: tuple[Evaluator, PlannerSettings, int, int, int]) -> dict | None:
    """Game `index` of `seed` played to `arrive_level`: its state then, or None if it topped
    out."""
    evaluator, settings, seed, index, arrive_level = job
    spec = GameSpec(evaluator, settings, START_LEVEL, seed, index, arrive_level, same_pieces=True)
    game, pieces_seed = start_game(spec)
    planner = planner_for(evaluator, settings)
    result = play(planner, game, MAX_FRAMES, arrive_level, REACTION, pieces_seed)
    if result["topped_out"] or result["level"] < arrive_level:
        return None
    return game.state()


def play_on(job: tuple[Evaluator, PlannerSettings, int, int, dict]) -> dict:
    """A kept state played on to level 39 (or the top-out) with the same pieces."""
    evaluator, settings, seed, index, state = job
    lines_before = bcd_value(*state["lines"])
    result = play(
        planner_for(evaluator, settings),
        Game.from_state(state),
        MAX_FRAMES,
        LEVEL_39,
        settings.reaction,
        pieces_seed_of(seed, index),
    )
    at_39 = result["line_points_at_39"]
    return {
        "reached_39": at_39 is not None,
        "points": at_39 if at_39 is not None else result["line_points"],
        "lines": result["lines"] - lines_before,
        "tetrises": result["tetrises"],
    }


def states_path(
    cache: Path, base: Evaluator, tap_hz: int, seed: int, games: int, arrive_level: int
) -> Path:
    """Where level_states keeps the states of `games` games of `seed` with `base`."""
    level_tag = "" if arrive_level == KILL_SCREEN_LEVEL else f"-level{arrive_level}"
    return cache / f"states-{base.name}-{tap_hz}hz-{seed}-{games}{level_tag}.json"


def level_states(
    base: Evaluator,
    settings: PlannerSettings,
    seed: int,
    games: int,
    arrive_level: int,
    cache: Path,
    workers: int,
) -> list[dict | None]:
    """The states games 0 to `games` - 1 of `seed` reach `arrive_level` in with `base` (None
    for a game that tops out before it), played once and kept in `cache`."""
    cache.mkdir(parents=True, exist_ok=True)
    states_file = states_path(cache, base, settings.tap_hz, seed, games, arrive_level)
    if not states_file.exists():
        jobs = [(base, settings, seed, i, arrive_level) for i in range(games)]
        states: list[dict | None] = [None] * games
        for i, state in map_indexed(arrive, jobs, workers):
            states[i] = state
        states_file.write_text(json.dumps(states))
    return json.loads(states_file.read_text())


def with_kill_screen(base: Evaluator, name: str, change: dict[str, float]) -> Evaluator:
    """`base` with a kill_screen set: its own weights, changed by `change` (which may set
    safe_stack_height and from_level), played at every tap rate (without base's sets for
    slower taps, which would take its place there)."""
    kill = dict(base.weights) | {"safe_stack_height": base.safe_stack_height} | change
    return dataclasses.replace(base, name=name, kill_screen=kill, kill_screen_by_tap_hz={})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7000)
    parser.add_argument("--tap-hz", type=int, default=30)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--evaluator",
        default="nesbot-rightwell-safe",
        help="plays to level 29, and from there as the row the sets are compared with "
        "(nesbot-rightwell-safe: no kill_screen set)",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=JSON",
        help="a kill_screen set: weights (and safe_stack_height, from_level) changed from "
        "the evaluator's",
    )
    parser.add_argument("--against", metavar="NAME", help="the row differences are taken from")
    parser.add_argument("--cache", type=Path, default=Path("from_level_29"))
    parser.add_argument(
        "--arrive-level",
        type=int,
        default=KILL_SCREEN_LEVEL,
        help="the level the states are kept at (29; earlier to judge a from_level)",
    )
    args = parser.parse_args()

    settings = PlannerSettings(reaction=REACTION, tap_hz=args.tap_hz)
    base = get_evaluator(args.evaluator, reaction=REACTION)
    rows = {base.name: (base, settings)}
    for item in args.set:
        name, _, text = item.partition("=")
        try:
            change = json.loads(text)
            planner = settings.changed(**change.pop("planner", {}))
        except (json.JSONDecodeError, TypeError, NesbotError) as error:
            parser.error(f"--set {item}: {error}")
        evaluator = with_kill_screen(base, name, change) if change else base
        rows[name] = (evaluator, planner)
    against = args.against or base.name
    if against not in rows:
        parser.error(f"--against {against}: no such row")

    states = level_states(
        base, settings, args.seed, args.games, args.arrive_level, args.cache, args.workers
    )
    arrived = [i for i, state in enumerate(states) if state is not None]
    print(
        f"{len(arrived)} of {args.games} games reach level {args.arrive_level} "
        f"(tap rate {args.tap_hz} Hz)"
    )

    outcomes: dict[str, list[dict]] = {}
    for name, (evaluator, planner) in rows.items():
        jobs = [(evaluator, planner, args.seed, i, states[i]) for i in arrived]
        results: list[dict] = [{}] * len(jobs)
        for k, result in map_indexed(play_on, jobs, args.workers):
            results[k] = result
        outcomes[name] = results

    base_points = np.array([r["points"] for r in outcomes[against]], float)
    for name, results in outcomes.items():
        points = np.array([r["points"] for r in results], float)
        difference = points - base_points
        se = standard_error(difference)
        reach = np.mean([r["reached_39"] for r in results])
        lines = sum(r["lines"] for r in results)
        tetris_share = 4 * sum(r["tetrises"] for r in results) / max(lines, 1)
        print(
            f"{name:22} reach 39 {reach:6.1%}  points to 39 {points.mean():9,.0f}  "
            f"difference {difference.mean():+9,.0f} ± {se:7,.0f}  "
            f"lines {lines / len(results):5.1f}  Tetris share {tetris_share:.0%}"
        )


if __name__ == "__main__":
    main()
