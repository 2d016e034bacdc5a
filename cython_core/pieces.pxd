# The NES's piece tables (C arrays in nes_tables.h). Orientation IDs $00-$12 are the
# piece-orientation type everywhere, so RAM values need no translation.
cdef extern from "nes_tables.h":
    const int NES_ORIENTATIONS
    const signed char NES_CELLS[19][4][2]        # (dx, dy) per cell; +y is down
    const unsigned char NES_ROTATE_A[19]         # orientation after A (clockwise)
    const unsigned char NES_ROTATE_B[19]         # orientation after B (counter-clockwise)
    const unsigned char NES_PIECE_TYPE[19]       # T J Z O S L I = 0..6
    const unsigned char NES_SPAWN_TABLE[7]       # spawn orientation by type
    const unsigned char NES_SPAWN_ORIENTATION[19]
    const unsigned char NES_FRAMES_PER_ROW[29]   # gravity, levels 0-28
    const unsigned char NES_POINTS[5][2]         # BCD line points (lo, hi)

cdef enum:
    ORIENTATION_HIDDEN = 0x13   # currentPiece during line clears and the curtain

cdef enum:
    LEVEL_ONE_FRAME_ROWS = 29   # from this level on a piece falls a row every frame


cdef inline unsigned char gravity_frames(unsigned char level) noexcept nogil:
    """Gravity: frames per row at `level` (framesPerDropTable covers levels 0-28)."""
    return 1 if level >= LEVEL_ONE_FRAME_ROWS else NES_FRAMES_PER_ROW[level]
