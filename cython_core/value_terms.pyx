# cython: language_level=3
"""The value's terms from Python (see value_terms.pxd): every feature of a board, and every
term of evaluate's sum with its weight, for `nesbot explain` and the rater.

`rows` is 22 masks (rows -2..19) or 20 masks (rows 0..19, hidden rows empty), each
0..0x3FF; `weights` anything load_weights takes (nesbot._core.weight_sets). The piece-range
features depend on the level and the tap rate too: the functions take `level` and
`tap_interval`. They raise ValueError for anything else.
"""

import math

from libc.string cimport memset

from nesbot._core.board cimport BOARD_HIDDEN, BOARD_ROWS, FIELD_ROWS, FULL_ROW, WIDTH, Board
from nesbot._core.column_tops cimport column_heights, reach_features
from nesbot._core.evaluate cimport (
    board_features,
    ceiling_penalty,
    evaluate,
    extra_features,
    nes_features,
    use_surface_table,
    well_features,
)
from nesbot._core.feature_slots cimport *
from nesbot._core.features import ALL_FEATURE_NAMES  # the table the F_ slots come from
from nesbot._core.weight_sets cimport (
    SAFE_STACK_HEIGHT,
    WeightSet,
    Weights,
    load_reach_limits,
    load_weights,
    uses_ranges,
    weights_at,
)


cdef int load_board(object rows, Board* b) except -1:
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


cdef void every_feature(const Board* b, const Weights* w, int level, double safe_height,
                        Features* f) noexcept nogil:
    cdef int heights[WIDTH]
    cdef int top_row
    board_features(b, f)
    extra_features(b, f)
    top_row = column_heights(b, heights)
    nes_features(b, heights, top_row, safe_height, True, f)
    reach_features(heights, w, level, f)
    well_features(b, heights, top_row, w, level, f)


def all_features_py(rows, int level=19, int tap_interval=2) -> list[float]:
    """All features in ALL_FEATURE_NAMES order, the piece ranges' at `level` and
    `tap_interval`; the caller-known ones (lines cleared and burned, lock height, landing
    height) are 0."""
    cdef Board b
    cdef Features f
    cdef Weights w
    load_board(rows, &b)
    use_surface_table()
    load_reach_limits(&w, tap_interval)
    every_feature(&b, &w, level, SAFE_STACK_HEIGHT, &f)
    return [f.f[i] for i in range(ALL_FEATURE_COUNT)]


def evaluate_trace(rows, int lines_cleared, int lock_height_total, weights,
                   double landing_height_total=0.0, int burned=0, int level=19,
                   int tap_interval=2) -> list[tuple[str, float, float, float]]:
    """Every term of the value the search uses (evaluate) as (name, value, weight, weighted
    term).

    The rows are the features with a nonzero weight, in ALL_FEATURE_NAMES order. Then
    ("ceiling_penalty", sum of 1 / distance to the ceiling, ceiling weight, penalty) and
    ("total", nan, nan, the value). The terms add up to the total up to floating-point rounding.
    """
    cdef Board b
    cdef Weights w
    cdef Features f
    load_board(rows, &b)
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
