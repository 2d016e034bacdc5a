"""Planner speed and determinism: the bot plans every piece of simulated games (level 19
unless told).

The bot reads the simulated game through the RAM map as it reads the ROM
(nesbot.bot.simulated_ram), so the times are the bot's own plans. Prints plan time percentiles
(one core), nodes searched, and a fingerprint of all decisions: the same code gives the same
fingerprint on every machine. tests/test_planner_fingerprints.py pins the fingerprints of
short runs in each mode, so a change that means to keep the decisions is checked to.
"""

import argparse
import hashlib

import numpy as np

from nesbot._core.game import Game
from nesbot._core.simulate import nes_rng
from nesbot.bot.planning import PlannerSettings
from nesbot.bot.policy import Bot
from nesbot.bot.simulated_ram import run_policy
from nesbot.cli.options import add_evaluator_options, add_planner_options, planner_settings
from nesbot.evaluation.evaluators import get_evaluator


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


def play_games(
    settings: PlannerSettings,
    evaluator: str | None,
    games: int,
    frames: int,
    level: int = 19,
    weights: str | None = None,
) -> RecordingBot:
    """The bot after planning every piece of `games` simulated games of `frames` frames
    (with the evaluator named, or the weights file, or the format's default)."""
    bot = RecordingBot(get_evaluator(evaluator, weights, reaction=settings.reaction), settings)
    for seed in range(1, games + 1):
        run_policy(bot, Game.start(level, nes_rng(seed * 977), seed, seed), frames)
    return bot


def fingerprint(bot: RecordingBot) -> str:
    return bot.digest.hexdigest()[:16]


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
