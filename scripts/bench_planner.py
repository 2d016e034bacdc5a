"""Planner speed and determinism: the bot plans every piece of simulated level-19 games.

The bot reads the simulated game through the RAM map as it reads the ROM
(nesbot.simulated_ram), so the times are the bot's own plans. Prints plan time percentiles
(one core), nodes searched, and a fingerprint of all decisions: the same code gives the same
fingerprint on every machine.
"""

import argparse
import hashlib

import numpy as np

from nesbot._core.game import Game
from nesbot._core.simulate import nes_rng
from nesbot.bot import Bot
from nesbot.evaluators import get_evaluator
from nesbot.planning import DEFAULT_LOOKAHEAD, PlannerSettings
from nesbot.simulated_ram import run_policy


class RecordingBot(Bot):
    """The bot, also hashing every decision and counting the nodes each plan searched."""

    def __init__(self, *args: object) -> None:
        super().__init__(*args)
        self.digest = hashlib.sha256()
        self.nodes: list[int] = []

    def _replan(self, memory: np.ndarray, blind: bool = False) -> None:
        super()._replan(memory, blind)
        self.digest.update(repr(self.planned_lock).encode())
        self.nodes.append(self.planner.nodes_searched)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--frames", type=int, default=9000, help="frames per game (9000)")
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--tap-hz", type=int, default=30)
    parser.add_argument("--lookahead", type=int, default=DEFAULT_LOOKAHEAD)
    parser.add_argument("--reaction", type=int, default=0)
    parser.add_argument("--next-search", default="plain")
    parser.add_argument("--premove", type=int, default=0)
    parser.add_argument(
        "--hedge", action=argparse.BooleanOptionalAction, default=True, help="with --reaction"
    )
    parser.add_argument("--evaluator", default=None, help="default: the default evaluator")
    args = parser.parse_args()

    settings = PlannerSettings(
        args.tap_hz,
        args.lookahead,
        args.reaction,
        args.next_search,
        premove=args.premove,
        hedge=args.hedge,
    )
    bot = RecordingBot(get_evaluator(args.evaluator, reaction=args.reaction), settings)
    for seed in range(1, args.games + 1):
        run_policy(bot, Game.start(19, nes_rng(seed * 977), seed, seed), args.frames)
    ms = np.array(bot.plan_seconds) * 1000
    print(f"settings {settings}")
    print(f"pieces planned {len(ms)}")
    print(
        f"plan ms  p50 {np.percentile(ms, 50):.2f}  p99 {np.percentile(ms, 99):.2f}  "
        f"max {ms.max():.2f}"
    )
    print(f"nodes per plan  mean {np.mean(bot.nodes):,.0f}")
    print(f"fingerprint {bot.digest.hexdigest()[:16]}")


if __name__ == "__main__":
    main()
