# cython: language_level=3
"""The evaluation's C functions one call at a time, for the tests and benchmarks (nothing in
nesbot imports this module): the board features, the ready rows, the ceiling penalty, the
value, the bound and the calming rules' vetoes on one board, and the value's speed.

`rows` and `weights` as nesbot._core.value_terms takes them.
"""

import time

from nesbot._core.board cimport WIDTH, Board, fits, has_tuck_spot
from nesbot._core.bound cimport Tops, board_tops, surface_rise, tops_after, value_bound
from nesbot._core.calming cimport blocks_spawn, field_split, next_spawn_blocked, touches_ceiling
from nesbot._core.column_tops cimport column_heights
from nesbot._core.evaluate cimport board_features, ceiling_penalty, evaluate, ready_rows
from nesbot._core.feature_slots cimport FEATURE_COUNT, Features
from nesbot._core.pieces cimport NES_ORIENTATIONS
from nesbot._core.value_terms cimport load_board
from nesbot._core.weight_sets cimport Weights, load_weights

from nesbot._core.weight_sets import DEFAULT_CEILING_WEIGHT

_bench_sink = 0.0


def board_features_py(rows) -> list[float]:
    """The 17 features in nesbot._core.features.FEATURE_NAMES order; the first two
    (caller-known) are 0."""
    cdef Board b
    cdef Features f
    load_board(rows, &b)
    board_features(&b, &f)
    return [f.f[i] for i in range(FEATURE_COUNT)]


def ready_rows_py(rows) -> int:
    """The rows just above column 9's top that are full but for it (4 make the board
    Tetris-ready): the evaluator's count, for the scripts that tell boards apart by it."""
    cdef Board b
    cdef int heights[WIDTH]
    load_board(rows, &b)
    column_heights(&b, heights)
    return ready_rows(&b, heights[WIDTH - 1])


def ceiling_penalty_py(rows, double ceiling_weight=DEFAULT_CEILING_WEIGHT) -> float:
    """Rule 2's penalty alone for a board."""
    cdef Board b
    load_board(rows, &b)
    return ceiling_penalty(&b, ceiling_weight)


def evaluate_py(rows, int lines_cleared, int lock_height_total, weights,
                double landing_height_total=0.0, int burned=0, int level=19,
                int tap_interval=2) -> float:
    """The evaluation the search uses: weighted features plus ceiling penalty; lower is
    better. `level` and `tap_interval` set the piece ranges' gravity and tap rate."""
    cdef Board b
    cdef Weights w
    load_board(rows, &b)
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
    load_board(rows, &b)
    if not 0 <= orientation < NES_ORIENTATIONS or not fits(&b, orientation, x, y):
        raise ValueError(f"orientation {orientation} does not fit at ({x}, {y})")
    load_weights(weights, &w, tap_interval)
    board_tops(&b, &before)
    if not tops_after(&b, &before, orientation, x, y, &after):
        return None
    return value_bound(&after, lines_cleared, burned, lock_height_total, landing_height_total,
                       level, &w) + surface_rise(&after, level, &w)


def blocks_spawn_py(rows) -> bool:
    """Rule 3: some piece could not spawn on this board."""
    cdef Board b
    load_board(rows, &b)
    return blocks_spawn(&b)


def next_spawn_blocked_py(rows, int next_orientation, weights) -> bool:
    """Rule 3 on the board before a known next piece (False without the calming rules)."""
    cdef Board b
    cdef Weights w
    load_board(rows, &b)
    load_weights(weights, &w)
    return next_spawn_blocked(&b, next_orientation, &w)


def touches_ceiling_py(rows) -> bool:
    """Rule 4's trigger: a filled cell in rows -2..1."""
    cdef Board b
    load_board(rows, &b)
    return touches_ceiling(&b)


def has_tuck_spot_py(rows) -> bool:
    """A covered empty cell beside one open to the sky (board.has_tuck_spot): where the
    next piece's gamepad search can find what plain paths do not."""
    cdef Board b
    load_board(rows, &b)
    return has_tuck_spot(&b)


def field_split_py(rows) -> bool:
    """Rule 4: no row with empty cells has all of them reachable from the spawn area."""
    cdef Board b
    load_board(rows, &b)
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
    load_board(rows, &boards[0])
    boards[1] = boards[0]
    load_weights([1.0] * FEATURE_COUNT if weights is None else weights, &w)
    start = time.perf_counter()
    with nogil:
        for i in range(n):
            sink += evaluate(&boards[i & 1], <int>(i & 3), 0, 0, 0.0, 19, &w)
    elapsed = time.perf_counter() - start
    _bench_sink = sink
    return elapsed
