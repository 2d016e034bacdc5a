"""Type stubs for nesbot._core.learned (a Cython extension module)."""

from typing import Any

import numpy as np
import numpy.typing as npt
from typing_extensions import disjoint_base

from nesbot._core.game import Game

SIZE: int
ACTIVE: int
LAYOUT: tuple[tuple[str, int, tuple[int, ...]], ...]

def game_features(game: Game, goal_level: int = 39) -> npt.NDArray[np.int32]: ...

@disjoint_base
class ValueModel:
    from_level: int
    scale: float
    at_leaves: bool
    goal_level: int
    def __init__(
        self,
        table: Any,
        from_level: int = 29,
        scale: float = 1.0,
        at_leaves: bool = False,
        goal_level: int = 39,
    ) -> None: ...
    def game_value(self, game: Game) -> float: ...
    def table_array(self) -> npt.NDArray[np.float64]: ...
