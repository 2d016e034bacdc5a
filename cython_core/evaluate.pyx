# cython: language_level=3
"""Board evaluation (see evaluate.pxd): meatfighter's 17 features and the other seeds'
features, weighted and summed; lower is better.

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

The Python functions take `rows` as 22 masks (rows -2..19) or 20 masks (rows 0..19, hidden
rows empty), each 0..0x3FF, and `weights` as 17 floats (meatfighter's features) or one per
ALL_FEATURE_NAMES, with the ceiling weight as one more float last (else
DEFAULT_CEILING_WEIGHT; calming rules on), or an object with `as_vector()` (one float per ALL_FEATURE_NAMES),
`ceiling` and optionally `calming` (nesbot.evaluation.weights.Weights, nesbot.evaluation.evaluators.Evaluator);
such an object's `kill_screen_vector()`, if it gives a list, weighs the positions from
level 29 on (or its `kill_screen_from_level`), with high_stack counted from
`kill_screen_safe_stack_height`, and its `fast_levels_vector()` (with `fast_levels_from_level`
and `fast_levels_safe_stack_height`) those from that level until then.
They raise ValueError for anything else. The piece-range features depend on the level and
the tap rate too: the functions that compute them take `level` and `tap_interval`.
"""

import math
import time

cimport cython

from libc.math cimport INFINITY
from libc.stdint cimport uint8_t, uint64_t
from libc.string cimport memcpy, memset

from nesbot._core.board cimport (
    BOARD_HIDDEN,
    BOARD_ROWS,
    FIELD_ROWS,
    FULL_ROW,
    Board,
    fits,
    has_tuck_spot,
    lowest_bit,
)
from nesbot._core.features import ALL_FEATURE_NAMES  # the table the F_ slots come from
from nesbot._core.pieces cimport (
    LEVEL_ONE_FRAME_ROWS,
    NES_CELLS,
    NES_ORIENTATIONS,
    NES_SPAWN_TABLE,
)
from nesbot._core.rules cimport SPAWN_X, SPAWN_Y
from nesbot._core.surface cimport surface_index

cdef enum:
    WIDTH = 10
    LEFT_WALL = 0x001       # bit of column 0 in a row shifted left by one
    RIGHT_WALL = 0x200      # bit of column 9
    WELL_BIT = 0x200        # column 9, where nesbot and StackRabbit keep the Tetris well
    WALLED_ROW_BITS = 0x7FF  # 11 neighbour pairs of a row with a wall bit at each end
    SPAWN_COLUMNS = 0x070   # columns 4-6 of row 0, where rule 4's fill starts
    STACK_COLUMNS = 0x1FF   # columns 0-8: the stack beside the well
    LEFT_COLUMN = 0x001     # column 0

# Bits set in each 11-bit mask (rows, and rows with their walls): __builtin_popcount is a
# libgcc call unless the build targets a CPU with POPCNT, and setup.py builds for the
# generic x86-64 baseline.
cdef unsigned char POPCOUNT11[WALLED_ROW_BITS + 1]
for _m in range(WALLED_ROW_BITS + 1):
    POPCOUNT11[_m] = bin(_m).count("1")


cdef inline int popcount(unsigned int m) noexcept nogil:
    """Set bits of m; m must be below 2 ** 11."""
    return POPCOUNT11[m]


# 1 / distance from the ceiling for rows -2..6; the hidden rows share row 0's price.
cdef double CEILING_SCALE[BOARD_HIDDEN + CEILING_ROWS]
CEILING_SCALE[0] = 1.0
CEILING_SCALE[1] = 1.0
for _r in range(CEILING_ROWS):
    CEILING_SCALE[BOARD_HIDDEN + _r] = 1.0 / (_r + 1)

DEFAULT_CEILING_WEIGHT: float = 1000.0
DEFAULT_SAFE_STACK_HEIGHT: float = float(SAFE_STACK_HEIGHT)

_bench_sink = 0.0

# The surface table (nesbot/evaluation/surface.py), loaded on first use: one uint8 code per surface,
# value = code * SURFACE_SCALE. `_surface_codes` keeps the array alive.
cdef enum:
    SURFACE_COLUMNS = 9              # columns 0-8: the well (column 9) is not part of it
cdef const uint8_t* SURFACE_CODES = NULL
cdef double SURFACE_SCALE = 0.0
cdef double SURFACE_MAX = 0.0      # the table's largest value
_surface_codes = None


def use_surface_table() -> None:
    """Load the surface table nesbot ships (once), for the feature surface_value."""
    global SURFACE_CODES, SURFACE_SCALE, SURFACE_MAX, _surface_codes
    cdef const uint8_t[::1] view
    if SURFACE_CODES != NULL:
        return
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


cdef inline double surface_value(const int* heights) noexcept nogil:
    """The table's value of columns 0-8's top (heights from the floor); 0 if not loaded."""
    if SURFACE_CODES == NULL:
        return 0.0
    return SURFACE_CODES[surface_index(heights, SURFACE_COLUMNS)] * SURFACE_SCALE


cdef void column_top_features(const int* heights, Features* out) noexcept nogil:
    # The board features of the column tops alone (board_features', column_features' and
    # value_bound's): their sum, the tallest, the spread and the steps between neighbours.
    cdef int c, step, total = 0, highest = 0, lowest = FIELD_ROWS, variance = 0
    for c in range(WIDTH):
        total += heights[c]
        if heights[c] > highest:
            highest = heights[c]
        if heights[c] < lowest:
            lowest = heights[c]
        if c > 0:
            step = heights[c] - heights[c - 1]
            variance += step if step > 0 else -step
    out.f[F_TOTAL_COLUMN_HEIGHTS] = total
    out.f[F_PILE_HEIGHT] = highest
    out.f[F_COLUMN_HEIGHT_SPREAD] = highest - lowest
    out.f[F_COLUMN_HEIGHT_VARIANCE] = variance


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


cdef inline bint is_column_feature(int i) noexcept nogil:
    # The board features column_features computes: the column tops' and the holes'.
    return (i == F_TOTAL_COLUMN_HOLES or i == F_TOTAL_COLUMN_HEIGHTS or i == F_PILE_HEIGHT
            or i == F_COLUMN_HEIGHT_SPREAD or i == F_COLUMN_HEIGHT_VARIANCE)


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


cdef inline int column_heights(const Board* b, int* heights) noexcept nogil:
    """Each column's top as rows from the floor (0 for an empty column). Returns the top
    row of the stack (FIELD_ROWS if the board is empty): every row above it is empty, so
    the features' row loops start there."""
    cdef int c, r, start = 0, top = FIELD_ROWS
    cdef unsigned int m, open_columns = FULL_ROW   # columns whose top is not found yet
    cdef uint64_t four_rows
    for c in range(WIDTH):
        heights[c] = 0
    # Most of a board is above its stack: skip its empty rows four at a time.
    while start + 4 <= FIELD_ROWS:
        memcpy(&four_rows, &b.rows[start + BOARD_HIDDEN], sizeof(four_rows))
        if four_rows:
            break
        start += 4
    # From the top down, each column once: a stack's cells are many, its columns ten.
    for r in range(start, FIELD_ROWS):
        m = b.rows[r + BOARD_HIDDEN] & open_columns
        if m and top == FIELD_ROWS:
            top = r
        open_columns &= ~m
        while m:
            heights[lowest_bit(m)] = FIELD_ROWS - r
            m &= m - 1
        if not open_columns:
            break
    return top


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


cdef inline int ready_rows(const Board* b, int well_height) noexcept nogil:
    """The rows just above column 9's top (it is `well_height` rows tall) that are full but
    for it: 4 make it Tetris-ready, the rest wait for another I."""
    cdef int r = FIELD_ROWS - 1 - well_height, ready = 0
    while r >= 0 and b.rows[r + BOARD_HIDDEN] == STACK_COLUMNS:
        ready += 1
        r -= 1
    return ready


cdef inline int covered_ready_rows(const Board* b, int well_height) noexcept nogil:
    """The rows under column 9's top (it is `well_height` rows tall) that are full but for
    it: each waits under whatever fills column 9 above it."""
    cdef int r, covered = 0
    for r in range(FIELD_ROWS - well_height, FIELD_ROWS):
        covered += b.rows[r + BOARD_HIDDEN] == STACK_COLUMNS
    return covered


cdef int nes_top_features(const int* heights, double safe_height, bint surface,
                          Features* out) noexcept nogil:
    # nes_features' features of the column tops alone (column 9's height, high_stack, the
    # surface table's value); returns the lowest column (the rightmost of the lowest).
    cdef int c, well = 0, lowest = FIELD_ROWS + 1, total = 0
    cdef double over
    for c in range(WIDTH):
        total += heights[c]
        if heights[c] <= lowest:
            lowest = heights[c]
            well = c
    out.f[F_RIGHT_COLUMN_HEIGHT] = heights[WIDTH - 1]
    over = (total - lowest) / <double>(WIDTH - 1) - safe_height
    out.f[F_HIGH_STACK] = over * over if over > 0.0 else 0.0
    out.f[F_SURFACE_VALUE] = surface_value(heights) if surface else 0.0
    return well


cdef void nes_features(const Board* b, const int* heights, int top_row, double safe_height,
                       bint surface, Features* out) noexcept nogil:
    cdef int r, well, burns = 0
    cdef unsigned int m, open_below = 0   # columns with an empty cell below row r
    for r in range(FIELD_ROWS - 1, top_row - 1, -1):
        m = b.rows[r + BOARD_HIDDEN]
        burns += (m & (open_below | WELL_BIT)) != 0
        open_below |= ~m & FULL_ROW
    well = nes_top_features(heights, safe_height, surface, out)
    out.f[F_TETRIS_READY] = tetris_ready(b, well, heights[well])
    out.f[F_BURNED_LINES] = 0
    out.f[F_BURNS_NEEDED] = burns


cdef void reach_features(const int* heights, const Weights* w, int level,
                         Features* out) noexcept nogil:
    # cython_core/piece_ranges.py says why per-column limits decide reachability. Walking out
    # from the spawn column each way, a column is reachable while every column before it
    # on the way was passable and it is no taller than its enter limit.
    cdef int c, k, step, unreachable = 0, excess = 0
    cdef bint open_way
    cdef const signed char* passing
    cdef const signed char* entering
    if level >= REACH_LEVELS:
        level = REACH_LEVELS - 1
    passing = w.reach_pass[level]
    entering = w.reach_enter[level]
    unreachable += heights[SPAWN_X] > entering[SPAWN_X]
    for k in range(2):
        step = 2 * k - 1    # left, then right
        open_way = True
        c = SPAWN_X + step
        while 0 <= c < WIDTH:
            unreachable += not open_way or heights[c] > entering[c]
            open_way = open_way and heights[c] <= passing[c]
            if heights[c] - passing[c] > excess:
                excess = heights[c] - passing[c]
            c += step
    out.f[F_UNREACHABLE_COLUMNS] = unreachable
    out.f[F_REACH_EXCESS] = excess


cdef inline double cube(double x) noexcept nogil:
    return x * x * x


@cython.cdivision(True)   # every divisor is at least 2
cdef void well_top_features(const int* heights, const Weights* w, int level,
                            Features* out) noexcept nogil:
    # well_features' features of the column tops alone, F_BUILT_OUT_LEFT as if column 0 were
    # filled under its top (well_features zeroes a positive one where it is not).
    cdef double scare, beside, over, avg = 0.0, ratio, lift
    cdef int c, diff, gap = 0, good
    if level >= REACH_LEVELS:
        level = REACH_LEVELS - 1
    scare = w.scare_height[level]
    beside = w.beside_well_height[level]
    ratio = heights[WIDTH - 1] / (scare if scare > 3.0 else 3.0)
    out.f[F_WELL_COVERED] = cube(ratio)
    over = heights[WIDTH - 2] - beside
    out.f[F_HIGH_BESIDE_WELL] = over * over if over > 0.0 else 0.0
    # Column 8 lower than the smaller of its safe height and column 7 minus 2: about one
    # burn per 2 rows of difference will fill it (StackRabbit's 0.6 burn each).
    good = <int>beside
    if heights[WIDTH - 3] - 2 < good:
        good = heights[WIDTH - 3] - 2
    out.f[F_BESIDE_WELL_LOW] = ((good - heights[WIDTH - 2] + 1) // 2) * 0.6 \
        if heights[WIDTH - 2] < good else 0.0
    for c in range(WIDTH - 1):
        avg += heights[c] * 0.1
    over = avg - scare
    out.f[F_STACK_HEIGHT_OVER] = over * over if over > 0.0 else 0.0
    # Steps beyond 3 rows between columns 0-8; a column 8 more than 2 below column 7 is a
    # second well, not a gap.
    for c in range(WIDTH - 2):
        diff = heights[c + 1] - heights[c]
        if c == WIDTH - 3 and diff < -2:
            continue
        if diff > 3:
            gap += diff - 3
        elif diff < -3:
            gap += -diff - 3
    out.f[F_EXTREME_GAP] = gap
    # Built out left: column 0 above the stack's mean and column 1 (over filled cells).
    ratio = (avg if avg > 1.0 else 1.0) / (scare if scare > 2.0 else 2.0)
    lift = 0.5 * (heights[0] - avg) + 0.5 * (heights[0] - heights[1])
    if lift < 0.0:
        out.f[F_BUILT_OUT_LEFT] = -0.5 * lift * lift * 0.5 * (ratio + 1.0)
    else:
        out.f[F_BUILT_OUT_LEFT] = ratio * lift


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


cdef void board_tops(const Board* b, Tops* out) noexcept nogil:
    cdef int r
    cdef unsigned int m
    column_heights(b, out.heights)
    out.cells = out.stack_cells = 0
    for r in range(FIELD_ROWS):
        m = b.rows[r + BOARD_HIDDEN]
        out.cells += popcount(m)
        out.stack_cells += popcount(m & STACK_COLUMNS)


# Each orientation's cells as tops_after reads them: row dy's cells as bits dx + 2
# (PIECE_ROW_BITS[o][dy + 2]), and each of its columns with its topmost cell's dy.
cdef unsigned int PIECE_ROW_BITS[19][5]
cdef signed char PIECE_COLUMN_TOPS[19][4][2]
cdef int PIECE_COLUMNS[19]
cdef int PIECE_TOP_DY[19]
for _o in range(NES_ORIENTATIONS):
    _tops = {}
    for _k in range(5):
        PIECE_ROW_BITS[_o][_k] = 0
    for _k in range(4):
        _dx, _dy = NES_CELLS[_o][_k][0], NES_CELLS[_o][_k][1]
        PIECE_ROW_BITS[_o][_dy + 2] |= 1 << (_dx + 2)
        _tops[_dx] = min(_tops.get(_dx, _dy), _dy)
    PIECE_COLUMNS[_o] = len(_tops)
    for _k, (_dx, _dy) in enumerate(sorted(_tops.items())):
        PIECE_COLUMN_TOPS[_o][_k][0] = _dx
        PIECE_COLUMN_TOPS[_o][_k][1] = _dy
    PIECE_TOP_DY[_o] = min(_tops.values())


cdef bint tops_after(const Board* b, const Tops* before, int orientation, int x, int y,
                     Tops* out) noexcept nogil:
    cdef unsigned int m
    cdef int k, r, c, height
    if y + PIECE_TOP_DY[orientation] < 0:
        return False        # a cell in the hidden rows: left to evaluate
    out[0] = before[0]
    for k in range(5):
        if PIECE_ROW_BITS[orientation][k]:
            m = (PIECE_ROW_BITS[orientation][k] << x) >> 2
            r = y + k - 2
            if (b.rows[r + BOARD_HIDDEN] | m) == FULL_ROW:
                return False
            out.cells += popcount(m)
            out.stack_cells += popcount(m & STACK_COLUMNS)
    for k in range(PIECE_COLUMNS[orientation]):
        c = x + PIECE_COLUMN_TOPS[orientation][k][0]
        height = FIELD_ROWS - y - PIECE_COLUMN_TOPS[orientation][k][1]
        if height > out.heights[c]:
            out.heights[c] = height
    return True


cdef inline double least_surface_term(double weight) noexcept nogil:
    return weight * SURFACE_MAX if weight < 0.0 else 0.0


cdef double surface_rise(const Tops* t, int level, const Weights* w) noexcept nogil:
    cdef const WeightSet* ws = weights_at(w, level)
    if not ws.surface:
        return 0.0
    return (ws.w[F_SURFACE_VALUE] * surface_value(t.heights)
            - least_surface_term(ws.w[F_SURFACE_VALUE]))


cdef double value_bound(const Tops* t, int lines_cleared, int burned, int lock_height_total,
                        double landing_height_total, int level,
                        const Weights* w) noexcept nogil:
    # Every feature of the column tops and the caller's exactly (the same functions as
    # evaluate's) but the surface table's value, at its least (surface_rise adds the rest:
    # reading the table is a cache miss); the stack's holes from the tops and the cells
    # (every empty cell of columns 0-8 under its top is one); each other weighted feature
    # at its least (WeightSet.rest_min); the ceiling penalty at 0.
    cdef Features feat
    cdef const WeightSet* ws = weights_at(w, level)
    cdef const double* ww = &ws.w[0]
    cdef double s, term
    cdef int c, tops = 0
    if not ws.bounded:
        return -INFINITY
    s = ws.rest_min
    s += ww[F_TOTAL_LINES_CLEARED] * lines_cleared + ww[F_TOTAL_LOCK_HEIGHT] * lock_height_total
    s += ww[F_LANDING_HEIGHT] * landing_height_total + ww[F_BURNED_LINES] * burned
    if ws.board:
        column_top_features(t.heights, &feat)
        for c in range(F_TOTAL_COLUMN_HEIGHTS, FEATURE_COUNT):
            if c != F_TOTAL_SOLID_CELLS and c != F_TOTAL_WEIGHTED_SOLID_CELLS:
                s += ww[c] * feat.f[c]
        s += ww[F_TOTAL_SOLID_CELLS] * t.cells
    if ws.nes:
        nes_top_features(t.heights, ws.safe_height, False, &feat)
        s += (ww[F_RIGHT_COLUMN_HEIGHT] * feat.f[F_RIGHT_COLUMN_HEIGHT]
              + ww[F_HIGH_STACK] * feat.f[F_HIGH_STACK])
        if ws.surface:
            s += least_surface_term(ww[F_SURFACE_VALUE])
    if ws.reach:
        reach_features(t.heights, w, level, &feat)
        s += (ww[F_UNREACHABLE_COLUMNS] * feat.f[F_UNREACHABLE_COLUMNS]
              + ww[F_REACH_EXCESS] * feat.f[F_REACH_EXCESS])
    if ws.well:
        well_top_features(t.heights, w, level, &feat)
        for c in range(WIDTH - 1):
            tops += t.heights[c]
        s += (ww[F_WELL_COVERED] * feat.f[F_WELL_COVERED]
              + ww[F_HIGH_BESIDE_WELL] * feat.f[F_HIGH_BESIDE_WELL]
              + ww[F_BESIDE_WELL_LOW] * feat.f[F_BESIDE_WELL_LOW]
              + ww[F_STACK_HEIGHT_OVER] * feat.f[F_STACK_HEIGHT_OVER]
              + ww[F_EXTREME_GAP] * feat.f[F_EXTREME_GAP]
              + ww[F_STACK_HOLES] * (tops - t.stack_cells))
        # a positive built-out value is 0 where column 0 has a hole: the lesser of the two
        term = ww[F_BUILT_OUT_LEFT] * feat.f[F_BUILT_OUT_LEFT]
        s += term if feat.f[F_BUILT_OUT_LEFT] <= 0.0 or term < 0.0 else 0.0
    return s


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


# ---------------------------------------------------------------- Python layer


cdef int _load_board(object rows, Board* b) except -1:
    cdef int n = len(rows)
    cdef int offset, i
    if n == BOARD_ROWS:
        offset = 0
    elif n == FIELD_ROWS:
        offset = BOARD_HIDDEN
    else:
        raise ValueError(f"rows needs 22 masks (rows -2..19) or 20 (rows 0..19), got {n}")
    memset(b, 0, sizeof(Board))
    for i in range(n):
        v = int(rows[i])
        if v < 0 or v > FULL_ROW:
            raise ValueError(f"row mask {v} at index {i} is outside 0..0x3FF")
        b.rows[offset + i] = v
    return 0


cdef int load_weights(object weights, Weights* w, int tap_interval=2) except -1:
    # See the module docstring for what `weights` may be.
    cdef int i
    calming = True
    if hasattr(weights, "as_vector"):
        vec = [float(v) for v in weights.as_vector()]
        ceiling = float(weights.ceiling)
        calming = bool(getattr(weights, "calming", True))
        if len(vec) != ALL_FEATURE_COUNT:
            raise ValueError(f"as_vector() gave {len(vec)} weights, expected {ALL_FEATURE_COUNT}")
    else:
        vec = [float(v) for v in weights]
        if len(vec) in (FEATURE_COUNT, ALL_FEATURE_COUNT):
            ceiling = DEFAULT_CEILING_WEIGHT
        elif len(vec) in (FEATURE_COUNT + 1, ALL_FEATURE_COUNT + 1):
            ceiling = vec.pop()
        else:
            raise ValueError(
                f"weights needs {FEATURE_COUNT} or {ALL_FEATURE_COUNT} floats (one more with "
                f"the ceiling weight last), got {len(vec)}")
    vec += [0.0] * (ALL_FEATURE_COUNT - len(vec))
    _set_weights(&w.base, vec, getattr(weights, "safe_stack_height", SAFE_STACK_HEIGHT))
    w.ceiling_weight = ceiling
    w.calming = calming
    # the kill screen's and the fast levels' own sets, if the evaluator has them
    w.kill = _load_level_set(weights, "kill_screen", &w.kill_set, &w.kill_level,
                             LEVEL_ONE_FRAME_ROWS)
    w.fast = _load_level_set(weights, "fast_levels", &w.fast_set, &w.fast_level,
                             19)   # a row every two frames from here (weights.FAST_LEVELS_LEVEL)
    if ceiling < 0.0:   # value_bound counts the ceiling's penalty at 0
        w.base.bounded = w.kill_set.bounded = w.fast_set.bounded = False
    if w.base.surface or (w.kill and w.kill_set.surface) or (w.fast and w.fast_set.surface):
        use_surface_table()
    if uses_ranges(w):
        load_reach_limits(w, tap_interval)
    return 0


cdef int _load_level_set(object weights, str name, WeightSet* into, int* from_level,
                         int default_level) except -1:
    # The set `name` (kill_screen, fast_levels) of `weights` into `into` and `from_level`,
    # from its `{name}_vector()` (None: it has none), `{name}_safe_stack_height` and
    # `{name}_from_level` (Evaluator, Weights): 1 if it has one, else 0.
    vector = getattr(weights, f"{name}_vector", None)
    vec = vector() if vector is not None else None
    if vec is None:
        return 0
    if len(vec) != ALL_FEATURE_COUNT:
        raise ValueError(f"{name}_vector() gave {len(vec)} weights, expected "
                         f"{ALL_FEATURE_COUNT}")
    _set_weights(into, [float(v) for v in vec], getattr(weights, f"{name}_safe_stack_height"))
    from_level[0] = int(getattr(weights, f"{name}_from_level", default_level))
    return 1


cdef inline bint is_top_feature(int i) noexcept nogil:
    # The features value_bound computes exactly: the caller's, the column tops', the
    # filled cells and the stack's holes (F_BUILT_OUT_LEFT at the lesser of its two values).
    return (i == F_TOTAL_LINES_CLEARED or i == F_TOTAL_LOCK_HEIGHT or i == F_LANDING_HEIGHT
            or i == F_BURNED_LINES or F_TOTAL_COLUMN_HEIGHTS <= i <= F_TOTAL_SOLID_CELLS
            or i == F_COLUMN_HEIGHT_VARIANCE or i == F_RIGHT_COLUMN_HEIGHT
            or i == F_HIGH_STACK or i == F_SURFACE_VALUE
            or NES_FEATURE_END <= i < REACH_FEATURE_END
            or (REACH_FEATURE_END <= i < ALL_FEATURE_COUNT and i != F_UNABLE_TO_BURN
                and i != F_WELL_TETRIS_READY and i != F_WELL_PAST_TETRIS
                and i != F_COVERED_READY_ROWS))


cdef inline double least_term(int i, double weight) noexcept nogil:
    # The least weight x value of a feature value_bound does not compute. Each is 0 or
    # more; the two Tetris-ready ones are at most 1, the burns and hole depths at most a
    # field's rows (the covered ready rows too), the ready rows past a Tetris at most the
    # rows above 4, the others unbounded (-INFINITY under a negative weight).
    if weight >= 0.0:
        return 0.0
    if i == F_TETRIS_READY or i == F_WELL_TETRIS_READY:
        return weight
    if i == F_WELL_PAST_TETRIS:
        return weight * (FIELD_ROWS - 4)
    if (i == F_BURNS_NEEDED or i == F_MIN_COLUMN_HOLE_DEPTH or i == F_MAX_COLUMN_HOLE_DEPTH
            or i == F_COVERED_READY_ROWS):
        return weight * FIELD_ROWS
    return -INFINITY


cdef void _set_weights(WeightSet* into, list vec, safe_height):
    # `vec` and `safe_height` into `into`, marking the feature groups it weighs and what
    # value_bound needs.
    cdef int i
    into.safe_height = float(safe_height)
    into.rest_min = 0.0
    into.board = into.extra = into.wells = into.nes = into.surface = False
    into.reach = into.well = False
    into.columns_only = True
    for i in range(ALL_FEATURE_COUNT):
        into.w[i] = vec[i]
        if vec[i] == 0.0:
            continue
        if not is_top_feature(i):
            into.rest_min += least_term(i, vec[i])
        if F_TOTAL_LOCK_HEIGHT < i < FEATURE_COUNT:
            into.board = True
            into.columns_only = into.columns_only and is_column_feature(i)
        elif i == F_WELL_SUMS:
            into.wells = True
        elif FEATURE_COUNT <= i < SEED_FEATURE_COUNT:
            into.extra = True
        elif SEED_FEATURE_COUNT <= i < NES_FEATURE_END:
            into.nes = True
            into.surface = into.surface or i == F_SURFACE_VALUE
        elif NES_FEATURE_END <= i < REACH_FEATURE_END:
            into.reach = True
        elif i >= REACH_FEATURE_END:
            into.well = True
    into.columns_only = into.board and into.columns_only
    into.bounded = into.rest_min > -INFINITY


cdef bint uses_ranges(const Weights* w) noexcept:
    # Some set weighs the piece ranges or the right well's heights made from them.
    return (w.base.reach or w.base.well
            or (w.kill and (w.kill_set.reach or w.kill_set.well))
            or (w.fast and (w.fast_set.reach or w.fast_set.well)))


cdef int load_reach_limits(Weights* w, int tap_interval) except -1:
    """The piece-range limits of `tap_interval`, and the right-well heights made from them,
    into w (measured in Python, with the search, once per tap interval)."""
    cdef int level, c
    # measured with the move search, which does not need this module
    from nesbot._core.piece_ranges import reach_limits, well_heights

    passes, enters = reach_limits(tap_interval)
    scare, beside = well_heights(tap_interval)
    for level in range(REACH_LEVELS):
        for c in range(REACH_COLUMNS):
            w.reach_pass[level][c] = passes[level][c]
            w.reach_enter[level][c] = enters[level][c]
        w.scare_height[level] = scare[level]
        w.beside_well_height[level] = beside[level]
    return 0


cdef void every_feature(const Board* b, const Weights* w, int level, double safe_height,
                        Features* f) noexcept nogil:
    """Every feature of the board, for explain and evaluate_trace (evaluate computes only
    the groups some weight needs); the caller-known ones are left for the caller. `w` gives
    the piece ranges' limits."""
    cdef int heights[WIDTH]
    cdef int top_row
    board_features(b, f)
    extra_features(b, f)
    top_row = column_heights(b, heights)
    nes_features(b, heights, top_row, safe_height, True, f)
    reach_features(heights, w, level, f)
    well_features(b, heights, top_row, w, level, f)


def board_features_py(rows) -> list[float]:
    """The 17 features in nesbot._core.features.FEATURE_NAMES order; the first two (caller-known) are 0."""
    cdef Board b
    cdef Features f
    _load_board(rows, &b)
    board_features(&b, &f)
    return [f.f[i] for i in range(FEATURE_COUNT)]


def all_features_py(rows, int level=19, int tap_interval=2) -> list[float]:
    """All features in ALL_FEATURE_NAMES order, the piece ranges' at `level` and
    `tap_interval`; the caller-known ones (lines cleared and burned, lock height, landing
    height) are 0."""
    cdef Board b
    cdef Features f
    cdef Weights w
    _load_board(rows, &b)
    use_surface_table()
    load_reach_limits(&w, tap_interval)
    every_feature(&b, &w, level, SAFE_STACK_HEIGHT, &f)
    return [f.f[i] for i in range(ALL_FEATURE_COUNT)]


def ready_rows_py(rows) -> int:
    """The rows just above column 9's top that are full but for it (4 make the board
    Tetris-ready): the evaluator's count, for the scripts that tell boards apart by it."""
    cdef Board b
    cdef int heights[WIDTH]
    _load_board(rows, &b)
    column_heights(&b, heights)
    return ready_rows(&b, heights[WIDTH - 1])


def ceiling_penalty_py(rows, double ceiling_weight=DEFAULT_CEILING_WEIGHT) -> float:
    """Rule 2's penalty alone for a board."""
    cdef Board b
    _load_board(rows, &b)
    return ceiling_penalty(&b, ceiling_weight)


def evaluate_py(rows, int lines_cleared, int lock_height_total, weights,
                double landing_height_total=0.0, int burned=0, int level=19,
                int tap_interval=2) -> float:
    """The evaluation the search uses: weighted features plus ceiling penalty; lower is
    better. `level` and `tap_interval` set the piece ranges' gravity and tap rate."""
    cdef Board b
    cdef Weights w
    _load_board(rows, &b)
    load_weights(weights, &w, tap_interval)
    return evaluate(&b, lines_cleared, burned, lock_height_total, landing_height_total, level,
                    &w)


def value_bound_py(rows, int orientation, int x, int y, weights, int lines_cleared=0,
                   int lock_height_total=0, double landing_height_total=0.0, int burned=0,
                   int level=19, int tap_interval=2):
    """value_bound + surface_rise on the board the piece at (x, y, orientation) leaves on
    `rows` (the caller's sums include it), or None if it completes a row there or has a
    cell in the hidden rows. Raises ValueError if the piece does not fit."""
    cdef Board b
    cdef Weights w
    cdef Tops before, after
    _load_board(rows, &b)
    if not 0 <= orientation < NES_ORIENTATIONS or not fits(&b, orientation, x, y):
        raise ValueError(f"orientation {orientation} does not fit at ({x}, {y})")
    load_weights(weights, &w, tap_interval)
    board_tops(&b, &before)
    if not tops_after(&b, &before, orientation, x, y, &after):
        return None
    return value_bound(&after, lines_cleared, burned, lock_height_total, landing_height_total,
                       level, &w) + surface_rise(&after, level, &w)


def evaluate_trace(rows, int lines_cleared, int lock_height_total, weights,
                   double landing_height_total=0.0, int burned=0, int level=19,
                   int tap_interval=2) -> list[tuple[str, float, float, float]]:
    """Every term of evaluate_py as (name, value, weight, weighted term).

    The rows are the features with a nonzero weight, in ALL_FEATURE_NAMES order. Then ("ceiling_penalty", sum of
    1 / distance to the ceiling, ceiling weight, penalty) and ("total", nan, nan,
    evaluate_py's result). The terms add up to the total up to floating-point rounding.
    """
    cdef Board b
    cdef Weights w
    cdef Features f
    _load_board(rows, &b)
    load_weights(weights, &w, tap_interval)
    if not uses_ranges(&w):
        load_reach_limits(&w, tap_interval)   # reach_features reads them below
    cdef const WeightSet* ws = weights_at(&w, level)
    cdef const double* ww = &ws.w[0]
    every_feature(&b, &w, level, ws.safe_height, &f)
    f.f[F_TOTAL_LINES_CLEARED] = lines_cleared
    f.f[F_TOTAL_LOCK_HEIGHT] = lock_height_total
    f.f[F_LANDING_HEIGHT] = landing_height_total
    f.f[F_BURNED_LINES] = burned
    trace = [(ALL_FEATURE_NAMES[i], f.f[i], ww[i], ww[i] * f.f[i])
             for i in range(ALL_FEATURE_COUNT) if ww[i] != 0.0]
    trace.append(("ceiling_penalty", ceiling_penalty(&b, 1.0), w.ceiling_weight,
                  ceiling_penalty(&b, w.ceiling_weight)))
    trace.append(("total", math.nan, math.nan,
                  evaluate(&b, lines_cleared, burned, lock_height_total, landing_height_total,
                           level, &w)))
    return trace


def format_trace(trace: list[tuple[str, float, float, float]]) -> str:
    """evaluate_trace's rows as an aligned text table."""
    lines = [f"{'feature':<30}{'value':>12}{'weight':>14}{'term':>14}"]
    for name, value, weight, term in trace:
        v = "" if math.isnan(value) else f"{value:.4g}"
        wt = "" if math.isnan(weight) else f"{weight:.6g}"
        lines.append(f"{name:<30}{v:>12}{wt:>14}{term:>14.4f}")
    return "\n".join(lines)


def blocks_spawn_py(rows) -> bool:
    """Rule 3: some piece could not spawn on this board."""
    cdef Board b
    _load_board(rows, &b)
    return blocks_spawn(&b)


def next_spawn_blocked_py(rows, int next_orientation, weights) -> bool:
    """Rule 3 on the board before a known next piece (False without the calming rules)."""
    cdef Board b
    cdef Weights w
    _load_board(rows, &b)
    load_weights(weights, &w)
    return next_spawn_blocked(&b, next_orientation, &w)


def touches_ceiling_py(rows) -> bool:
    """Rule 4's trigger: a filled cell in rows -2..1."""
    cdef Board b
    _load_board(rows, &b)
    return touches_ceiling(&b)


def has_tuck_spot_py(rows) -> bool:
    """A covered empty cell beside one open to the sky (board.has_tuck_spot): where the
    next piece's gamepad search can find what plain paths do not."""
    cdef Board b
    _load_board(rows, &b)
    return has_tuck_spot(&b)


def field_split_py(rows) -> bool:
    """Rule 4: no row with empty cells has all of them reachable from the spawn area."""
    cdef Board b
    _load_board(rows, &b)
    return field_split(&b)


def bench_evaluate(rows, long n, weights=None) -> float:
    """Seconds for n calls of the C evaluate on this board (weights default to all 1.0).

    Two copies of the board are used alternately so the compiler cannot hoist the work out
    of the loop.
    """
    cdef Board boards[2]
    cdef Weights w
    cdef long i
    cdef double sink = 0.0
    global _bench_sink
    _load_board(rows, &boards[0])
    boards[1] = boards[0]
    load_weights([1.0] * FEATURE_COUNT if weights is None else weights, &w)
    start = time.perf_counter()
    with nogil:
        for i in range(n):
            sink += evaluate(&boards[i & 1], <int>(i & 3), 0, 0, 0.0, 19, &w)
    elapsed = time.perf_counter() - start
    _bench_sink = sink
    return elapsed
