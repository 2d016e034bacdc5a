# The calming rules (meatfighter-2018, Weights.calming) and the verdicts the search asks for.
# A verdict on a placement sequence is a rank, compared first, then a value (lower is better
# for both). The calming rules live here as ranks, so the search never applies a veto itself
# and nothing is ever thrown away: when every sequence is vetoed, the least bad vetoed one is
# still a move. Rule 2 (the ceiling penalty) is part of the value (evaluate.pxd).
#
# Error contract: everything here is `noexcept nogil`; no function can fail, and every
# function only reads the board.
from libc.stdint cimport uint8_t
from nesbot._core.board cimport Board
from nesbot._core.weight_sets cimport Weights

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


# Rule 3: some spawn orientation (NES_SPAWN_TABLE) does not fit at x = 5, y = 0.
cdef bint blocks_spawn(const Board* b) noexcept nogil

# Rule 4 trigger: a filled cell in rows -2..1 (the hidden rows and the rows spawns occupy).
cdef bint touches_ceiling(const Board* b) noexcept nogil

# Rule 4: the empty cells of rows 0..19 reachable (4-neighbour steps through empty cells,
# hidden rows not used) from the empty cells of row 0, columns 4-6, leave no row that still
# has an empty cell and all of whose empty cells are reachable. True = split for good.
cdef bint field_split(const Board* b) noexcept nogil
