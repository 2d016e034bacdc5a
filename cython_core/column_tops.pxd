# The features of a board's column tops alone (heights in rows from the floor, as
# column_heights gives them): the evaluation's (evaluate.pyx) and the pruning bound's
# (bound.pyx). Inline here so that both hot paths compile them in, as they did when one
# module held both.
#
# Error contract: everything here is `noexcept nogil` and only reads its inputs.
cimport cython
from libc.stdint cimport uint64_t
from libc.string cimport memcpy

from nesbot._core.board cimport BOARD_HIDDEN, FIELD_ROWS, FULL_ROW, WIDTH, Board, lowest_bit
from nesbot._core.feature_slots cimport *
from nesbot._core.rules cimport SPAWN_X
from nesbot._core.weight_sets cimport REACH_LEVELS, Weights


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


cdef inline void column_top_features(const int* heights, Features* out) noexcept nogil:
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


cdef inline int nes_top_features(const int* heights, double safe_height,
                                 Features* out) noexcept nogil:
    # nes_features' features of the column tops alone (column 9's height, high_stack; the
    # surface table's value is nes_features' own); returns the lowest column (the rightmost
    # of the lowest).
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
    return well


cdef inline void reach_features(const int* heights, const Weights* w, int level,
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
cdef inline void well_top_features(const int* heights, const Weights* w, int level,
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
