"""nesbot: a bot that plays the real NES Tetris ROM in nes-py through the gamepad.

The public API (docs/api.md): attach the bot to your own nes-py env and step it,

    import nesbot
    from nes_py import NESEnv

    env = NESEnv(str(nesbot.find_rom().path))
    env.reset()
    player = nesbot.attach(env, level=19, seed=0)
    while not player.done:
        env.step(player.action())
    print(player.result())

or build your own loop from `Bot` (a per-frame policy), `PlannerSettings`, the evaluators,
`Game` (the NES-exact simulator) and `VideoWriter`.
"""

import importlib
from typing import TYPE_CHECKING, Any

from nesbot._version import __version__

if TYPE_CHECKING:
    from nesbot._core.game import Game
    from nesbot.bot.planning import PlannerSettings, build_planner
    from nesbot.bot.player import Player, attach
    from nesbot.bot.policy import Bot
    from nesbot.bot.session import GameResult
    from nesbot.errors import NesbotError, NesbotWarning
    from nesbot.evaluation.evaluators import EVALUATORS, Evaluator, get_evaluator
    from nesbot.nes.menus import GameSetup
    from nesbot.nes.rom import Rom, find_rom
    from nesbot.rating import GameRating, PieceRating, Position, rate
    from nesbot.rating.read_screen import read_screen
    from nesbot.rating.reading import ScreenReading
    from nesbot.show.video import VideoWriter

# Each public name and the module it lives in, imported when the name is first used: so that
# `import nesbot` (and every worker process that imports a module of it) loads neither
# nes-py nor OpenCV nor PyAV until something needs them.
_HOMES = {
    "EVALUATORS": "nesbot.evaluation.evaluators",
    "Bot": "nesbot.bot.policy",
    "Evaluator": "nesbot.evaluation.evaluators",
    "Game": "nesbot._core.game",
    "GameRating": "nesbot.rating",
    "GameResult": "nesbot.bot.session",
    "GameSetup": "nesbot.nes.menus",
    "NesbotError": "nesbot.errors",
    "NesbotWarning": "nesbot.errors",
    "PieceRating": "nesbot.rating",
    "PlannerSettings": "nesbot.bot.planning",
    "Player": "nesbot.bot.player",
    "Position": "nesbot.rating",
    "Rom": "nesbot.nes.rom",
    "ScreenReading": "nesbot.rating.reading",
    "VideoWriter": "nesbot.show.video",
    "attach": "nesbot.bot.player",
    "build_planner": "nesbot.bot.planning",
    "find_rom": "nesbot.nes.rom",
    "get_evaluator": "nesbot.evaluation.evaluators",
    "rate": "nesbot.rating",
    "read_screen": "nesbot.rating.read_screen",
}

__all__ = [
    "EVALUATORS",
    "Bot",
    "Evaluator",
    "Game",
    "GameRating",
    "GameResult",
    "GameSetup",
    "NesbotError",
    "NesbotWarning",
    "PieceRating",
    "PlannerSettings",
    "Player",
    "Position",
    "Rom",
    "ScreenReading",
    "VideoWriter",
    "__version__",
    "attach",
    "build_planner",
    "find_rom",
    "get_evaluator",
    "rate",
    "read_screen",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'nesbot' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # once
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
