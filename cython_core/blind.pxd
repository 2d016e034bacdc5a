# The reaction's blind play (nesbot._core.blind): the Planner's choice before its next
# piece may be seen.
from nesbot._core.calming cimport Verdict
from nesbot._core.planner cimport Planner
from nesbot._core.rules cimport Game as GameC

# choose() without the next piece (--reaction): each of the `width` best first placements
# by one-piece verdict is judged by the expected best placement of the piece the picker
# draws after the current one; the path holds no Down in the first `reaction` frames, and
# the hedge or a premove may choose those frames instead. Sets the planner's path as
# choose() does; returns the placement's index in first.placements, or -1.
cdef int choose_blind(Planner planner, const GameC* g, Verdict* verdict) noexcept nogil
