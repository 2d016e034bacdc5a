# The pruning bound: a lower bound on evaluate() from a board's column tops and cell counts
# alone, which a placement that clears no line changes in a few columns: the lookahead
# skips the placements whose bound is no better than the best it has (planner.pyx), and
# decides as if it had evaluated them.
#
# Error contract: everything here is `noexcept nogil`; no function can fail, and every
# function only reads the board.
from nesbot._core.board cimport Board
from nesbot._core.weight_sets cimport Weights

ctypedef struct Tops:
    int heights[10]                  # column tops, rows from the floor (rows 0-19)
    int cells                        # filled cells in rows 0-19
    int stack_cells                  # of them, in columns 0-8

cdef void board_tops(const Board* b, Tops* out) noexcept nogil

# The tops after the piece (orientation, x, y) locks on b, whose tops are `before`; False
# (out unset) if it completes a row or has a cell in the hidden rows (no bound for those).
cdef bint tops_after(const Board* b, const Tops* before, int orientation, int x, int y,
                     Tops* out) noexcept nogil

# No more than evaluate() of any board with these tops and sums (-INFINITY when the set at
# `level` has no finite bound), with the surface table's value at its least.
cdef double value_bound(const Tops* t, int lines_cleared, int burned, int lock_height_total,
                        double landing_height_total, int level,
                        const Weights* w) noexcept nogil

# What the surface table's value of these tops adds to value_bound's (0 or more; 0 when
# the set at `level` does not weigh it).
cdef double surface_rise(const Tops* t, int level, const Weights* w) noexcept nogil
