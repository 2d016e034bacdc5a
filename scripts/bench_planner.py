"""Planner speed and determinism: the bot plans every piece of simulated games (level 19
unless told).

The bot reads the simulated game through the RAM map as it reads the ROM
(nesbot.bot.simulated_ram), so the times are the bot's own plans. Prints plan time percentiles
(one core), nodes searched, and a fingerprint of all decisions: the same code gives the same
fingerprint on every machine (nesbot.lab.fingerprint). tests/test_planner_fingerprints.py pins
the fingerprints of short runs in each mode, so a change that means to keep the decisions is
checked to.
"""

import argparse

import numpy as np

from nesbot.cli.options import add_evaluator_options, add_planner_options, planner_settings
from nesbot.lab.fingerprint import fingerprint, play_games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--frames", type=int, default=9000, help="frames per game (9000)")
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--level", type=int, default=19)
    add_planner_options(parser)  # the planner's settings as nesbot play and simulate take them
    add_evaluator_options(parser)
    args = parser.parse_args()

    settings = planner_settings(args)
    bot = play_games(
        settings, args.evaluator, args.games, args.frames, args.level, weights=args.weights
    )
    ms = np.array(bot.plan_seconds) * 1000
    print(f"settings {settings}")
    print(f"pieces planned {len(ms)}")
    print(
        f"plan ms  p50 {np.percentile(ms, 50):.2f}  p99 {np.percentile(ms, 99):.2f}  "
        f"max {ms.max():.2f}"
    )
    print(f"nodes per plan  mean {np.mean(bot.nodes):,.0f}")
    print(f"fingerprint {fingerprint(bot)}")


if __name__ == "__main__":
    main()
