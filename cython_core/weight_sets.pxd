# Weights as the core reads them: weight sets (a weight per feature slot, and the feature
# groups each set weighs, so that evaluate computes only those), the sets that take over from
# a level on, the ceiling penalty's scale, the calming switch and the piece-range limits.
# load_weights fills them from Python (weight_sets.pyx says what it takes).
#
# Error contract: load_weights and load_reach_limits are the thin Python layer (`except -1`,
# ValueError for a wrong shape); the rest is `noexcept nogil` and only reads.
from nesbot._core.feature_slots cimport ALL_FEATURE_COUNT

cdef enum:
    # Rows of stack (mean height beside the well) that levels 19-28 at 30 Hz play safely
    # under: every piece still reaches both walls over a flat stack of up to 15 rows there,
    # so 8 leaves room for bumps and a long wait for an I. Chosen on 200 tuning games
    # (seed 7000) among 8, 9 and 10. The default of Weights.safe_height.
    SAFE_STACK_HEIGHT = 8

cdef enum:
    REACH_LEVELS = 30                # levels 0-29 (29 on fall a row a frame)
    REACH_COLUMNS = 10

ctypedef struct WeightSet:
    double w[ALL_FEATURE_COUNT]      # one weight per feature, indexed by the F_ indices
    double safe_height               # F_HIGH_STACK counts the stack's rows above this
    # The feature groups this set weighs; evaluate computes only those.
    bint board                       # some w[2..16] is nonzero: compute those features
    bint columns_only                # ... and only features of the column tops and holes
                                     # (is_column_feature): those alone, from column_heights
    bint extra                       # some w[17..24] but well_sums is nonzero: compute them
    bint wells                       # w[F_WELL_SUMS] is nonzero: compute it (with them or alone)
    bint nes                         # some w[25..30] is nonzero: compute those too
    bint surface                     # w[F_SURFACE_VALUE] is nonzero: read the surface table
    bint reach                       # some w[31..32] is nonzero: compute those too
    bint well                        # some w[REACH_FEATURE_END..] is nonzero: compute those too
    # value_bound: the least the weighted features it does not compute can add, and
    # whether that is finite (no unbounded feature weighed negatively, ceiling weight >= 0)
    double rest_min
    bint bounded

ctypedef struct Weights:
    WeightSet base                   # the weights and their groups
    double ceiling_weight            # rule 2 scale: a cell in row r < 7 costs this / (r + 1)
    bint calming                     # the search applies rules 1, 3 and 4 (meatfighter-2018)
    # the piece-range limits (nesbot._core.piece_ranges.reach_limits) for the planner's tap rate,
    # in rows of stack per level and column; filled when either set weighs reach or well
    signed char reach_pass[REACH_LEVELS][REACH_COLUMNS]
    signed char reach_enter[REACH_LEVELS][REACH_COLUMNS]
    # the right-well features' heights per level, from those limits; filled with them
    double scare_height[REACH_LEVELS]
    double beside_well_height[REACH_LEVELS]
    # From level 29 on (a row a frame), or from `kill_level` (an approach that lowers the
    # stack before it), a second set may weigh the positions (`kill`): the kill screen's
    # weights, high_stack height and groups
    WeightSet kill_set
    int kill_level
    bint kill
    # From `fast_level` (19: a row every two frames) until the kill set, a third may
    # (`fast`): the fast levels' weights, high_stack height and groups
    WeightSet fast_set
    int fast_level
    bint fast


# The set that judges a position at `level`.
cdef inline const WeightSet* weights_at(const Weights* w, int level) noexcept nogil:
    if w.kill and level >= w.kill_level:
        return &w.kill_set
    if w.fast and level >= w.fast_level:
        return &w.fast_set
    return &w.base

# Fill `w` from a weights object (see weight_sets.pyx's docstring), with the piece-range
# limits of `tap_interval`; raises ValueError for a wrong shape.
cdef int load_weights(object weights, Weights* w, int tap_interval=*) except -1

# Some set of w weighs the piece ranges or the right well's heights made from them.
cdef bint uses_ranges(const Weights* w) noexcept

# The piece-range limits of `tap_interval`, and the right-well heights made from them, into w.
cdef int load_reach_limits(Weights* w, int tap_interval) except -1
