"""Type stubs for nesbot.show.video.h264 (a Cython extension module)."""

import numpy as np
from typing_extensions import disjoint_base

# Table A-1 rows: level_idc, MaxMBPS, MaxFS, MaxDpbMbs, MaxBR, MaxCPB, MaxVmvR, MinCR,
# MaxMvsPer2Mb.
LEVELS: tuple[tuple[int, int, int, int, int, int, int, int, int], ...]

def worst_access_unit_bytes(macroblocks: int) -> int: ...
def choose_level(width_mbs: int, height_mbs: int, rate: float, refs: int, motion: float) -> int: ...
def log2_max_mv_length(low: int, high: int) -> int: ...

@disjoint_base
class H264Writer:
    width: int
    height: int
    mb_width: int
    mb_height: int
    level: int
    rate: float
    cell: int
    reach_x: int
    reach_up: int
    reach_down: int
    log2_mv_x: int
    log2_mv_y: int
    skipped: int
    moved: int
    predicted: int
    raw: int
    def __init__(self, width: int, height: int, cell: int, rate: float) -> None: ...
    def parameter_sets(self) -> bytes: ...
    def write(
        self,
        y: np.ndarray,
        u: np.ndarray,
        v: np.ndarray,
        dirty: np.ndarray,
        idr: bool,
    ) -> bytes: ...
