# The planner: the search chain judged by the evaluator and the lookahead
# (nesbot._core.planner); the reaction's blind play with its state is nesbot._core.blind.
from libc.stdint cimport uint8_t
from nesbot._core.board cimport Board
from nesbot._core.calming cimport Verdict
from nesbot._core.game cimport Game
from nesbot._core.learned cimport ValueModel
from nesbot._core.moves cimport PLAIN_PATH_MAX, Placement, Searcher
from nesbot._core.pieces cimport NES_CELLS
from nesbot._core.rules cimport Game as GameC, Piece, count_lines
from nesbot._core.weight_sets cimport Weights

cdef enum:
    MAX_WIDTH = 32                   # most candidates the lookahead may re-judge
    MAX_NEXT_WIDTH = 4               # most next-piece placements a first placement brings

ctypedef struct Chain:
    # Placements so far: what the lookahead weighs an unknown piece after.
    Board board                      # after their locks and line clears
    uint8_t level                    # after their lines
    uint8_t judged_at                # the level its boards are judged at: one for every
                                     # option of a choice (judged_level of the game the
                                     # piece is planned in), so that they all meet the
                                     # same weights and piece ranges, across a level-up too
    uint8_t lines[2]                 # their lines (BCD, as GameC.lines)
    int cleared                      # rows they cleared
    int burned                       # of them, rows cleared by non-Tetris clears
    int lock_height                  # their lock heights summed
    double landing                   # their landing heights summed


ctypedef struct Candidate:
    # A first placement with a placement of the next piece after it (its best, or with
    # Planner.next_width one of its best few).
    Chain chain                      # both pieces' (the first's alone if has_next is 0, or
                                     # for a blind plan)
    Verdict verdict                  # the pair's; the lookahead's expectation replaces value
    int first                        # index into Planner.first.placements
    Piece next_lock                  # where the next piece locks (unset if has_next is 0)
    bint has_next


ctypedef struct Branch:
    # Lookahead 2: a placement of the first unknown piece after a candidate.
    Chain chain
    double value                     # its one-piece evaluation
    bint vetoed                      # rules 3-4 on its board


cdef class Planner:
    cdef Searcher first
    cdef Searcher second
    cdef Searcher unknown            # placements of pieces not shown yet (plain paths)
    cdef Searcher further            # the second unknown piece's (lookahead 2)
    cdef Weights weights
    cdef bint plain_second           # the next piece's placements come from plain paths only
    cdef bint plain_first            # so do the current piece's (a cheap policy: playouts)
    cdef public int lookahead        # unknown pieces weighed after the known ones (0-2)
    cdef public int deep_width       # lookahead 2: the best candidates it re-judges
    cdef public int deep_branch      # lookahead 2: the first unknown piece's placements it
                                     # follows with the second (its best by one-piece value)
    cdef public int kill_deep_width  # the same two from level 29 (a row a frame: fewer
    cdef public int kill_deep_branch  # placements, and every one is chosen blind)
    # From level 29, of those the kill_third_width best (0: none) judged three unknown
    # pieces deep, following the first unknown piece's kill_third_branch best placements
    # and the second's kill_third_branch2 best.
    cdef public int kill_third_width
    cdef public int kill_third_branch
    cdef public int kill_third_branch2
    cdef public int width            # first placements the lookahead (and the next piece's
                                     # search) re-judge
    cdef public int next_width       # with a lookahead: each first placement's best pairs
                                     # (by the two known pieces) it re-judges (1: the best)
    cdef public bint bound_pruning   # the lookahead skips the unknown pieces' placements
                                     # whose value_bound shows they cannot count (True; the
                                     # same plans either way, False for tests)
    cdef public int premove          # choose_blind: blind candidates whose first `reaction`
                                     # frames are weighed as premoves (0: the best's alone)
    cdef public int reaction         # frames a premove covers
    cdef public bint hedge           # choose_blind with a reaction: send the piece where the
                                     # replan after `reaction` frames reaches most (_hedge)
    cdef int hedge_count             # the blind candidates _hedge weighs (before lookahead 2)
    cdef int hedge_first[MAX_WIDTH]  # their first.placements indices
    cdef double hedge_values[MAX_WIDTH][7]  # their value with each next piece type known
    cdef double odds[7][7]           # rules.transition_odds
    cdef Candidate candidates[MAX_WIDTH]   # the best first placements, best first
    cdef int candidate_count
    cdef public int nodes_searched   # nodes of the last plan's searches
    cdef public bint fallback_last   # the last plan's every option was vetoed (or dead)
    cdef public bint truncated_last  # a search of the last plan ran out of node capacity
    cdef public long fallbacks       # plans with fallback_last, since construction
    cdef public long truncations     # plans with truncated_last, since construction
    cdef uint8_t path[PLAIN_PATH_MAX]  # the chosen plain path (choose() sets path_length)
    cdef int path_length             # -1: no plain path, use the first search's path
    cdef Piece next_lock             # where the chosen pair locks the next piece
    cdef bint has_next_lock          # False when the chosen placement had no next placement
    # A learned value (nesbot._core.learned; None: none, the default): from its from_level
    # on, _commit subtracts its scale times each candidate board's value before choosing,
    # or with its at_leaves best_placement from each of the lookahead's last boards.
    cdef ValueModel learned
    cdef bint has_learned
    cdef void _search_first(self, const GameC* g) noexcept nogil
    cdef void _keep(self, const Candidate* c, int room) noexcept nogil
    cdef int _best_pairs(self, const GameC* g, const Piece* spawn, int a, bint searched,
                         uint8_t judged_at, Candidate* out, int room) noexcept nogil
    cdef double _expected_best(self, const Chain* chain, int before_type,
                               bint further, double* by_type) noexcept nogil
    cdef void _look_ahead(self, int before_type, bint hedge, int level) noexcept nogil
    cdef double _expected_deeper(self, const Chain* c, int before_type, int branch,
                                 int later_branch, int pieces) noexcept nogil
    cdef void _sort_candidates(self) noexcept nogil
    cdef void _look_deeper(self, int before_type, int level) noexcept nogil
    cdef int _commit(self, const GameC* g, Verdict* verdict) noexcept nogil
    # The best placement of the game's active piece (an index into first.placements), or
    # -1 if it has none; sets path/path_length, next_lock and *verdict. Never -1 while the
    # piece can lock somewhere: vetoed and dead-end pairs rank last but still count.
    cdef int choose(self, const GameC* g, Verdict* verdict) noexcept nogil
    cdef int chosen_pads(self, int best, uint8_t* out) noexcept nogil
    cdef object _result(self, int best, const Verdict* verdict)


cdef void check_pieces(Game game) except *


cdef inline double rank_price(int rank) noexcept nogil:
    # What an expectation over next pieces adds to a value for its calming rank (ranks are
    # compared before values in one plan, but an expectation needs one scale): the hedge's
    # values and a premove's replans.
    if rank == 0:
        return -1000.0
    if rank == 1:
        return -500.0
    if rank == 2:
        return 0.0
    if rank == 3:
        return 10000.0
    return 100000.0


cdef inline int lock_height(const Placement* p) noexcept nogil:
    # Height above the floor at which the piece locks: how far it would still fall on an
    # empty field, orientation kept.
    cdef int k, lowest = -2
    for k in range(4):
        if NES_CELLS[p.orientation][k][1] > lowest:
            lowest = NES_CELLS[p.orientation][k][1]
    return 19 - lowest - p.y


cdef inline double landing_height(const Placement* p) noexcept nogil:
    # El-Tetris's landing height: rows under the piece's lowest cell + (piece rows - 1) / 2.
    cdef int k, top = 2, bottom = -2
    for k in range(4):
        if NES_CELLS[p.orientation][k][1] < top:
            top = NES_CELLS[p.orientation][k][1]
        if NES_CELLS[p.orientation][k][1] > bottom:
            bottom = NES_CELLS[p.orientation][k][1]
    return lock_height(p) + (bottom - top) / 2.0


cdef inline uint8_t judged_level(const GameC* g) noexcept nogil:
    # The level every board of a choice is judged at: the one the game reaches with a
    # Tetris more (within four lines of a level-up, the next level's weights and ranges;
    # the game's own level alone made the last pieces before level 29 blind to the kill
    # screen's prices, which cost games at 30 Hz).
    cdef uint8_t level = g.level
    cdef uint8_t lines[2]
    lines[0] = g.lines[0]
    lines[1] = g.lines[1]
    count_lines(&level, lines, 4)
    return level
