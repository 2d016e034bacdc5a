# cython: language_level=3
"""The calming rules (see calming.pxd): a spawn blocked (rule 3), the field split for good
(rule 4), and the verdicts that rank a placement sequence by them (rule 1's Tetrises first)
before its value (evaluate.pyx; rule 2, the ceiling penalty, is part of the value).
"""

from libc.stdint cimport uint8_t
from libc.string cimport memset

from nesbot._core.board cimport BOARD_HIDDEN, BOARD_ROWS, FIELD_ROWS, FULL_ROW, Board, fits
from nesbot._core.evaluate cimport evaluate
from nesbot._core.pieces cimport NES_CELLS, NES_SPAWN_TABLE
from nesbot._core.rules cimport SPAWN_X, SPAWN_Y
from nesbot._core.weight_sets cimport Weights


cdef enum:
    SPAWN_COLUMNS = 0x070   # columns 4-6 of row 0, where rule 4's fill starts


# The cells of the seven spawned pieces, a mask per board row: a board empty under every
# mask blocks no spawn, which most boards the search judges are.
cdef unsigned int SPAWN_CELLS[BOARD_ROWS]
cdef int SPAWN_TOP = BOARD_ROWS, SPAWN_BOTTOM = 0     # the rows with spawn cells
memset(SPAWN_CELLS, 0, sizeof(SPAWN_CELLS))
for _t in range(7):
    for _k in range(4):
        _r = SPAWN_Y + BOARD_HIDDEN + NES_CELLS[NES_SPAWN_TABLE[_t]][_k][1]
        SPAWN_CELLS[_r] |= 1 << (SPAWN_X + NES_CELLS[NES_SPAWN_TABLE[_t]][_k][0])
        SPAWN_TOP = min(SPAWN_TOP, _r)
        SPAWN_BOTTOM = max(SPAWN_BOTTOM, _r)


cdef bint blocks_spawn(const Board* b) noexcept nogil:
    cdef int t
    cdef unsigned int overlap = 0
    for t in range(SPAWN_TOP, SPAWN_BOTTOM + 1):
        overlap |= b.rows[t] & SPAWN_CELLS[t]
    if not overlap:
        return False
    for t in range(7):
        if not fits(b, NES_SPAWN_TABLE[t], SPAWN_X, SPAWN_Y):
            return True
    return False


cdef bint touches_ceiling(const Board* b) noexcept nogil:
    return (b.rows[0] | b.rows[1] | b.rows[BOARD_HIDDEN] | b.rows[BOARD_HIDDEN + 1]) != 0


cdef inline unsigned int spread_in_row(unsigned int x, unsigned int empty) noexcept nogil:
    """Grow x along the empty runs of one row until it covers each run it touches."""
    cdef unsigned int grown = x
    while True:
        grown = (x | (x << 1) | (x >> 1)) & empty
        if grown == x:
            return x
        x = grown


cdef bint field_split(const Board* b) noexcept nogil:
    cdef unsigned int empty[FIELD_ROWS]
    cdef unsigned int reach[FIELD_ROWS]
    cdef unsigned int x
    cdef int r
    cdef bint changed = True
    for r in range(FIELD_ROWS):
        empty[r] = ~b.rows[r + BOARD_HIDDEN] & FULL_ROW
        reach[r] = 0
    reach[0] = spread_in_row(empty[0] & SPAWN_COLUMNS, empty[0])
    # Alternate downward and upward sweeps: most fills settle in one pair, and a fill that
    # winds back up through an overhang needs one more pair per turn.
    while changed:
        changed = False
        for r in range(1, FIELD_ROWS):
            x = reach[r] | (reach[r - 1] & empty[r])
            if r + 1 < FIELD_ROWS:
                x |= reach[r + 1] & empty[r]
            x = spread_in_row(x, empty[r])
            if x != reach[r]:
                reach[r] = x
                changed = True
        for r in range(FIELD_ROWS - 2, -1, -1):
            x = reach[r] | (reach[r + 1] & empty[r])
            if r > 0:
                x |= reach[r - 1] & empty[r]
            x = spread_in_row(x, empty[r])
            if x != reach[r]:
                reach[r] = x
                changed = True
    for r in range(FIELD_ROWS):
        if empty[r] and (empty[r] & ~reach[r]) == 0:
            return False
    return True


cdef bint next_spawn_blocked(const Board* b, uint8_t next_orientation,
                             const Weights* w) noexcept nogil:
    return w.calming and not fits(b, next_orientation, SPAWN_X, SPAWN_Y)


cdef bint board_vetoed(const Board* b, const Weights* w) noexcept nogil:
    return w.calming and (blocks_spawn(b) or (touches_ceiling(b) and field_split(b)))


cdef Verdict judge_pair(const Board* b, int cleared1, int cleared2, int lock_height_total,
                        double landing_height_total, bint first_vetoed, int level,
                        const Weights* w) noexcept nogil:
    cdef Verdict v
    v.value = evaluate(b, cleared1 + cleared2, burned_lines(cleared1) + burned_lines(cleared2),
                       lock_height_total, landing_height_total, level, w)
    v.rank = RANK_PLAIN
    if w.calming:
        if first_vetoed or board_vetoed(b, w):
            v.rank = RANK_VETOED
        elif cleared1 == 4:
            v.rank = RANK_TETRIS_NOW
        elif cleared2 == 4:
            v.rank = RANK_TETRIS_NEXT
    return v


cdef Verdict judge_one(const Board* b, int cleared, int lock_height, double landing_height,
                       int level, const Weights* w) noexcept nogil:
    cdef Verdict v
    v.value = evaluate(b, cleared, burned_lines(cleared), lock_height, landing_height, level, w)
    v.rank = RANK_PLAIN
    if w.calming:
        if board_vetoed(b, w):
            v.rank = RANK_VETOED
        elif cleared == 4:
            v.rank = RANK_TETRIS_NOW
    return v


cdef Verdict judge_dead_end(const Board* b, int cleared, int lock_height,
                            double landing_height, int level, const Weights* w) noexcept nogil:
    cdef Verdict v
    v.rank = RANK_NO_NEXT
    v.value = evaluate(b, cleared, burned_lines(cleared), lock_height, landing_height, level, w)
    return v
