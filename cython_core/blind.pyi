"""Type stubs for nesbot._core.blind (a Cython extension module)."""

from nesbot._core.game import Game
from nesbot._core.planner import Planner

_Plan = tuple[bytes, int, int, int, float]  # pads, x, y, orientation, value

def plan_blind(planner: Planner, game: Game) -> _Plan | None: ...
