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

from typing import TYPE_CHECKING, Any

from nesbot._core.game import Game
from nesbot.bot import Bot
from nesbot.errors import NesbotError, NesbotWarning
from nesbot.evaluators import EVALUATORS, Evaluator, get_evaluator
from nesbot.menus import GameSetup
from nesbot.planning import PlannerSettings, build_planner
from nesbot.play import GameResult
from nesbot.player import Player, attach
from nesbot.rating import GameRating, PieceRating, Position, rate
from nesbot.rom import Rom, find_rom

if TYPE_CHECKING:
    from nesbot.video import VideoWriter

__version__ = "0.1.0"

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
    "VideoWriter",
    "__version__",
    "attach",
    "build_planner",
    "find_rom",
    "get_evaluator",
    "rate",
]


def __getattr__(name: str) -> Any:
    # The video writer brings PyAV and OpenCV, which a loop without video does not need.
    if name == "VideoWriter":
        from nesbot.video import VideoWriter

        return VideoWriter
    raise AttributeError(f"module 'nesbot' has no attribute {name!r}")
