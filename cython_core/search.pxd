# Move generation: breadth-first search over per-frame gamepad states, advanced only
# through rules.piece_frame (the shared frame step), and the two-piece search chain.
from libc.stdint cimport int8_t, int32_t, uint8_t, uint16_t, uint32_t, uint64_t
from cython_core.board cimport Board
from cython_core.evaluate cimport Weights
from cython_core.rules cimport Piece

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

ctypedef struct Placement:
    # A reachable lock: where the piece locks, and the node whose child locks it.
    int8_t x
    int8_t y
    uint8_t orientation
    int32_t node             # the last unlocked frame; pad `final_pad` on top of it locks
    uint8_t final_pad
    uint16_t frames          # input frames including the locking one
    uint8_t hold_down_points # soft-drop steps at the lock (points, see rules)

cdef class Searcher:
    cdef InputModel model
    cdef Node* nodes                 # BFS queue and predecessor tree; capacity `capacity`
    cdef int32_t capacity
    cdef int32_t count
    cdef int32_t* slots              # open-addressing hash table of node indices
    cdef uint32_t* stamps            # slot valid iff stamps[i] == stamp (O(1) reset)
    cdef uint32_t slot_mask
    cdef uint32_t stamp
    cdef Placement* placements
    cdef int32_t placement_count
    cdef uint64_t* placement_keys    # (x, y, orientation) already found, for dedup
    cdef bint truncated              # the node capacity ran out
    cdef bint _visit(self, const Node* n) noexcept nogil
    cdef void _record(self, const Node* parent, int32_t parent_index, const Piece* locked,
                      uint8_t pad) noexcept nogil
    cdef void search(self, const Board* board, const Piece* start, uint8_t held,
                     uint8_t level) noexcept nogil
    cdef bytes placement_pads(self, const Placement* p)
