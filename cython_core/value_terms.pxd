# The value's terms from Python: a board from row masks, and every feature of it (evaluate
# computes only the groups some weight needs), for `nesbot explain`, the rater and the tests.
from nesbot._core.board cimport Board
from nesbot._core.feature_slots cimport Features
from nesbot._core.weight_sets cimport Weights

# `rows` (22 masks, rows -2..19, or 20, rows 0..19) into b; ValueError for another shape or
# a mask outside 0..0x3FF.
cdef int load_board(object rows, Board* b) except -1

# Every feature of the board into f; the caller-known ones are left for the caller. `w`
# gives the piece ranges' limits.
cdef void every_feature(const Board* b, const Weights* w, int level, double safe_height,
                        Features* f) noexcept nogil
