"""The NES piece tables, readable from Python (tests, oracles, the RAM decoder)."""

PIECE_NAMES = "TJZOSLI"

ORIENTATION_CELLS = tuple(
    tuple((NES_CELLS[o][k][0], NES_CELLS[o][k][1]) for k in range(4)) for o in range(19)
)
ROTATE_A = tuple(NES_ROTATE_A[o] for o in range(19))
ROTATE_B = tuple(NES_ROTATE_B[o] for o in range(19))
PIECE_TYPE = tuple(NES_PIECE_TYPE[o] for o in range(19))
SPAWN_TABLE = tuple(NES_SPAWN_TABLE[t] for t in range(7))
SPAWN_ORIENTATION = tuple(NES_SPAWN_ORIENTATION[o] for o in range(19))
FRAMES_PER_ROW = tuple(NES_FRAMES_PER_ROW[level] for level in range(29))
POINTS = tuple((NES_POINTS[n][0], NES_POINTS[n][1]) for n in range(5))


KILL_SCREEN_LEVEL = LEVEL_ONE_FRAME_ROWS  # 1 frame per row from here: "level 29"


def frames_per_row(int level) -> int:
    """Gravity: frames per row at a level (1 from level 29 on)."""
    return gravity_frames(<unsigned char>level)


def piece_name(int orientation) -> str:
    """'T', 'J', ... for an orientation ID."""
    return PIECE_NAMES[NES_PIECE_TYPE[orientation]]
