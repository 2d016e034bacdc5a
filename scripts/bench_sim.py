"""Simulator speed: random button bytes stepped through the C loop on one core.

Prints frames per second and pieces per second, and a fingerprint of the final state so
that the same code gives the same numbers of pieces and games on every machine.
"""

import argparse
import hashlib
import json
import time

from nesbot._core.game import Game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--frames", type=int, default=50_000_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--level", type=int, default=19)
    args = parser.parse_args()

    game = Game.start(args.level, 0x8988)
    started = time.perf_counter()
    frames, pieces, games = game.run_random(args.frames, args.seed, args.level)
    seconds = time.perf_counter() - started
    fingerprint = hashlib.sha256(json.dumps(game.state(), sort_keys=True).encode()).hexdigest()
    print(f"frames/s   {frames / seconds:,.0f}")
    print(f"pieces/s   {pieces / seconds:,.0f}")
    print(f"frames {frames:,}  pieces {pieces:,}  games {games:,}  in {seconds:.2f} s")
    print(f"fingerprint {fingerprint[:16]}")


if __name__ == "__main__":
    main()
