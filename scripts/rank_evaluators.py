"""Does `nesbot rate` rank players as their results do? Games of the seeds' evaluators are
recorded on the ROM (level 19, 30 Hz, the two-piece chain, as docs/strength.md simulates
them) and rated with nesbot's own evaluator; prints each evaluator's accuracy, points lost
a placement and share graded best or good beside its simulated pre-29 mean, then which
pairs the accuracy tells apart and whether in the means' order.

    .venv/bin/python scripts/rank_evaluators.py --games 6 --seed 1075 --workers 2 \
        --logs rank-logs --out ranks.jsonl

Game k of an evaluator waits (seed + 97 k) % 1000 frames in the level menu (GameSetup's
seed): seeds whose waits lie a few frames apart deal nearly the same pieces, so a set of
seeds is fresh only if its waits are far from those of the sets before it.
"""

import argparse
import itertools
import json
import math
import tempfile
from pathlib import Path

from bench_rate import record

from nesbot.evaluation.evaluators import get_evaluator
from nesbot.nes.fm2 import read_fm2
from nesbot.nes.rom import find_rom
from nesbot.rating.game import rate_log
from nesbot.rating.grades import is_best_or_good, tetris_points_per_placement
from nesbot.rating.rater import RatingSettings

# Pre-29 means on 1,000 simulated games (docs/strength-log.md, "The seeds' evaluators").
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
    parser.add_argument("--logs", type=Path, help="keep the games' logs here (and reuse them)")
    parser.add_argument("--evaluators", nargs="*", default=list(SIMULATED_MEANS))
    args = parser.parse_args()
    if args.logs:
        args.logs.mkdir(parents=True, exist_ok=True)
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
                log = (args.logs or Path(temp)) / f"{name}-{seed}.fm2"
                if not log.exists():
                    part = log.with_suffix(".part")
                    record(rom, part, game)
                    part.rename(log)
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
    figures = {
        name: _figures([r for r in rows if r["evaluator"] == name])
        for name in SIMULATED_MEANS
        if any(r["evaluator"] == name for r in rows)
    }
    header = ("evaluator", "simulated mean", "games", "accuracy", "lost/placement", "best/good")
    print(f"{header[0]:18} {header[1]:>14} {header[2]:>5} {header[3]:>14} {header[4]:>16} "
          f"{header[5]:>14}")  # fmt: skip
    for name, f in figures.items():
        print(
            f"{name:18} {SIMULATED_MEANS[name]:>14,} {f['games']:>5} "
            f"{max(0.0, f['kept']):>8.1%} ± {f['kept_se']:.1%} "
            f"{f['lost']:>7,.0f} ± {f['lost_se']:>5,.0f} {f['share']:>8.1%} ± {f['share_se']:.1%}"
        )
    # Every pair, the better simulated mean first: does the rating tell them apart (the
    # accuracies, unclipped, more than two errors apart), and in that order?
    told = agree = 0
    for better, worse in itertools.combinations(figures, 2):
        gap = figures[better]["kept"] - figures[worse]["kept"]
        error = math.hypot(figures[better]["kept_se"], figures[worse]["kept_se"])
        if abs(gap) > 2 * error:
            told += 1
            agree += gap > 0
        if gap <= 0:
            print(f"  {better} rated at or below {worse}: {gap:+.1%} ± {error:.1%}")
    pairs = len(figures) * (len(figures) - 1) // 2
    print(f"pairs told apart by accuracy: {told} of {pairs}; in the means' order: {agree}")


def _figures(games: list[dict]) -> dict:
    """An evaluator's rated figures over its games. The accuracy's error is the ratio
    estimator's over games (placements within a game are not independent)."""
    n = sum(r["placements"] for r in games)
    lost_of = [sum(r["lost"]) for r in games]
    reference_of = [sum(map(tetris_points_per_placement, r["levels"])) for r in games]
    ratio = sum(lost_of) / sum(reference_of)
    residuals = [lost - ratio * ref for lost, ref in zip(lost_of, reference_of, strict=True)]
    count = len(games)
    spread = math.sqrt(sum(e * e for e in residuals) / (count * (count - 1))) if count > 1 else 0
    lost = sum(r["points_lost"] for r in games) / n
    lost_sd = math.sqrt(max(0.0, sum(r["points_lost_sq"] for r in games) / n - lost**2))
    share = sum(r["best_or_good"] for r in games) / n
    return {
        "games": count,
        "kept": 1 - ratio,  # unclipped: grades.accuracy floors it at 0
        "kept_se": spread / (sum(reference_of) / count),
        "lost": lost,
        "lost_se": lost_sd / math.sqrt(n),
        "share": share,
        "share_se": math.sqrt(share * (1 - share) / n),
    }


if __name__ == "__main__":
    main()
