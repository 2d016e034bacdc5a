"""Type stubs for nesbot._core.planner (a Cython extension module)."""

from typing import Any

from typing_extensions import disjoint_base

from nesbot._core.game import Game
from nesbot._core.learned import ValueModel

_Plan = tuple[bytes, int, int, int, float]  # pads, x, y, orientation, value

@disjoint_base
class Planner:
    lookahead: int
    deep_width: int
    deep_branch: int
    kill_deep_width: int
    kill_deep_branch: int
    kill_third_width: int
    kill_third_branch: int
    kill_third_branch2: int
    width: int
    next_width: int
    bound_pruning: bool
    premove: int
    reaction: int
    hedge: bool
    nodes_searched: int
    fallback_last: bool
    truncated_last: bool
    fallbacks: int
    truncations: int
    def __init__(
        self,
        weights: Any,
        tap_interval: int = 2,
        shift_and_rotate: bool = True,
        hold_shift: bool = False,
        soft_drop: bool = False,
        one_button: bool = False,
        second: str = "plain",
        lookahead: int = 0,
        width: int = 8,
        first: str = "search",
    ) -> None: ...
    def plan(self, game: Game) -> _Plan | None: ...
    @property
    def value_model(self) -> ValueModel | None: ...
    @value_model.setter
    def value_model(self, model: ValueModel | None) -> None: ...
    @property
    def next_lock(self) -> tuple[int, int, int] | None: ...

DEFAULT_DEEP_WIDTH: int
DEFAULT_DEEP_BRANCH: int
DEFAULT_KILL_DEEP_WIDTH: int
DEFAULT_KILL_DEEP_BRANCH: int
DEFAULT_KILL_THIRD_BRANCH: int
DEFAULT_KILL_THIRD_BRANCH2: int
DEEP_BRANCH_MAX: int
NEXT_WIDTH_MAX: int
