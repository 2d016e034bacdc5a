# Move generation: breadth-first search over per-frame gamepad states, advanced only
# through rules.piece_frame (the shared frame step), and the two-piece search chain.
from libc.stdint cimport int8_t, int32_t, uint8_t, uint16_t, uint32_t, uint64_t
from nesbot._core.board cimport Board
from nesbot._core.evaluate cimport Verdict, Weights
from nesbot._core.rules cimport Game as GameC, Piece

ctypedef struct InputModel:
    uint8_t tap_interval     # frames between presses of one button: 2 = 30 Hz ... 6 = 10 Hz
    bint shift_and_rotate    # Left/Right and A/B may be newly pressed on the same frame
    bint hold_shift          # Left/Right may stay held (DAS auto-shift)
    bint soft_drop           # Down may be held (soft drop)
    bint one_button          # at most one of L, R, A, B down per frame (meatfighter's model)

ctypedef struct Node:
    # One gamepad state on one frame: the piece after the frame, and the buttons of it.
    Piece piece
    uint8_t pad              # buttons of this frame (they are next frame's "held")
    uint8_t wait[4]          # frames until Left, Right, A, B may be newly pressed again
    int32_t parent           # index of the previous frame's node, -1 for the root
    uint16_t frames          # input frames from the root

ctypedef struct Slot:
    # One visited-set entry; the key is stored so a probe never touches the node array.
    uint64_t key
    uint32_t stamp

ctypedef struct Placement:
    # A reachable lock: where the piece locks, and the node whose child locks it.
    int8_t x
    int8_t y
    uint8_t orientation
    int32_t node             # the last unlocked frame; pad `final_pad` on top of it locks;
                             # -1: a plain path's placement (write_pads runs it again)
    uint8_t final_pad
    uint16_t frames          # input frames including the locking one
    uint8_t hold_down_points # soft-drop steps at the lock (points, see rules)

cdef class Searcher:
    cdef InputModel model
    cdef Node* nodes                 # BFS queue and predecessor tree; capacity `capacity`
    cdef int32_t capacity
    cdef int32_t count
    cdef Slot* slots                 # open-addressing visited set over node keys
    cdef uint32_t slot_mask          # slots in use - 1: grows with the search, <= max_slots
    cdef uint32_t max_slots          # allocated slots, a power of two >= 2 * capacity
    cdef uint32_t stamp              # a slot is used iff its stamp equals this (O(1) reset)
    cdef Placement* placements
    cdef int32_t placement_count
    cdef uint64_t* placement_keys    # (x, y, orientation) already found, for dedup
    cdef bint truncated              # the node capacity ran out (plain paths were added)
    cdef Board origin_board          # what the plain placements (node -1) start from
    cdef Piece origin
    cdef uint8_t origin_held
    cdef uint8_t origin_level
    cdef uint32_t _slot_of(self, uint64_t key) noexcept nogil
    cdef bint _visit(self, const Node* n) noexcept nogil
    cdef void _clear_placements(self) noexcept nogil
    cdef void _reset_slots(self, uint32_t size) noexcept nogil
    cdef void _record(self, const Node* parent, int32_t parent_index, const Piece* locked,
                      uint8_t pad) noexcept nogil
    cdef void search(self, const Board* board, const Piece* start, uint8_t held,
                     uint8_t level) noexcept nogil
    cdef void search_plain(self, const Board* board, const Piece* start,
                           uint8_t level) noexcept nogil
    cdef void _add_plain(self, const Board* board, const Piece* start, uint8_t held,
                         uint8_t level) noexcept nogil
    cdef void write_pads(self, const Placement* p, uint8_t* out) noexcept nogil
    cdef bytes placement_pads(self, const Placement* p)


# The plain way from `start` to (x, orientation): each frame, press the rotation (A or B,
# whichever needs fewer turns) and the shift toward x as soon as the input model allows,
# then nothing (or Down held, with `finish_down`) until the lock. Writes the pads of every
# frame, the locking one last, to `pads` (if not NULL, room for PLAIN_PATH_MAX) and the
# locked piece to `locked`. Returns the frame count, or -1 if a rotation or shift is
# blocked, the piece locks before it gets there, or the path would exceed PLAIN_PATH_MAX.
cdef enum:
    PLAIN_PATH_MAX = 2048     # level 0: 48 frames a row, about 1,000 frames to the floor
cdef int plain_path(const Board* board, const Piece* start, uint8_t held, uint8_t level,
                    const InputModel* model, int8_t x, uint8_t orientation, bint finish_down,
                    uint8_t* pads, Piece* locked) noexcept nogil


cdef enum:
    MAX_WIDTH = 32                   # most candidates the lookahead may re-judge

ctypedef struct Chain:
    # Placements so far: what the lookahead weighs an unknown piece after.
    Board board                      # after their locks and line clears
    uint8_t level                    # after their lines
    uint8_t lines[2]                 # their lines (BCD, as GameC.lines)
    int cleared                      # rows they cleared
    int burned                       # of them, rows cleared by non-Tetris clears
    int lock_height                  # their lock heights summed
    double landing                   # their landing heights summed


ctypedef struct Candidate:
    # A first placement with the best placement of the next piece after it.
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
    cdef public int width            # first placements the lookahead (and the next piece's
                                     # search) re-judge
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
    cdef void _search_first(self, const GameC* g) noexcept nogil
    cdef void _keep(self, const Candidate* c, int room) noexcept nogil
    cdef void _best_pair(self, const GameC* g, const Piece* spawn, int a, bint searched,
                         Candidate* out) noexcept nogil
    cdef double _expected_best(self, const Chain* chain, int before_type,
                               bint further, double* by_type) noexcept nogil
    cdef void _look_ahead(self, int before_type, bint hedge) noexcept nogil
    cdef double _expected_deeper(self, const Chain* c, int before_type) noexcept nogil
    cdef void _look_deeper(self, int before_type) noexcept nogil
    cdef int _commit(self, const GameC* g, Verdict* verdict) noexcept nogil
    # choose() without the next piece (--reaction): each of the `width` best first
    # placements by one-piece verdict is judged by the expected best placement of the
    # piece the picker draws after the current one; the path holds no Down in the first
    # `reaction` frames, and _hedge or _choose_premove may choose those frames instead.
    cdef int choose_blind(self, const GameC* g, Verdict* verdict) noexcept nogil
    cdef int _choose_premove(self, const GameC* g, int best, Verdict* verdict) noexcept nogil
    cdef double _premove_value(self, const GameC* after) noexcept nogil
    cdef int _hedge(self, const GameC* g, int best) noexcept nogil
    cdef int _wait_window(self, int best) noexcept nogil
    cdef int _head_toward(self, const GameC* g, int x, int orientation) noexcept nogil
    cdef double _hedge_value(self, const GameC* after, int best, bint committed) noexcept nogil
    # The best placement of the game's active piece (an index into first.placements), or
    # -1 if it has none; sets path/path_length, next_lock and *verdict. Never -1 while the
    # piece can lock somewhere: vetoed and dead-end pairs rank last but still count.
    cdef int choose(self, const GameC* g, Verdict* verdict) noexcept nogil
    cdef int chosen_pads(self, int best, uint8_t* out) noexcept nogil
    cdef object _result(self, int best, const Verdict* verdict)
