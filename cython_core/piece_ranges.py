"""What a stack lets the long bar reach at a level's gravity and the bot's tap rate.

A vertical I tapped from spawn (column 5) toward a wall as fast as the planner taps falls a
few rows with every shift, so a tall enough column on its way stops it, and at level 29
(a row a frame) much sooner than at 19. The limits below are measured with the gamepad
search's plain paths (nesbot._core.moves, which steps the one frame rule; the bot's
gamepad, a shift and a rotation on one frame allowed), on a board with one column built up
at a time: no rule is written twice.

A board's column tops then decide reachability without a search: a column c is reachable
when no column strictly between spawn and c stands above its pass limit and c stands no
higher than its enter limit. Each column only meets the piece at the rows it falls through
while over that column, so the limits of different columns do not interact; a test checks
this against the search on many stacks. The evaluator's features unreachable_columns and
reach_excess (cython_core/evaluate.pyx) read these tables, as StackRabbit's piece ranges
bound its killscreen play.
"""

from functools import cache

from nesbot._core.game import Game
from nesbot._core.moves import Searcher

SPAWN_COLUMN = 5
WIDTH = 10
HEIGHT = 20
LEVELS = 30  # levels 0-29; every level from 29 on falls a row a frame, as 29 does
I_VERTICAL = 0x11
I_SPAWN = 0x12
ANY_NEXT = 0x02  # the next piece does not change where this one can go


def _reaches(searcher: Searcher, level: int, column: int, height: int, target: int) -> bool:
    """Whether a vertical I reaches `target` on a board whose only cells are `column`
    filled from the floor to `height` rows."""
    rows = [0] * HEIGHT
    for r in range(HEIGHT - height, HEIGHT):
        rows[r] = 1 << column
    game = Game.spawned(rows, I_SPAWN, ANY_NEXT, level)
    return any(
        x == target and orientation == I_VERTICAL
        for x, _y, orientation in searcher.plain_placements_of(game)
    )


def _highest(searcher: Searcher, level: int, column: int, target: int) -> int:
    """The tallest `column` (0-20 rows) past which a vertical I still reaches `target`;
    -1 when it cannot even on an empty board. Taller never helps, so a bisection does."""
    if not _reaches(searcher, level, column, 0, target):
        return -1
    low, high = 0, HEIGHT + 1  # reaches at low; fails at high (21 rows cannot exist)
    while high - low > 1:
        middle = (low + high) // 2
        if middle <= HEIGHT and _reaches(searcher, level, column, middle, target):
            low = middle
        else:
            high = middle
    return low


@cache
def reach_limits(tap_interval: int = 2) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """(pass, enter) limits per level 0-29 and column, in rows of stack.

    pass[level][c]: the tallest column c past which a vertical I tapped every
    `tap_interval` frames still reaches the next column outward (plain paths shift as
    early as they can, so every trip further out shifts out of c at that same frame); for
    the walls and the spawn column, the same as enter. enter[level][c]: the tallest column
    c on which the vertical I can still land. -1: not even on an empty board.
    """
    searcher = Searcher(tap_interval)
    passes, enters = [], []
    for level in range(LEVELS):
        enter = tuple(_highest(searcher, level, c, c) for c in range(WIDTH))
        through = tuple(
            enter[c]
            if c in (0, SPAWN_COLUMN, WIDTH - 1)
            else _highest(searcher, level, c, c - 1 if c < SPAWN_COLUMN else c + 1)
            for c in range(WIDTH)
        )
        passes.append(through)
        enters.append(enter)
    return tuple(passes), tuple(enters)


@cache
def well_heights(tap_interval: int = 2) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """(scare, beside) per level 0-29, in rows: the heights the right-well features
    (cython_core/evaluate.pyx) measure the stack against, from the pass limits as
    StackRabbit derives its scare heights from its piece ranges: halfway between a fixed
    height (6 and 8 rows) and a margin (3 and 5 rows) under what a vertical I still passes
    on its way to the left wall (columns 0-4) and to the well (columns 6-8). At 30 Hz:
    9.5 and 9.5 rows at level 18, 8.5 and 9 at 19-28, 6.5 and 7.5 at 29."""
    passes, _ = reach_limits(tap_interval)
    scare = tuple(0.5 * (min(p[:SPAWN_COLUMN]) - 3) + 3.0 for p in passes)
    beside = tuple(0.5 * (min(p[SPAWN_COLUMN + 1 : WIDTH - 1]) - 5) + 4.0 for p in passes)
    return scare, beside


def reachable_columns(heights: list[int], level: int, tap_interval: int = 2) -> list[bool]:
    """Per column, whether a vertical I can reach it over these column tops (heights in
    rows from the floor) at `level`, by the tables alone (what the evaluator computes)."""
    passes, enters = reach_limits(tap_interval)
    through, enter = passes[min(level, LEVELS - 1)], enters[min(level, LEVELS - 1)]
    result = []
    for c in range(WIDTH):
        step = 1 if c > SPAWN_COLUMN else -1
        between = range(SPAWN_COLUMN + step, c, step) if c != SPAWN_COLUMN else range(0)
        result.append(heights[c] <= enter[c] and all(heights[j] <= through[j] for j in between))
    return result
