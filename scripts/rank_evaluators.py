"""Does `nesbot rate` rank players as their results do? Games of the seeds' evaluators are
recorded on the ROM (level 19, 30 Hz, the two-piece chain, as docs/strength.md simulates
them) and rated with nesbot's own evaluator; prints each evaluator's accuracy, points lost
a placement and share graded best or good beside its simulated pre-29 mean.

    .venv/bin/python scripts/rank_evaluators.py --games 6 --seed 1050 --out ranks.jsonl

Game k of an evaluator waits (seed + 97 k) % 1000 frames in the level menu (GameSetup's
seed): seeds whose waits lie a few frames apart deal nearly the same pieces, so a set of
seeds is fresh only if its waits are far from those of the sets before it.
"""

import argparse
import json
import math
import tempfile
from pathlib import Path

from bench_rate import record

from nesbot.evaluators import get_evaluator
from nesbot.fm2 import read_fm2
from nesbot.rating.game import rate_log
from nesbot.rating.grades import accuracy, is_best_or_good, tetris_points_per_placement
from nesbot.rating.rater import RatingSettings
from nesbot.rom import find_rom

# Pre-29 means on 1,000 simulated games (docs/strength.md, "The seeds' evaluators").
SIMULATED_MEANS = {
    "nesbot-trained": 885_878,
    "meatfighter-2018": 858_153,
    "nguyen-morua": 263_320,
    "yiyuan-lee": 227_479,
    "el-tetris": 222_279,
    "meatfighter-2014": 219_717,
    "hidamari": 75_122,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rom")
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--pieces", type=int, default=300)
    parser.add_argument("--seed", type=int, default=100)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", type=Path, required=True, help="one JSON line per game")
    parser.add_argument("--evaluators", nargs="*", default=list(SIMULATED_MEANS))
    args = parser.parse_args()
    rom = find_rom(args.rom)
    judge = RatingSettings(get_evaluator("nesbot-trained"))
    done = set()
    if args.out.exists():
        done = {(r["evaluator"], r["seed"]) for r in map(json.loads, args.out.open())}
    for name in args.evaluators:
        # Seeds far apart: nearby seeds start the game a frame or two apart, from nearly the
        # same RNG state, and so deal nearly the same pieces.
        for seed in range(args.seed, args.seed + 97 * args.games, 97):
            if (name, seed) in done:
                continue
            game = argparse.Namespace(
                pieces=args.pieces,
                level=19,
                seed=seed,
                evaluator=name,
                tap_hz=30,
                lookahead=0,
                align=True,  # where the bot plays as simulated, without desyncs
            )
            with tempfile.TemporaryDirectory() as temp:
                log = Path(temp) / "game.fm2"
                record(rom, log, game)
                rating = rate_log(rom, read_fm2(log), judge, workers=args.workers)
            lost = [r.points_lost or 0.0 for r in rating.ratings]
            row = {
                "evaluator": name,
                "seed": seed,
                "placements": len(lost),
                "best_or_good": sum(is_best_or_good(r.grade) for r in rating.ratings),
                "points_lost": sum(lost),
                "points_lost_sq": sum(x * x for x in lost),
                "lost": [round(x) for x in lost],
                "levels": [r.level for r in rating.ratings],
            }
            with args.out.open("a") as out:
                out.write(json.dumps(row) + "\n")
            print(json.dumps(row), flush=True)
    latest = {(r["evaluator"], r["seed"]): r for r in map(json.loads, args.out.open())}
    rows = list(latest.values())
    header = ("evaluator", "simulated mean", "games", "accuracy", "lost/placement", "best/good")
    print(f"{header[0]:18} {header[1]:>14} {header[2]:>5} {header[3]:>14} {header[4]:>16} "
          f"{header[5]:>14}")  # fmt: skip
    for name, mean in SIMULATED_MEANS.items():
        mine = [r for r in rows if r["evaluator"] == name]
        if not mine:
            continue
        n = sum(r["placements"] for r in mine)
        levels = [level for r in mine for level in r["levels"]]
        kept = accuracy(zip([x for r in mine for x in r["lost"]], levels, strict=True))
        lost = sum(r["points_lost"] for r in mine) / n
        lost_se = math.sqrt(max(0.0, sum(r["points_lost_sq"] for r in mine) / n - lost**2) / n)
        # accuracy is 1 - lost / reference: its error is the mean loss's, on that scale
        kept_se = lost_se * n / sum(map(tetris_points_per_placement, levels))
        share = sum(r["best_or_good"] for r in mine) / n
        share_se = math.sqrt(share * (1 - share) / n)
        print(
            f"{name:18} {mean:>14,} {len(mine):>5} {kept:>8.1%} ± {kept_se:.1%}"
            f" {lost:>7,.0f} ± {lost_se:>5,.0f} {share:>8.1%} ± {share_se:.1%}"
        )


if __name__ == "__main__":
    main()
