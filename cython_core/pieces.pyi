"""Type stubs for nesbot._core.pieces (a Cython extension module)."""

PIECE_NAMES: str
ORIENTATION_CELLS: tuple[tuple[tuple[int, int], ...], ...]
ROTATE_A: tuple[int, ...]
ROTATE_B: tuple[int, ...]
PIECE_TYPE: tuple[int, ...]
SPAWN_TABLE: tuple[int, ...]
SPAWN_ORIENTATION: tuple[int, ...]
FRAMES_PER_ROW: tuple[int, ...]
POINTS: tuple[tuple[int, int], ...]
KILL_SCREEN_LEVEL: int

def frames_per_row(level: int) -> int: ...
def piece_name(orientation: int) -> str: ...
