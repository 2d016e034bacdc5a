"""The planner's determinism fingerprint: a hash of every decision the bot makes in short
simulated games (level 19 unless told).

The bot reads the simulated game through the RAM map as it reads the ROM
(nesbot.bot.simulated_ram), so the decisions and times are the bot's own. The same code gives
the same fingerprint on every machine: tests/test_planner_fingerprints.py pins those of short
runs in each of the planner's modes, and scripts/bench_planner.py prints it with the times.
"""

import hashlib

import numpy as np

from nesbot._core.game import Game
from nesbot._core.whole_games import nes_rng
from nesbot.bot.planning import PlannerSettings
from nesbot.bot.policy import Bot
from nesbot.bot.simulated_ram import run_policy
from nesbot.evaluation.evaluators import Evaluator, get_evaluator


class RecordingBot(Bot):
    """The bot, also hashing every decision and counting the nodes each plan searched."""

    def __init__(
        self, evaluator: Evaluator | None = None, settings: PlannerSettings | None = None
    ) -> None:
        super().__init__(evaluator, settings)
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
    """The first 16 hex digits of the hash of every decision `bot` made."""
    return bot.digest.hexdigest()[:16]
