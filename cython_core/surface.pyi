"""Type stubs for nesbot._core.surface (a Cython extension module)."""

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

def surface_count(columns: int = 9) -> int: ...
def encode(heights: Sequence[int]) -> int: ...
def decode(index: int, columns: int = 9) -> list[int]: ...
def successors(index: int, piece: int, columns: int = 9) -> list[tuple[int, int, int]]: ...
def picker_odds() -> list[list[float]]: ...
def bellman_sweep(
    values: npt.NDArray[np.float32],
    out: npt.NDArray[np.float32],
    odds: npt.NDArray[np.float64],
    discount: float,
    columns: int,
    start: int,
    stop: int,
) -> float: ...
