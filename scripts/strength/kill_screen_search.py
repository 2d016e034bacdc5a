"""A joint search of a kill_screen set's weights from the states games meet level 29 in
(docs/strength-log.md, "A joint search of the kill screen's set").

CMA-ES over log-scale factors on the set's weights (--start, relative to --evaluator's: a
candidate's weight is the start's times e^x), each candidate played from every cached
level-29 state of scripts/strength/from_level_29.py (the same --games, --seed and
--evaluator; run it first to cache them) on to level 39 with the same pieces. The fitness
is the line clears' points a state to level 39 or the top-out. The first candidate is the
start itself, so every other one compares paired with it.

The log (JSON lines, a candidate each) is the checkpoint: run again with the same options,
the search replays the log's generations (the same seed asks the same candidates) and goes
on from there.

    .venv/bin/python scripts/strength/kill_screen_search.py --generations 4 \\
        --log kill_search.jsonl
"""

import argparse
import json
from pathlib import Path

import cma
import numpy as np
from from_level_29 import REACTION, play_on, states_path, with_kill_screen

from nesbot._core.features import ALL_FEATURE_NAMES
from nesbot._core.pieces import KILL_SCREEN_LEVEL
from nesbot.bot.planning import PlannerSettings
from nesbot.evaluation.evaluators import get_evaluator
from nesbot.lab.statistics import standard_error
from nesbot.lab.workers import map_indexed

# The weights the search moves, from nesbot-rightwell-bold's 30 Hz kill_screen set (given
# as changes to --evaluator's weights: nesbot-rightwell-rollout's are its fitted nine).
MOVED = (
    "high_stack",
    "stack_height_over",
    "burned_lines",
    "total_lines_cleared",
    "surface_value",
    "well_tetris_ready",
    "unreachable_columns",
    "burns_needed",
)
SHIPPED = get_evaluator("nesbot-rightwell-bold", reaction=REACTION).at_tap_hz(30)
SHIPPED_KILL_SCREEN = dict(zip(ALL_FEATURE_NAMES, SHIPPED.kill_screen_vector(), strict=True))


def change_of(start: dict[str, float], x: np.ndarray, safe_stack_height: int) -> dict:
    factors = np.exp(x)
    scaled = {
        name: round(w * float(f), 4) for (name, w), f in zip(start.items(), factors, strict=True)
    }
    return scaled | {"safe_stack_height": safe_stack_height}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7000)
    parser.add_argument("--evaluator", default="nesbot-rightwell-rollout")
    parser.add_argument("--cache", type=Path, default=Path("from_level_29"))
    parser.add_argument(
        "--start",
        type=json.loads,
        default={name: SHIPPED_KILL_SCREEN[name] for name in MOVED},
        help="JSON: the weights moved and where from (nesbot-rightwell-bold's at 30 Hz)",
    )
    parser.add_argument(
        "--safe-stack-height", type=int, default=int(SHIPPED.kill_screen_safe_stack_height)
    )
    parser.add_argument("--generations", type=int, default=4)
    parser.add_argument("--popsize", type=int, default=8)
    parser.add_argument("--sigma", type=float, default=0.35)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--log", type=Path, required=True)
    args = parser.parse_args()

    base = get_evaluator(args.evaluator, reaction=REACTION)
    states_file = states_path(args.cache, base, 30, args.seed, args.games, KILL_SCREEN_LEVEL)
    if not states_file.exists():
        parser.error(f"{states_file}: cache the states with from_level_29.py first")
    states = json.loads(states_file.read_text())
    arrived = [i for i, state in enumerate(states) if state is not None]
    settings = PlannerSettings(reaction=REACTION)
    es = cma.CMAEvolutionStrategy(
        [0.0] * len(args.start),
        args.sigma,
        {"popsize": args.popsize, "bounds": [-1.6, 1.6], "seed": 41, "verbose": -9},
    )
    logged = (
        [json.loads(line) for line in args.log.read_text().splitlines()]
        if args.log.exists()
        else []
    )
    start_points = None
    while es.countiter < args.generations:
        xs = es.ask()
        if es.countiter == 0:
            xs[0] = np.zeros(len(args.start))
        done = logged[es.countiter * args.popsize : (es.countiter + 1) * args.popsize]
        if len(done) == len(xs):  # replayed from the log
            assert np.allclose([d["x"] for d in done], xs), "the log is of other options"
            points = np.array([d["points"] for d in done])
        else:
            changes = [change_of(args.start, x, args.safe_stack_height) for x in xs]
            evaluators = [with_kill_screen(base, f"c{k}", c) for k, c in enumerate(changes)]
            jobs = [(e, settings, args.seed, i, states[i]) for e in evaluators for i in arrived]
            points = np.zeros((len(xs), len(arrived)))
            for j, result in map_indexed(play_on, jobs, args.workers):
                points[divmod(j, len(arrived))] = result["points"]
            with args.log.open("a") as log:
                for x, change, p in zip(xs, changes, points, strict=True):
                    record = {"generation": es.countiter + 1, "x": list(x), "change": change}
                    log.write(json.dumps(record | {"points": p.tolist()}) + "\n")
        es.tell(xs, [-p.mean() for p in points])
        if start_points is None:
            start_points = points[0]
        for x, p in zip(xs, points, strict=True):
            difference = p - start_points
            se = standard_error(difference)
            print(
                f"generation {es.countiter}  points to 39 {p.mean():9,.0f}  "
                f"against the start {difference.mean():+8,.0f} ± {se:6,.0f}  "
                + " ".join(f"{v:+.2f}" for v in x),
                flush=True,
            )
    mean = change_of(args.start, es.mean, args.safe_stack_height)
    print(f"the search's mean after {es.countiter} generations: {json.dumps(mean)}")


if __name__ == "__main__":
    main()
