# cython: language_level=3
"""Weights into the core (see weight_sets.pxd): a weights object into the C weight sets the
evaluation, the bound and the calming rules read.

`weights` is 17 floats (meatfighter's features) or one per ALL_FEATURE_NAMES, with the
ceiling weight as one more float last (else DEFAULT_CEILING_WEIGHT; calming rules on), or
an object with `as_vector()` (one float per ALL_FEATURE_NAMES), `ceiling` and optionally
`calming` (nesbot.evaluation.weights.Weights, nesbot.evaluation.evaluators.Evaluator); such
an object's `kill_screen_vector()`, if it gives a list, weighs the positions from level 29
on (or its `kill_screen_from_level`), with high_stack counted from
`kill_screen_safe_stack_height`, and its `fast_levels_vector()` (with
`fast_levels_from_level` and `fast_levels_safe_stack_height`) those from that level until
then. Anything else raises ValueError. The piece-range features depend on the tap rate too:
load_weights takes `tap_interval`.
"""

from libc.math cimport INFINITY

from nesbot._core.board cimport FIELD_ROWS
from nesbot._core.evaluate cimport is_column_feature, use_surface_table
from nesbot._core.feature_slots cimport *
from nesbot._core.pieces cimport LEVEL_ONE_FRAME_ROWS

DEFAULT_CEILING_WEIGHT: float = 1000.0
DEFAULT_SAFE_STACK_HEIGHT: float = float(SAFE_STACK_HEIGHT)


cdef int load_weights(object weights, Weights* w, int tap_interval=2) except -1:
    # See the module docstring for what `weights` may be.
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
