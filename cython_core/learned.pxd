# A learned value of a board (nesbot._core.learned): a sum of table entries over the board's
# column heights, their neighbouring pairs, its holes and the lines left to its goal level
# (39, or 29 for the stack before it; an n-tuple network), in thousands of line-clear points
# to come. The planner judges its boards by it too from its level on (Planner.value_model:
# its final candidates, or the lookahead's last boards); nesbot/bot/value_model.py reads
# and writes its file, scripts/learned/train_value.py trains it.
from nesbot._core.board cimport Board
from nesbot._core.bound cimport Tops

cdef enum:
    VM_COLUMNS = 10
    VM_HEIGHTS = 21                  # a column's height 0-20
    VM_PAIR = 16                     # heights 0-15 (more: 15) in the pair tables
    VM_HOLES = 16                    # holes 0-15
    VM_LEFT = 21                     # lines left to the goal level, in fives: 0-20
    VM_OFF_HEIGHT = 0                                       # 10 x 21
    VM_OFF_PAIR = VM_OFF_HEIGHT + VM_COLUMNS * VM_HEIGHTS   # 9 x 16 x 16
    VM_OFF_WALL = VM_OFF_PAIR + 9 * VM_PAIR * VM_PAIR       # 2 x 16 x 16: a wall's column
                                                            # and the middle's highest
    VM_OFF_HOLES = VM_OFF_WALL + 2 * VM_PAIR * VM_PAIR
    VM_OFF_MAX = VM_OFF_HOLES + VM_HOLES                    # the highest column
    VM_OFF_LEFT = VM_OFF_MAX + VM_HEIGHTS
    VM_OFF_BIAS = VM_OFF_LEFT + VM_LEFT
    VM_SIZE = VM_OFF_BIAS + 1
    VM_ACTIVE = VM_COLUMNS + 9 + 2 + 4     # table entries a board reads


cdef int value_features(const Board* b, int lines_left, int* out) noexcept nogil
cdef int lines_to(int goal_level, int level, const unsigned char* lines) noexcept nogil


cdef class ValueModel:
    cdef double table[VM_SIZE]
    cdef public int from_level       # the planner uses it from this level on
    cdef public double scale         # evaluation units a thousand points are worth
    cdef public bint at_leaves       # judge the lookahead's last boards, not re-rank choices
    cdef public int goal_level       # the level whose lines left it reads
    cdef int lines_left(self, int level, const unsigned char* lines) noexcept nogil
    cdef double value(self, const Board* b, int lines_left) noexcept nogil
    # The same from a board's column tops and cells (bound.Tops: holes are the cells below
    # the tops not filled), for the pruning bound: the same value as value() of that board.
    cdef double tops_value(self, const Tops* t, int lines_left) noexcept nogil
    cdef double _sum(self, const int* indices) noexcept nogil
