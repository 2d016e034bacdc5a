# How far a game is from 999,999 before level 29, in lines: what a bot chasing the
# max-out may still spend on clears that are not Tetrises (docs/strength.md).
from nesbot._core.rules cimport Game

# The most lines (0..most) that can go to single clears, after which Tetrises alone still
# take the score to 999,999 before level 29 begins; `most` when that many can (a capped
# score always can), -1 when not even Tetrises from now on reach it (or level 29 began).
# Every clear is scored by the ROM's own arithmetic (rules.count_lines, rules.add_points),
# the one that crosses into level 29 counted in full, as the pre-29 figure counts it.
cdef int burn_slack(const Game* g, int most) noexcept nogil
