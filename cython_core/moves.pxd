# Move generation: breadth-first search over per-frame gamepad states, advanced only
# through rules.piece_frame (the shared frame step). It knows nothing of what a placement
# is worth: nesbot._core.planner judges them.
from libc.stdint cimport int8_t, int32_t, uint8_t, uint16_t, uint32_t, uint64_t
from nesbot._core.board cimport BOARD_ROWS, Board
from nesbot._core.rules cimport Piece

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
    int32_t same_place       # the node visited before it in the same place, or -1
    uint16_t frames          # input frames from the root

ctypedef struct Slot:
    # One visited-set entry: a place (the key, stored so a probe never touches the node
    # array) and the last node visited there, the head of their same_place chain.
    uint64_t key
    uint32_t stamp
    int32_t last

cdef enum:
    PLAIN_LEFTMOST = -2      # a piece's origin column reaches -2..11
    PLAIN_COLUMNS = 14
    WALK_ON = 0              # walk_frame's results
    WALK_LOCKED = 1          # there
    WALK_LOCKED_ELSEWHERE = -1
    WALK_BLOCKED = -2        # a shift or rotation was blocked

ctypedef struct PlainWalk:
    # plain_lock to one (orientation, column) as it goes on an empty board, for any board
    # that leaves `mask` empty (Searcher._plain_locks_cached says why that is exact).
    Piece end                # in place (outcome WALK_ON: it drops from here), or locked
    int8_t outcome           # WALK_ON: in place; WALK_LOCKED: locked there; else not reached
    uint8_t last_row         # the lowest board row (index) with a cell in `mask`
    uint16_t mask[BOARD_ROWS]  # every cell of every position its frames test successfully

ctypedef struct Columns:
    # A board by columns, for dropping pieces: bit r of filled[c] = board row r (row
    # r - BOARD_HIDDEN) of column c is filled; `top` = the first board row with a cell.
    uint32_t filled[10]
    int top

ctypedef struct PlainWalks:
    # Every plain_lock from one start (piece, held buttons, gravity), by turns from the
    # start's orientation, then column; key PLAIN_NO_KEY while unused.
    uint64_t key
    PlainWalk walks[4][PLAIN_COLUMNS]

ctypedef struct Placement:
    # A reachable lock: where the piece locks, and the node whose child locks it.
    int8_t x
    int8_t y
    uint8_t orientation
    int32_t node             # the last unlocked frame; pad `final_pad` on top of it locks;
                             # -1: a plain path's placement (write_pads runs it again)
    uint8_t final_pad
    uint16_t frames          # input frames including the locking one
    uint8_t hold_down_points  # soft-drop steps at the lock (points, see rules)
    uint16_t key_slot        # its slot in Searcher.placement_keys

cdef class Searcher:
    cdef InputModel model
    cdef Node* nodes                 # BFS queue and predecessor tree; capacity `capacity`
    cdef int32_t capacity
    cdef int32_t count
    cdef Slot* slots                 # open-addressing visited set over places (place_key)
    cdef int32_t place_count         # slots holding a place
    cdef uint32_t slot_mask          # slots in use - 1: grows with the search, <= max_slots
    cdef uint32_t max_slots          # allocated slots, a power of two >= 2 * capacity
    cdef uint32_t stamp              # a slot is used iff its stamp equals this (O(1) reset)
    cdef Placement* placements
    cdef int32_t placement_count
    cdef uint64_t* placement_keys    # (x, y, orientation) already found, for dedup
    cdef bint truncated              # the node capacity ran out (plain paths were added)
    cdef bint hold_shortcut          # idle_into_hold first (False: search every frame)
    cdef bint pad_in_place           # a node's pad is part of its place (place_key)
    cdef Board origin_board          # what the plain placements (node -1) start from
    cdef Piece origin
    cdef uint8_t origin_held
    cdef uint8_t origin_level
    cdef PlainWalks* plain_walks     # open-addressing table of starts' walks (PLAIN_WALK_SLOTS)
    cdef int plain_walk_count        # starts in it
    cdef uint32_t _slot_of(self, uint64_t key) noexcept nogil
    cdef bint _visit(self, const Node* n) noexcept nogil
    cdef void _clear_placements(self) noexcept nogil
    cdef void _reset_slots(self, uint32_t size) noexcept nogil
    cdef void _record(self, int32_t parent_index, uint16_t frames, const Piece* locked,
                      uint8_t pad) noexcept nogil
    cdef void search(self, const Board* board, const Piece* start, uint8_t held,
                     uint8_t level) noexcept nogil
    cdef void search_plain(self, const Board* board, const Piece* start,
                           uint8_t level) noexcept nogil
    cdef void _add_plain(self, const Board* board, const Piece* start, uint8_t held,
                         uint8_t level, bint lock_only=*) noexcept nogil
    cdef void _plain_locks_cached(self, const Board* board, const Columns* columns,
                                  const Piece* start, uint8_t held, uint8_t level, int turns,
                                  uint8_t o, Piece* locks, bint* reached) noexcept nogil
    cdef PlainWalks* _plain_walks_from(self, const Piece* start, uint8_t held,
                                       uint8_t level) noexcept nogil
    cdef void write_pads(self, const Placement* p, uint8_t* out) noexcept nogil
    cdef bytes placement_pads(self, const Placement* p)
    cdef list _found_with_pads(self)


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
# Where plain_path (with Down or without: the same place) locks, found without its frames:
# the same frames until the piece is in place, then straight down. True if it gets there;
# `locked`'s position is plain_path's, its timers are not.
cdef bint plain_lock(const Board* board, const Piece* start, uint8_t held, uint8_t level,
                     const InputModel* model, int8_t x, uint8_t orientation,
                     Piece* locked) noexcept nogil
