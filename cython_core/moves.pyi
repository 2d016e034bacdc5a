"""Type stubs for nesbot._core.moves (a Cython extension module)."""

from typing import Self

from typing_extensions import disjoint_base

from nesbot._core.game import Game

@disjoint_base
class Searcher:
    def __new__(
        cls,
        tap_interval: int = 2,
        shift_and_rotate: bool = True,
        hold_shift: bool = False,
        soft_drop: bool = False,
        one_button: bool = False,
        capacity: int = ...,
        hold_shortcut: bool = True,
    ) -> Self: ...
    def placements_of(self, game: Game) -> list[tuple[int, int, int, bytes]]: ...
    def plain_placements_of(self, game: Game) -> list[tuple[int, int, int]]: ...
    def plain_paths_of(self, game: Game) -> list[tuple[int, int, int, bytes]]: ...
    @property
    def truncated_last(self) -> bool: ...
    @property
    def nodes_last(self) -> int: ...
