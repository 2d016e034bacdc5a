"""Type stubs for nesbot._core.whole_games (a Cython extension module)."""

from typing import Any

from nesbot._core.game import Game
from nesbot._core.planner import Planner

def nes_rng(steps: int) -> int: ...
def play(
    planner: Planner,
    game: Game,
    max_frames: int = 10_000_000,
    stop_level: int = 255,
    reaction: int = 0,
    pieces_seed: int = -1,
    max_pieces: int = -1,
) -> dict[str, Any]: ...
