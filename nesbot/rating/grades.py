"""Grades: a placement's expected points lost against the best, on documented cut-offs.

The cut-offs are points at levels 18-19 (a burned line there costs about 4,000 points of
the pre-29 game, a Tetris is worth 22,800-24,000); at other levels they scale with what a
line is worth, level + 1 (docs/rating.md).
"""

from nesbot._core.pieces import KILL_SCREEN_LEVEL

BEST = "best"
# (grade, points lost below which it applies, at level 18)
CUT_OFFS = (("good", 1_500), ("inaccuracy", 5_000), ("mistake", 15_000))
WORST = "blunder"
GRADES = (BEST, *(name for name, _ in CUT_OFFS), WORST)
REFERENCE_LEVEL = 18


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


def is_accurate(grade_name: str) -> bool:
    """What the accuracy figure counts: the best placement or one within "good"."""
    return grade_name in (BEST, CUT_OFFS[0][0])
