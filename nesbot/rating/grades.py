"""Grades: a placement's expected points lost against the best, on documented cut-offs.

The cut-offs are points at levels 18-19 (a burned line there costs about 4,000 points of
the pre-29 game, a Tetris is worth 22,800-24,000); at other levels they scale with what a
line is worth, level + 1 (docs/rating.md).

A game's accuracy is on points too, so that a few disasters count for what they cost: one
minus the points its placements lost, as a share of what an all-Tetris game scores over as
many placements at the same levels.
"""

from collections.abc import Iterable

from nesbot._core.pieces import KILL_SCREEN_LEVEL

BEST = "best"
# (grade, points lost below which it applies, at level 18)
CUT_OFFS = (("good", 1_500), ("inaccuracy", 5_000), ("mistake", 15_000))
WORST = "blunder"
GRADES = (BEST, *(name for name, _ in CUT_OFFS), WORST)
REFERENCE_LEVEL = 18
TETRIS_POINTS_PER_LINE = 300  # 1,200 x (level + 1) for 4 lines
LINES_PER_PLACEMENT = 0.4  # a piece is 4 cells, a line 10


def scale(level: int) -> float:
    """Points scale with level + 1 (line clears are worth base x (level + 1)); levels past
    29 are rated as 29, the speed that decides them."""
    return (min(level, KILL_SCREEN_LEVEL) + 1) / (REFERENCE_LEVEL + 1)


def grade(points_lost: float | None, level: int) -> str:
    """The grade of a placement that loses `points_lost` (None: the best placement)."""
    if points_lost is None:
        return BEST
    for name, below in CUT_OFFS:
        if points_lost < below * scale(level):
            return name
    return WORST


def is_best_or_good(grade_name: str) -> bool:
    """The best placement or one within "good" (the share players compare elsewhere)."""
    return grade_name in (BEST, CUT_OFFS[0][0])


def tetris_points_per_placement(level: int) -> float:
    """What an all-Tetris game scores a placement at `level` (levels past 29 as 29)."""
    return TETRIS_POINTS_PER_LINE * LINES_PER_PLACEMENT * (min(level, KILL_SCREEN_LEVEL) + 1)


def accuracy(placements: Iterable[tuple[float | None, int]]) -> float | None:
    """A game's accuracy from its placements' (points lost, level): 1 - lost / what an
    all-Tetris game scores over them, 0 at worst; None for no placements."""
    lost = reference = 0.0
    for points_lost, level in placements:
        lost += points_lost or 0.0
        reference += tetris_points_per_placement(level)
    return max(0.0, 1.0 - lost / reference) if reference else None
