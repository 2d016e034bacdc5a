# Board: the playfield as one 10-bit row mask per row. All bit-twiddling lives here.
#
# Layout: rows[r + BOARD_HIDDEN] is playfield row r, r = -2 .. 19, row 0 at the top as on
# the NES; bit c (value 1 << c) is column c, column 0 on the left. Rows -2 and -1 are the
# cells above the field that the ROM keeps in $04EC-$04FF
# (docs/mechanics.md#playfield-and-collision): pieces may move and lock there, they count
# in collisions, and ordinary line clears never touch them.
# Invariant: only bits 0-9 of a row are ever set.
from libc.stdint cimport uint16_t
from nesbot._core.pieces cimport NES_CELLS

cdef extern from *:
    # The index of the lowest set bit (x must not be 0): a row's first filled column.
    int lowest_bit "__builtin_ctz"(unsigned int x) noexcept nogil

cdef extern from *:
    """
    /* Bits set in each 11-bit mask (a row, or a row with a wall bit at each end), from a
       table the compiler writes: __builtin_popcount is a libgcc call unless the build
       targets a CPU with POPCNT, and setup.py builds for the generic x86-64 baseline. */
    #define NESBOT_BITS2(n) n, n + 1, n + 1, n + 2
    #define NESBOT_BITS4(n) NESBOT_BITS2(n), NESBOT_BITS2(n + 1), NESBOT_BITS2(n + 1), \
        NESBOT_BITS2(n + 2)
    #define NESBOT_BITS6(n) NESBOT_BITS4(n), NESBOT_BITS4(n + 1), NESBOT_BITS4(n + 1), \
        NESBOT_BITS4(n + 2)
    #define NESBOT_BITS8(n) NESBOT_BITS6(n), NESBOT_BITS6(n + 1), NESBOT_BITS6(n + 1), \
        NESBOT_BITS6(n + 2)
    #define NESBOT_BITS10(n) NESBOT_BITS8(n), NESBOT_BITS8(n + 1), NESBOT_BITS8(n + 1), \
        NESBOT_BITS8(n + 2)
    static inline int nesbot_popcount11(unsigned int m) {
        static const unsigned char bits[2048] = {NESBOT_BITS10(0), NESBOT_BITS10(1)};
        return bits[m];
    }
    """
    # The set bits of m; m must be below 2 ** 11 (WALLED_ROW_BITS).
    int popcount "nesbot_popcount11"(unsigned int m) noexcept nogil

cdef enum:
    BOARD_HIDDEN = 2        # rows above row 0 that the ROM can address
    BOARD_ROWS = 22         # rows -2 .. 19
    FIELD_ROWS = 20
    FULL_ROW = 0x3FF
    WIDTH = 10              # columns 0-9
    STACK_COLUMNS = 0x1FF   # columns 0-8: the stack beside the well (column 9)
    WALLED_ROW_BITS = 0x7FF  # 11 neighbour pairs of a row with a wall bit at each end

ctypedef struct Board:
    uint16_t rows[22]       # see the layout above


cdef inline bint fits(const Board* b, int orientation, int x, int y) noexcept nogil:
    """The ROM's isPositionValid: every cell in columns 0-9, rows -2..19, and empty."""
    cdef int k, cx, cy
    for k in range(4):
        cx = x + NES_CELLS[orientation][k][0]
        cy = y + NES_CELLS[orientation][k][1]
        if <unsigned int>cx >= 10 or <unsigned int>(cy + BOARD_HIDDEN) >= BOARD_ROWS:
            return False
        if b.rows[cy + BOARD_HIDDEN] & (1 << cx):
            return False
    return True


cdef inline void place(Board* b, int orientation, int x, int y) noexcept nogil:
    """Write the piece's cells (the position must fit)."""
    cdef int k
    for k in range(4):
        b.rows[y + NES_CELLS[orientation][k][1] + BOARD_HIDDEN] |= (
            1 << (x + NES_CELLS[orientation][k][0]))


cdef inline bint row_full(const Board* b, int row) noexcept nogil:
    """Row 0-19 has no empty cell. Row 20 (below the field in the ROM's page) is never full."""
    return row < FIELD_ROWS and b.rows[row + BOARD_HIDDEN] == FULL_ROW


cdef inline void clear_row(Board* b, int row) noexcept nogil:
    """The ROM's row clear: rows above `row` move down one, row 0 becomes empty.

    Clearing row 0 is special in the ROM: its move loop starts one byte before the row,
    which wraps to the end of the playfield page, so the whole page moves down a row (rows
    0-19 to 1-20, the row lost below the field; row -2 to row -1). Row -2 is then refilled
    from page bytes no game writes, which are empty.
    """
    cdef int r
    if row == 0:
        for r in range(BOARD_ROWS - 1, 0, -1):
            b.rows[r] = b.rows[r - 1]
        b.rows[0] = 0
    else:
        for r in range(row + BOARD_HIDDEN, BOARD_HIDDEN, -1):
            b.rows[r] = b.rows[r - 1]
    b.rows[BOARD_HIDDEN] = 0


cdef inline bint has_tuck_spot(const Board* b) noexcept nogil:
    """Some empty cell under a filled one (covered) has an empty cell beside it that is
    open to the sky. Only there can a piece go where falling straight down does not take
    it: a piece that enters covered cells by a shift moves in from such a neighbour, and
    one that turns into them keeps a cell beside them (a piece is connected, and an open
    cell never lies right above or below a covered one). Left out: turning wholly into a
    pocket walled off at its sides."""
    cdef unsigned int covered = 0, empty, open_, hidden
    cdef int r
    for r in range(BOARD_ROWS):
        empty = ~b.rows[r] & FULL_ROW
        open_ = empty & ~covered
        hidden = empty & covered
        if hidden & ((open_ << 1) | (open_ >> 1)):
            return True
        covered |= b.rows[r]
    return False
