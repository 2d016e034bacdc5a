# cython: language_level=3
"""The value of a board (see evaluate.pxd): meatfighter's 17 features and the other seeds'
features, weighted and summed; lower is better. The weights come from weight_sets, the
pruning bound on this value is bound.pyx's, the calming rules' verdicts calming.pyx's.

Definitions that the source leaves open, as implemented here:

- Deep wells count wells, not cells, and a well is the set of well cells of one column:
  meatfighter's article says a column's well cells need not be contiguous (gaps in the well's
  walls interrupt them), and "number of wells containing three or more well cells" counts
  wells. So F_TOTAL_DEEP_WELLS is the number of columns with 3 or more well cells.
- Column holes are only the empty cells directly below a filled cell: an empty run of three
  cells under an overhang is one hole (at the run's top), as his definition says.
- Column transitions compare vertically adjacent cells from a column's top cell down to row
  19; neither the pair above the top cell nor the floor counts, so an empty column has 0.
- Row transitions skip rows with no filled cell; a full row has 0 (the walls match it).
- Ceiling penalty (rule 2): a filled cell in row r = 0..6 costs ceiling_weight / (r + 1); a
  cell in the hidden rows -2, -1 is above the ceiling and costs the row-0 price. The scale
  was not published. The default 1000 makes one cell in row 6 cost 143, about three new
  holes near the floor with meatfighter's weights (one costs about 40), and a cell in row 0
  cost 1000, so the search builds into the top rows only when its alternatives are much
  worse, as the rule intends. Training can tune it (Weights.ceiling).

The other seeds' features follow their authors' code or text where meatfighter's differ:
El-Tetris (ielashi/eltetris features.js) counts row transitions on every row (an empty row
has 2), column transitions upward from a filled floor with none above row 0, holes as every
empty cell under a filled one, and well sums as each well cell plus the empty cells under
it. Nguyen and Morua's side rules count no hole beside a wall.

The right-well features follow StackRabbit's eval.cpp (its factors for a well in column 9)
with three differences: a hole is every covered empty cell of columns 0-8 (StackRabbit
rates cells a tuck can still fill as part of a hole), a covered well costs the same
whatever covers it (StackRabbit's is ten times dearer under a tuck setup), and its heights
come from nesbot's piece ranges (nesbot._core.piece_ranges.well_heights).
"""


cimport cython

from libc.stdint cimport uint8_t

from nesbot._core.board cimport (
    BOARD_HIDDEN,
    FIELD_ROWS,
    FULL_ROW,
    STACK_COLUMNS,
    WALLED_ROW_BITS,
    WIDTH,
    Board,
    lowest_bit,
    popcount,
)
from nesbot._core.column_tops cimport (
    column_heights,
    column_top_features,
    cube,
    nes_top_features,
    reach_features,
    well_top_features,
)
from nesbot._core.feature_slots cimport *
from nesbot._core.surface cimport surface_index
from nesbot._core.weight_sets cimport REACH_LEVELS, WeightSet, Weights, weights_at


cdef enum:
    LEFT_WALL = 0x001       # bit of column 0 in a row shifted left by one
    RIGHT_WALL = 0x200      # bit of column 9
    WELL_BIT = 0x200        # column 9, where nesbot and StackRabbit keep the Tetris well
    LEFT_COLUMN = 0x001     # column 0


# 1 / distance from the ceiling for rows -2..6; the hidden rows share row 0's price.
cdef double CEILING_SCALE[BOARD_HIDDEN + CEILING_ROWS]
CEILING_SCALE[0] = 1.0
CEILING_SCALE[1] = 1.0
for _r in range(CEILING_ROWS):
    CEILING_SCALE[BOARD_HIDDEN + _r] = 1.0 / (_r + 1)

# The surface table (nesbot/evaluation/surface_builder.py), loaded on first use: one uint8
# code per surface, value = code * SURFACE_SCALE. `_surface_codes` keeps the array alive.
cdef enum:
    SURFACE_COLUMNS = 9              # columns 0-8: the well (column 9) is not part of it
cdef const uint8_t* SURFACE_CODES = NULL
cdef double SURFACE_SCALE = 0.0
cdef double SURFACE_MAX = 0.0      # the table's largest value
_surface_codes = None


cdef int use_surface_table() except -1:
    # Load the surface table nesbot ships (once), for the feature surface_value.
    global SURFACE_CODES, SURFACE_SCALE, SURFACE_MAX, _surface_codes
    cdef const uint8_t[::1] view
    if SURFACE_CODES != NULL:
        return 0
    from nesbot._core.surface_file import read_surface_file   # the table nesbot ships

    codes, provenance = read_surface_file()
    scale = float(provenance["scale"])
    if codes.shape[0] != 7 ** (SURFACE_COLUMNS - 1):
        raise ValueError(f"the surface table has {codes.shape[0]} values, not 7 ** 8")
    view = codes
    _surface_codes = codes
    SURFACE_SCALE = scale
    SURFACE_MAX = int(codes.max()) * scale
    SURFACE_CODES = &view[0]
    return 0


cdef double surface_value(const int* heights) noexcept nogil:
    if SURFACE_CODES == NULL:
        return 0.0
    return SURFACE_CODES[surface_index(heights, SURFACE_COLUMNS)] * SURFACE_SCALE


cdef double surface_max() noexcept nogil:
    return SURFACE_MAX


cdef void board_features(const Board* b, Features* out) noexcept nogil:
    cdef int top[WIDTH], heights[WIDTH]
    cdef int r, c, n, depth
    cdef unsigned int m, prev = 0, seen = 0, fresh, well, holes, walled
    # Saturating per-column counters of well cells, one bit per column: >= 1, >= 2, >= 3.
    cdef unsigned int well1 = 0, well2 = 0, well3 = 0
    cdef int well_cells = 0, hole_count = 0, weighted_holes = 0, depth_sum = 0
    cdef int min_depth = FIELD_ROWS, max_depth = 0
    cdef int col_trans = 0, row_trans = 0, solid = 0, weighted_solid = 0

    for c in range(WIDTH):
        top[c] = FIELD_ROWS
    # Empty rows above the pile contribute to no feature, and most boards are low.
    r = 0
    while r < FIELD_ROWS and b.rows[r + BOARD_HIDDEN] == 0:
        r += 1
    while r < FIELD_ROWS:
        m = b.rows[r + BOARD_HIDDEN]
        fresh = m & ~seen
        while fresh:
            top[lowest_bit(fresh)] = r
            fresh &= fresh - 1
        seen |= m

        well = ~seen & ((m << 1) | LEFT_WALL) & ((m >> 1) | RIGHT_WALL) & FULL_ROW
        if well:
            well_cells += popcount(well)
            well3 |= well2 & well
            well2 |= well1 & well
            well1 |= well

        # Counts the pair across each column's top surface too (prev starts empty); those
        # are taken off once per non-empty column below.
        col_trans += popcount(prev ^ m)
        holes = prev & ~m
        while holes:
            c = lowest_bit(holes)
            holes &= holes - 1
            depth = r - top[c]
            hole_count += 1
            weighted_holes += r + 1
            depth_sum += depth
            if depth < min_depth:
                min_depth = depth
            if depth > max_depth:
                max_depth = depth

        if m:
            n = popcount(m)
            solid += n
            weighted_solid += n * (FIELD_ROWS - r)
            walled = (m << 1) | 1 | (1 << (WIDTH + 1))
            row_trans += popcount((walled ^ (walled >> 1)) & WALLED_ROW_BITS)
        prev = m
        r += 1

    for c in range(WIDTH):
        if top[c] < FIELD_ROWS:
            col_trans -= 1
        heights[c] = FIELD_ROWS - top[c]

    out.f[F_TOTAL_LINES_CLEARED] = 0
    out.f[F_TOTAL_LOCK_HEIGHT] = 0
    out.f[F_TOTAL_WELL_CELLS] = well_cells
    out.f[F_TOTAL_DEEP_WELLS] = popcount(well3)
    out.f[F_TOTAL_COLUMN_HOLES] = hole_count
    out.f[F_TOTAL_WEIGHTED_COLUMN_HOLES] = weighted_holes
    out.f[F_TOTAL_COLUMN_HOLE_DEPTHS] = depth_sum
    out.f[F_MIN_COLUMN_HOLE_DEPTH] = min_depth
    out.f[F_MAX_COLUMN_HOLE_DEPTH] = max_depth
    out.f[F_TOTAL_COLUMN_TRANSITIONS] = col_trans
    out.f[F_TOTAL_ROW_TRANSITIONS] = row_trans
    out.f[F_TOTAL_SOLID_CELLS] = solid
    out.f[F_TOTAL_WEIGHTED_SOLID_CELLS] = weighted_solid
    column_top_features(heights, out)


cdef void column_features(const Board* b, const int* heights, int top_row,
                          Features* out) noexcept nogil:
    # board_features' column features (is_column_feature) from the column tops that
    # column_heights gives, the others 0: a weight set that needs only these (the slow
    # taps' kill screen) skips the row loop's other counts.
    cdef int r, i, holes = 0
    cdef unsigned int m, above = 0
    for r in range(top_row, FIELD_ROWS):
        m = b.rows[r + BOARD_HIDDEN]
        holes += popcount(above & ~m)
        above = m
    for i in range(F_TOTAL_LOCK_HEIGHT + 1, FEATURE_COUNT):
        out.f[i] = 0.0
    out.f[F_TOTAL_COLUMN_HOLES] = holes
    column_top_features(heights, out)


cdef double ceiling_penalty(const Board* b, double ceiling_weight) noexcept nogil:
    cdef double s = 0.0
    cdef int i
    for i in range(BOARD_HIDDEN + CEILING_ROWS):
        s += popcount(b.rows[i]) * CEILING_SCALE[i]
    return s * ceiling_weight


cdef void extra_features(const Board* b, Features* out) noexcept nogil:
    cdef int r
    cdef unsigned int m, below, seen = 0, covered, walled
    cdef int covered_cells = 0, covered_heights = 0, row_trans = 0
    cdef int col_trans = 0, right_side = 0, left_side = 0
    for r in range(FIELD_ROWS):
        m = b.rows[r + BOARD_HIDDEN]
        seen |= m
        covered = seen & ~m
        covered_cells += popcount(covered)
        covered_heights += popcount(covered) * (FIELD_ROWS - r)
        right_side += popcount(~m & (seen >> 1) & FULL_ROW)
        left_side += popcount(~m & (seen << 1) & FULL_ROW)
        walled = (m << 1) | 1 | (1 << (WIDTH + 1))
        row_trans += popcount((walled ^ (walled >> 1)) & WALLED_ROW_BITS)
        below = b.rows[r + 1 + BOARD_HIDDEN] if r + 1 < FIELD_ROWS else FULL_ROW
        col_trans += popcount(m ^ below)
    out.f[F_LANDING_HEIGHT] = 0
    out.f[F_COVERED_CELLS] = covered_cells
    out.f[F_WELL_SUMS] = well_sums(b, 0)
    out.f[F_ROW_TRANSITIONS_ALL_ROWS] = row_trans
    out.f[F_COLUMN_TRANSITIONS_FROM_FLOOR] = col_trans
    out.f[F_RIGHT_SIDE_HOLES] = right_side
    out.f[F_COVERED_CELL_HEIGHTS] = covered_heights
    out.f[F_LEFT_SIDE_HOLES] = left_side


cdef int well_sums(const Board* b, int top_row) noexcept nogil:
    """El-Tetris's well sums: each well cell (empty, filled or wall on both sides) counts
    1 + the empty cells right under it, so a well d deep counts d(d+1)/2. Rows above
    `top_row` must be empty (they hold no well cell). From the floor up, each column's
    empty run below the row is kept bit-sliced: bit c of runs[k] is bit k of column c's."""
    cdef unsigned int runs[5]        # runs reach 20 rows: 5 bits
    cdef unsigned int m, well, carry, next_carry
    cdef int r, k, total = 0
    for k in range(5):
        runs[k] = 0
    for r in range(FIELD_ROWS - 1, top_row - 1, -1):
        m = b.rows[r + BOARD_HIDDEN]
        well = ~m & ((m << 1) | LEFT_WALL) & ((m >> 1) | RIGHT_WALL) & FULL_ROW
        if well:
            total += popcount(well)
            for k in range(5):
                total += popcount(well & runs[k]) << k
        carry = ~m & FULL_ROW        # the empty columns' runs grow by one, the rest end
        for k in range(5):
            next_carry = runs[k] & carry
            runs[k] = (runs[k] ^ carry) & ~m
            carry = next_carry
    return total


cdef inline bint tetris_ready(const Board* b, int column, int height) noexcept nogil:
    """Whether the 4 rows just above `column`'s top (it is `height` rows tall) are full
    but for it: an I dropped there makes a Tetris."""
    cdef int r
    if height > FIELD_ROWS - 4:
        return False
    for r in range(FIELD_ROWS - 4 - height, FIELD_ROWS - height):
        if b.rows[r + BOARD_HIDDEN] != (FULL_ROW & ~(1 << column)):
            return False
    return True


cdef inline int covered_ready_rows(const Board* b, int well_height) noexcept nogil:
    """The rows under column 9's top (it is `well_height` rows tall) that are full but for
    it: each waits under whatever fills column 9 above it."""
    cdef int r, covered = 0
    for r in range(FIELD_ROWS - well_height, FIELD_ROWS):
        covered += b.rows[r + BOARD_HIDDEN] == STACK_COLUMNS
    return covered


cdef void nes_features(const Board* b, const int* heights, int top_row, double safe_height,
                       bint surface, Features* out) noexcept nogil:
    cdef int r, well, burns = 0
    cdef unsigned int m, open_below = 0   # columns with an empty cell below row r
    for r in range(FIELD_ROWS - 1, top_row - 1, -1):
        m = b.rows[r + BOARD_HIDDEN]
        burns += (m & (open_below | WELL_BIT)) != 0
        open_below |= ~m & FULL_ROW
    well = nes_top_features(heights, safe_height, out)
    out.f[F_SURFACE_VALUE] = surface_value(heights) if surface else 0.0
    out.f[F_TETRIS_READY] = tetris_ready(b, well, heights[well])
    out.f[F_BURNED_LINES] = 0
    out.f[F_BURNS_NEEDED] = burns


@cython.cdivision(True)   # every divisor is at least 2
cdef void well_features(const Board* b, const int* heights, int top_row, const Weights* w,
                        int level, Features* out) noexcept nogil:
    # StackRabbit's right-well factors, from their definitions (evaluate.pxd), and nesbot's
    # ready rows past a Tetris; columns 0-8 are the stack, 9 the well, 8 the column an I
    # passes over to reach it.
    cdef double scare, penalty = 0.0
    cdef int c, r, holes = 0, top8, top8_row, ready
    cdef unsigned int m, seen = 0, hole_rows = 0   # hole_rows: bit r = row r has a hole
    well_top_features(heights, w, level, out)
    if level >= REACH_LEVELS:
        level = REACH_LEVELS - 1
    scare = w.scare_height[level]
    # Holes beside the well: empty cells of columns 0-8 under their column's top.
    for r in range(top_row, FIELD_ROWS):
        m = b.rows[r + BOARD_HIDDEN]
        if ~m & seen & STACK_COLUMNS:
            holes += popcount(~m & seen & STACK_COLUMNS)
            hole_rows |= 1u << r
        seen |= m
    out.f[F_STACK_HOLES] = holes
    # Built out left counts only over a column 0 filled under its top.
    if out.f[F_BUILT_OUT_LEFT] > 0.0:
        for r in range(FIELD_ROWS + 1 - heights[0], FIELD_ROWS):
            if not b.rows[r + BOARD_HIDDEN] & LEFT_COLUMN:
                out.f[F_BUILT_OUT_LEFT] = 0.0
                break
    ready = ready_rows(b, heights[WIDTH - 1])
    out.f[F_WELL_TETRIS_READY] = ready >= 4
    out.f[F_WELL_PAST_TETRIS] = ready - 4 if ready > 4 else 0
    out.f[F_COVERED_READY_ROWS] = covered_ready_rows(b, heights[WIDTH - 1])
    # Unable to burn: the middle's columns lower than column 8 (not counting rows the well
    # column fills beside it) must be filled before a burn can reach that height.
    top8 = heights[WIDTH - 2]
    if top8 <= heights[WIDTH - 1]:
        while top8 > 0 and b.rows[FIELD_ROWS - top8 + BOARD_HIDDEN] & WELL_BIT:
            top8 -= 1
    if top8 > 0:
        for c in range(WIDTH - 2):
            if heights[c] < top8:
                if ((c == 0 or heights[c - 1] - heights[c] >= 3)
                        and heights[c + 1] - heights[c] >= 3):
                    penalty += 100.0     # a column only an I can fill
                    break
                penalty += (top8 - heights[c]) * (top8 - heights[c])
        top8_row = FIELD_ROWS - top8
        for r in range(top8_row - 1 if top8_row > 0 else 0, top8_row + 1):
            if hole_rows >> r & 1:
                penalty += 50.0
        for r in range(top8_row - 2 if top8_row > 1 else 0,
                       top8_row + 3 if top8_row + 3 <= FIELD_ROWS else FIELD_ROWS):
            if hole_rows >> r & 1:
                penalty += 50.0
        penalty *= cube(top8 / (scare if scare > 2.0 else 2.0))
    out.f[F_UNABLE_TO_BURN] = penalty


cdef double evaluate(const Board* b, int lines_cleared, int burned, int lock_height_total,
                     double landing_height_total, int level, const Weights* w) noexcept nogil:
    cdef Features feat
    cdef double s = 0.0
    cdef int i
    cdef int heights[WIDTH]          # column tops, for the NES and piece-range features
    cdef int top_row = FIELD_ROWS    # the stack's top row
    cdef const WeightSet* ws = weights_at(w, level)
    cdef const double* ww = &ws.w[0]
    # Lines and lock height come from the caller; the board's 15 features only when some
    # weight needs them (the right-well evaluator weighs none), the column ones alone when
    # they are all it weighs. The additions keep their order, so every value is what it
    # was before each of these branches, to the last bit (a feature left 0 adds 0 x 0).
    s += ww[F_TOTAL_LINES_CLEARED] * lines_cleared
    s += ww[F_TOTAL_LOCK_HEIGHT] * lock_height_total
    if ws.nes or ws.reach or ws.well or ws.columns_only or (ws.wells and not ws.extra):
        top_row = column_heights(b, heights)
    if ws.board:
        if ws.columns_only:
            column_features(b, heights, top_row, &feat)
        else:
            board_features(b, &feat)
        for i in range(F_TOTAL_LOCK_HEIGHT + 1, FEATURE_COUNT):
            s += ww[i] * feat.f[i]
    if ws.extra:
        extra_features(b, &feat)
        feat.f[F_LANDING_HEIGHT] = landing_height_total
        for i in range(FEATURE_COUNT, SEED_FEATURE_COUNT):
            s += ww[i] * feat.f[i]
    elif ws.wells:   # well_sums alone: the group's other terms would each add 0
        s += ww[F_WELL_SUMS] * well_sums(b, top_row)
    if ws.nes:
        nes_features(b, heights, top_row, ws.safe_height, ws.surface, &feat)
        feat.f[F_BURNED_LINES] = burned
        for i in range(SEED_FEATURE_COUNT, NES_FEATURE_END):
            s += ww[i] * feat.f[i]
    if ws.reach:
        reach_features(heights, w, level, &feat)
        for i in range(NES_FEATURE_END, REACH_FEATURE_END):
            s += ww[i] * feat.f[i]
    if ws.well:
        well_features(b, heights, top_row, w, level, &feat)
        for i in range(REACH_FEATURE_END, ALL_FEATURE_COUNT):
            s += ww[i] * feat.f[i]
    if w.ceiling_weight != 0.0:
        s += ceiling_penalty(b, w.ceiling_weight)
    return s
