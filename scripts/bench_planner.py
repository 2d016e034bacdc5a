"""Planner speed and determinism: plan every piece of simulated level-19 games.

Prints plan time percentiles (two-piece chain, one core), nodes searched, and a fingerprint
of all decisions: the same code gives the same fingerprint on every machine.
"""

import argparse
import hashlib
import time

import numpy as np

from nesbot._core.game import Game
from nesbot.bot import Bot
from nesbot.evaluators import get_evaluator


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pieces", type=int, default=300, help="pieces per game")
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--tap-hz", type=int, default=30)
    parser.add_argument("--evaluator", default="meatfighter-2018")
    args = parser.parse_args()

    planner = Bot(get_evaluator(args.evaluator), args.tap_hz).planner
    digest = hashlib.sha256()
    seconds, nodes = [], []
    for seed in range(1, args.games + 1):
        game = Game.start(19, 0x8988 ^ (seed * 0x1F3D), frame_counter=seed)
        plan, index, was_active, pieces = b"", 0, False, 0
        while not game.topped_out and pieces < args.pieces:
            if game.active and not was_active:
                started = time.perf_counter()
                chosen = planner.plan(game)
                seconds.append(time.perf_counter() - started)
                nodes.append(planner.nodes_searched)
                plan, index = (chosen[0] if chosen else b""), 0
                digest.update(repr(chosen[1:4] if chosen else None).encode())
                pieces += 1
            was_active = game.active
            game.step(plan[index] if game.active and index < len(plan) else 0)
            index += 1
    ms = np.array(seconds) * 1000
    print(f"pieces planned {len(ms)}")
    print(
        f"plan ms  p50 {np.percentile(ms, 50):.2f}  p99 {np.percentile(ms, 99):.2f}  "
        f"max {ms.max():.2f}"
    )
    print(f"nodes per plan  mean {np.mean(nodes):,.0f}")
    print(f"fingerprint {digest.hexdigest()[:16]}")


if __name__ == "__main__":
    main()
