# The board evaluation: meatfighter's 17 features (meatfighter.com/nintendotetrisai), the
# features the other evaluators need (nesbot/evaluation/evaluators.py names their sources),
# their weighted sum (LOWER is better: a higher-is-better evaluator is stored negated), the
# ceiling penalty (calming rule 2) and the placement vetoes (rules 3, 4).
#
# Features are computed on playfield rows 0..19 only; rows -2 and -1 enter the ceiling
# penalty, blocks_spawn and touches_ceiling, nothing else. Heights count from the floor
# (a cell in row 19 has height 1, a column whose top cell is row r has height 20 - r).
#
# Error contract: everything here is `noexcept nogil`; no function can fail, and every
# function only reads the board. Full rows are allowed (features stay defined) although
# the search only evaluates boards after their line clears.
from libc.stdint cimport uint8_t
from nesbot._core.board cimport Board

# The feature slots F_<NAME> (indices into Features.f and Weights.w) and the counts that close
# each group (FEATURE_COUNT, SEED_FEATURE_COUNT, NES_FEATURE_END, REACH_FEATURE_END,
# ALL_FEATURE_COUNT), written by the build from the table in cython_core/features.py.
# "Scare" and "safe beside", the right-well features' heights per level, come from the piece
# ranges (nesbot._core.piece_ranges.well_heights).
include "features.pxi"

cdef enum:
    # Rows of stack (mean height beside the well) that levels 19-28 at 30 Hz play safely
    # under: every piece still reaches both walls over a flat stack of up to 15 rows there,
    # so 8 leaves room for bumps and a long wait for an I. Chosen on 200 tuning games
    # (seed 7000) among 8, 9 and 10. The default of Weights.safe_height.
    SAFE_STACK_HEIGHT = 8

cdef enum:
    CEILING_ROWS = 7                 # rule 2 penalises filled cells in rows 0..6 (and -2, -1)

cdef enum:
    REACH_LEVELS = 30                # levels 0-29 (29 on fall a row a frame)
    REACH_COLUMNS = 10

ctypedef struct Features:
    double f[ALL_FEATURE_COUNT]      # feature values, indexed by the F_ indices

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


# The 15 board features of indices 0..16 into out.f; out.f[F_TOTAL_LINES_CLEARED] and
# out.f[F_TOTAL_LOCK_HEIGHT] are set to 0 (the search knows them, the board does not).
cdef void board_features(const Board* b, Features* out) noexcept nogil

# The board features of indices 17..24 into out.f; out.f[F_LANDING_HEIGHT] is set to 0.
cdef void extra_features(const Board* b, Features* out) noexcept nogil

# The board features of indices 25..30 into out.f, from the board, its column tops and
# the stack's top row (`heights` and `top_row`, as column_heights in evaluate.pyx gives
# them; F_HIGH_STACK past `safe_height` rows); out.f[F_BURNED_LINES] is set to 0, and
# out.f[F_SURFACE_VALUE] too without `surface` or until the surface table is loaded
# (load_weights loads it for a nonzero weight).
cdef void nes_features(const Board* b, const int* heights, int top_row, double safe_height,
                       bint surface, Features* out) noexcept nogil

# The piece-range features (indices 31..32) into out.f, from the column tops with w's
# limits at `level`.
cdef void reach_features(const int* heights, const Weights* w, int level,
                         Features* out) noexcept nogil

# The right-well features (REACH_FEATURE_END..ALL_FEATURE_COUNT - 1) into out.f, from the
# board, its column tops, the stack's top row (as for nes_features) and w's heights at
# `level`.
cdef void well_features(const Board* b, const int* heights, int top_row, const Weights* w,
                        int level, Features* out) noexcept nogil

# The set that judges a position at `level`.
cdef inline const WeightSet* weights_at(const Weights* w, int level) noexcept nogil:
    if w.kill and level >= w.kill_level:
        return &w.kill_set
    if w.fast and level >= w.fast_level:
        return &w.fast_set
    return &w.base

# Weighted sum of the features plus the ceiling penalty; lower is better. The caller
# knows the placements: lines cleared, lines burned (cleared by non-Tetris clears), the
# pieces' lock and landing heights, each summed over the placements, and the level the
# pieces after them fall at (the piece-range features' gravity).
cdef double evaluate(const Board* b, int lines_cleared, int burned, int lock_height_total,
                     double landing_height_total, int level, const Weights* w) noexcept nogil

# Rule 2 alone: ceiling_weight / max(r + 1, 1) summed over filled cells of rows -2..6.
cdef double ceiling_penalty(const Board* b, double ceiling_weight) noexcept nogil

# Rule 3: some spawn orientation (NES_SPAWN_TABLE) does not fit at x = 5, y = 0.
cdef bint blocks_spawn(const Board* b) noexcept nogil

# Rule 4 trigger: a filled cell in rows -2..1 (the hidden rows and the rows spawns occupy).
cdef bint touches_ceiling(const Board* b) noexcept nogil

# Rule 4: the empty cells of rows 0..19 reachable (4-neighbour steps through empty cells,
# hidden rows not used) from the empty cells of row 0, columns 4-6, leave no row that still
# has an empty cell and all of whose empty cells are reachable. True = split for good.
cdef bint field_split(const Board* b) noexcept nogil

# The thin Python layer: fill `w` from a weights object (see evaluate.pyx's docstring),
# with the piece-range limits of `tap_interval`; raises ValueError for a wrong shape.
cdef int load_weights(object weights, Weights* w, int tap_interval=*) except -1


# ---------------------------------------------------------------- verdicts
# What the search asks the evaluator about a placement sequence: a rank, compared first,
# then a value (lower is better for both). The calming rules (meatfighter-2018, Weights.calming)
# live here as ranks, so the search never applies a veto itself and nothing is ever thrown
# away: when every sequence is vetoed, the least bad vetoed one is still a move.
cdef enum:
    RANK_TETRIS_NOW = 0      # rule 1: the current piece makes a Tetris
    RANK_TETRIS_NEXT = 1     # rule 1: the next piece makes one
    RANK_PLAIN = 2           # no rule applies (always, without the calming rules)
    RANK_VETOED = 3          # rule 3 (a spawn blocked) or rule 4 (the field split for good)
    RANK_NO_NEXT = 4         # the next piece has no placement at all: the game ends

ctypedef struct Verdict:
    int rank                 # a RANK_ value
    double value             # the weighted evaluation (or an expectation of it)

cdef inline bint better(const Verdict* a, const Verdict* b) noexcept nogil:
    return a.rank < b.rank or (a.rank == b.rank and a.value < b.value)

# Rule 3 on the board the current piece leaves: the known next piece could not spawn.
cdef bint next_spawn_blocked(const Board* b, uint8_t next_orientation,
                             const Weights* w) noexcept nogil

# The verdict on the board two placements leave. `first_vetoed`: next_spawn_blocked on the
# board between them; `lock_height_total` and `landing_height_total` sum both pieces'.
cdef Verdict judge_pair(const Board* b, int cleared1, int cleared2, int lock_height_total,
                        double landing_height_total, bint first_vetoed, int level,
                        const Weights* w) noexcept nogil

# The verdict on the board one placement leaves when the next piece is not known yet.
cdef Verdict judge_one(const Board* b, int cleared, int lock_height, double landing_height,
                       int level, const Weights* w) noexcept nogil

# The verdict when the next piece has no placement on the board the current one leaves.
cdef Verdict judge_dead_end(const Board* b, int cleared, int lock_height,
                            double landing_height, int level, const Weights* w) noexcept nogil

# Rules 3-4 on a board that an unknown piece will follow (any of the seven must spawn).
cdef bint board_vetoed(const Board* b, const Weights* w) noexcept nogil


# Lines burned by a clear of `cleared` rows: all of them unless it is a Tetris.
cdef inline int burned_lines(int cleared) noexcept nogil:
    return 0 if cleared == 4 else cleared


# ---------------------------------------------------------------- bounds
# A lower bound on evaluate() from a board's column tops and cell counts alone, which a
# placement that clears no line changes in a few columns: the lookahead skips the
# placements whose bound is no better than the best it has (planner.pyx), and decides as
# if it had evaluated them.
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
