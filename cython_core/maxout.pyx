"""How far a game is from 999,999 before level 29, in lines (maxout.pxd)."""

from nesbot._core.game cimport Game as GameObject
from nesbot._core.pieces cimport LEVEL_ONE_FRAME_ROWS as LEVEL_29
from nesbot._core.rules cimport Game, add_points, count_lines


cdef inline bint capped(const Game* g) noexcept nogil:
    return g.score[0] == 0x99 and g.score[1] == 0x99 and g.score[2] == 0x99


cdef bint reaches_cap(const Game* g, int singles) noexcept nogil:
    """`singles` single clears, then Tetrises: does the score reach 999,999 while every
    clear begins below level 29?"""
    cdef Game t = g[0]
    cdef int clears = 0
    t.piece.hold_down_points = 0
    while not capped(&t):
        if t.level >= LEVEL_29:
            return False
        t.completed_lines = 1 if clears < singles else 4
        count_lines(&t.level, t.lines, t.completed_lines)
        add_points(&t)
        clears += 1
    return True


cdef int burn_slack(const Game* g, int most) noexcept nogil:
    cdef int singles
    if not reaches_cap(g, 0):
        return -1
    for singles in range(1, most + 1):
        if not reaches_cap(g, singles):
            return singles - 1
    return most


def burn_slack_of(GameObject game not None, int most) -> int:
    """burn_slack of a Game (for tests and tools)."""
    return burn_slack(&game.g, most)
