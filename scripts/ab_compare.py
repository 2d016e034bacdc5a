"""How many pre-29 points weights B make over weights A, measured where they choose
differently (nesbot/lab/ab.py): B plays each game, A plays on from both choices.

    .venv/bin/python scripts/ab_compare.py --a nesbot-reaction18 \\
        --b-weights results/training/reaction18_surface2.json --level 18 --reaction 18 \\
        --games 100 --seed 7000 --workers 2 --out ab.jsonl

One JSON line a game in --out (a run resumes from it); prints the estimate, its standard
error over the games and the playouts' share of that error.
"""

import argparse
import json
import math
from dataclasses import replace
from pathlib import Path

from nesbot.bot.planning import PlannerSettings
from nesbot.evaluation.evaluators import get_evaluator
from nesbot.lab.ab import DEFAULT_HORIZON, DEFAULT_PLAYOUTS, ABGame, ABSpec, run_ab, summarize


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for side in ("a", "b"):
        parser.add_argument(f"--{side}", help="an evaluator's name")
        parser.add_argument(f"--{side}-weights", help="a weights file")
    parser.add_argument("--level", type=int, default=18)
    parser.add_argument("--reaction", type=int, default=18)
    parser.add_argument("--lookahead", type=int, default=1)
    parser.add_argument("--b-premove", type=int, help="B's --premove (A's is 0)")
    parser.add_argument("--b-lookahead", type=int, help="B's --lookahead (A's is --lookahead)")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7000)
    parser.add_argument("--playouts", type=int, default=DEFAULT_PLAYOUTS)
    parser.add_argument("--horizon", type=int, default=DEFAULT_HORIZON)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    a = get_evaluator(args.a, args.a_weights, args.reaction)
    b = get_evaluator(args.b, args.b_weights, args.reaction)
    settings = PlannerSettings(lookahead=args.lookahead, reaction=args.reaction)
    b_settings = replace(
        settings,
        premove=args.b_premove or 0,
        lookahead=args.lookahead if args.b_lookahead is None else args.b_lookahead,
    )
    done: dict[int, ABGame] = {}
    if args.out.exists():
        for row in map(json.loads, args.out.open()):
            done[row.pop("index")] = ABGame(**row)
    specs = [
        ABSpec(
            a,
            b,
            settings,
            args.level,
            args.seed,
            index,
            args.playouts,
            args.horizon,
            b_settings=b_settings,
        )
        for index in range(args.games)
        if index not in done
    ]

    def save(position: int, game: ABGame) -> None:
        done[specs[position].index] = game
        with args.out.open("a") as out:
            out.write(json.dumps({"index": specs[position].index} | vars(game)) + "\n")
        summary = summarize(list(done.values()))
        print(f"game {specs[position].index}: {game.gain:+,.0f}; {summary.text()}", flush=True)

    run_ab(specs, args.workers, save)
    games = [done[i] for i in range(args.games)]
    summary = summarize(games)
    print(summary.text())
    noise = math.sqrt(sum(g.gain_var for g in games)) / len(games)
    print(f"of the error, the playouts' share: ± {noise:,.0f}")


if __name__ == "__main__":
    main()
