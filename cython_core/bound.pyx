# cython: language_level=3
"""The pruning bound (see bound.pxd): no more than evaluate() of any board with the given
column tops and sums, from the column tops' features alone (column_tops.pxd, the same
functions as evaluate's), so that the lookahead can skip a placement without its board.
"""

from libc.math cimport INFINITY

from nesbot._core.board cimport (
    BOARD_HIDDEN,
    FIELD_ROWS,
    FULL_ROW,
    STACK_COLUMNS,
    WIDTH,
    Board,
    popcount,
)
from nesbot._core.column_tops cimport (
    column_heights,
    column_top_features,
    nes_top_features,
    reach_features,
    well_top_features,
)
from nesbot._core.evaluate cimport surface_max, surface_value
from nesbot._core.feature_slots cimport *
from nesbot._core.pieces cimport NES_CELLS, NES_ORIENTATIONS
from nesbot._core.weight_sets cimport WeightSet, Weights, weights_at


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
    return weight * surface_max() if weight < 0.0 else 0.0


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
        nes_top_features(t.heights, ws.safe_height, &feat)
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
