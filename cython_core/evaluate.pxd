# The board evaluation: meatfighter's 17 features (meatfighter.com/nintendotetrisai), the
# features the other evaluators need (nesbot/evaluation/evaluators.py names their sources),
# their weighted sum (LOWER is better: a higher-is-better evaluator is stored negated) and
# the ceiling penalty (calming rule 2). The weights are weight_sets.pxd's; the features of
# the column tops alone column_tops.pxd's; the bound on this value bound.pxd's; the
# placement vetoes (rules 3, 4) and the verdicts calming.pxd's.
#
# Features are computed on playfield rows 0..19 only; rows -2 and -1 enter the ceiling
# penalty, blocks_spawn and touches_ceiling, nothing else. Heights count from the floor
# (a cell in row 19 has height 1, a column whose top cell is row r has height 20 - r).
#
# Error contract: everything here but use_surface_table (the thin Python layer, `except -1`)
# is `noexcept nogil`; no such function can fail, and every one only reads the board. Full
# rows are allowed (features stay defined) although the search only evaluates boards after
# their line clears.
from nesbot._core.board cimport BOARD_HIDDEN, FIELD_ROWS, STACK_COLUMNS, Board
from nesbot._core.feature_slots cimport (
    F_COLUMN_HEIGHT_SPREAD,
    F_COLUMN_HEIGHT_VARIANCE,
    F_PILE_HEIGHT,
    F_TOTAL_COLUMN_HEIGHTS,
    F_TOTAL_COLUMN_HOLES,
    Features,
)
from nesbot._core.weight_sets cimport Weights

cdef enum:
    CEILING_ROWS = 7                 # rule 2 penalises filled cells in rows 0..6 (and -2, -1)


# The 15 board features of indices 0..16 into out.f; out.f[F_TOTAL_LINES_CLEARED] and
# out.f[F_TOTAL_LOCK_HEIGHT] are set to 0 (the search knows them, the board does not).
cdef void board_features(const Board* b, Features* out) noexcept nogil

# The board features of indices 17..24 into out.f; out.f[F_LANDING_HEIGHT] is set to 0.
cdef void extra_features(const Board* b, Features* out) noexcept nogil

# The board features of indices 25..30 into out.f, from the board, its column tops and
# the stack's top row (`heights` and `top_row`, as column_tops.column_heights gives
# them; F_HIGH_STACK past `safe_height` rows); out.f[F_BURNED_LINES] is set to 0, and
# out.f[F_SURFACE_VALUE] too without `surface` or until the surface table is loaded
# (load_weights loads it for a nonzero weight).
cdef void nes_features(const Board* b, const int* heights, int top_row, double safe_height,
                       bint surface, Features* out) noexcept nogil

# The right-well features (REACH_FEATURE_END..ALL_FEATURE_COUNT - 1) into out.f, from the
# board, its column tops, the stack's top row (as for nes_features) and w's heights at
# `level`.
cdef void well_features(const Board* b, const int* heights, int top_row, const Weights* w,
                        int level, Features* out) noexcept nogil

# Weighted sum of the features plus the ceiling penalty; lower is better. The caller
# knows the placements: lines cleared, lines burned (cleared by non-Tetris clears), the
# pieces' lock and landing heights, each summed over the placements, and the level the
# pieces after them fall at (the piece-range features' gravity).
cdef double evaluate(const Board* b, int lines_cleared, int burned, int lock_height_total,
                     double landing_height_total, int level, const Weights* w) noexcept nogil

# Rule 2 alone: ceiling_weight / max(r + 1, 1) summed over filled cells of rows -2..6.
cdef double ceiling_penalty(const Board* b, double ceiling_weight) noexcept nogil

# The surface table's value of columns 0-8's tops (heights from the floor); 0 until
# use_surface_table has loaded it. surface_max: its largest value (0 until then).
cdef double surface_value(const int* heights) noexcept nogil
cdef double surface_max() noexcept nogil

# Load the surface table nesbot ships (once); load_weights calls it for a set weighing it.
cdef int use_surface_table() except -1


cdef inline bint is_column_feature(int i) noexcept nogil:
    # The board features column_features computes: the column tops' and the holes'.
    return (i == F_TOTAL_COLUMN_HOLES or i == F_TOTAL_COLUMN_HEIGHTS or i == F_PILE_HEIGHT
            or i == F_COLUMN_HEIGHT_SPREAD or i == F_COLUMN_HEIGHT_VARIANCE)


cdef inline int ready_rows(const Board* b, int well_height) noexcept nogil:
    """The rows just above column 9's top (it is `well_height` rows tall) that are full but
    for it: 4 make it Tetris-ready, the rest wait for another I."""
    cdef int r = FIELD_ROWS - 1 - well_height, ready = 0
    while r >= 0 and b.rows[r + BOARD_HIDDEN] == STACK_COLUMNS:
        ready += 1
        r -= 1
    return ready
