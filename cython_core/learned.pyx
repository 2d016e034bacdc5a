"""A learned value of a board: what the line clears still to come are worth, in thousands of
points, as a sum of table entries read off the board (an n-tuple network over the surface).

The tables: each column's height (0-20); each neighbouring pair's heights (0-15 each); each
wall's column with the highest of columns 2-7 (0-15 each: a tower the slow taps cannot get
round); the holes (covered empty cells, 0-15); the highest column; the lines left to the
model's goal level in fives (39; 29 for a model of the stack before it, where past level 29
it reads 0); a constant. A board reads VM_ACTIVE entries, so a value costs about as much as
one feature group of the evaluation. From `from_level` the planner subtracts `scale` times
it (Planner.value_model) either from each of its final candidates' values before it chooses
(the tables say which of the few placements the search ranks best keeps most points to
come), or, `at_leaves`, from the value of every board the lookahead's last unknown piece
leaves (the search then steers toward what the tables value).
"""

from libc.math cimport isfinite

from nesbot._core.board cimport Board
from nesbot._core.bound cimport Tops, board_tops
from nesbot._core.game cimport Game

import numpy as np

SIZE = VM_SIZE
ACTIVE = VM_ACTIVE
# The tables in file order: (name, offset, shape), nesbot/bot/value_model.py's layout.
LAYOUT = (
    ("height", VM_OFF_HEIGHT, (VM_COLUMNS, VM_HEIGHTS)),
    ("pair", VM_OFF_PAIR, (9, VM_PAIR, VM_PAIR)),
    ("wall", VM_OFF_WALL, (2, VM_PAIR, VM_PAIR)),
    ("holes", VM_OFF_HOLES, (VM_HOLES,)),
    ("highest", VM_OFF_MAX, (VM_HEIGHTS,)),
    ("lines_left", VM_OFF_LEFT, (VM_LEFT,)),
    ("bias", VM_OFF_BIAS, (1,)),
)


cdef inline int clamp(int x, int high) noexcept nogil:
    return 0 if x < 0 else (high if x > high else x)


cdef int lines_to(int goal_level, int level, const unsigned char* lines) noexcept nogil:
    """Lines left to `goal_level` (0 once there) for a game past its first level-up (a
    level every 10 lines; before it, more than the table's last bucket anyway): lines is
    BCD, little-endian (GameC.lines)."""
    cdef int ones = lines[0] & 0x0F
    return clamp((goal_level - level) * 10 - ones, 1000)


cdef int value_features(const Board* b, int lines_left, int* out) noexcept nogil:
    """The VM_ACTIVE table indices the board reads, into out; returns VM_ACTIVE."""
    cdef Tops tops
    board_tops(b, &tops)
    return tops_indices(&tops, lines_left, out)


cdef int tops_indices(const Tops* t, int lines_left, int* out) noexcept nogil:
    """value_features from a board's column tops and cells (bound.board_tops): every cell
    below a column's top that is not filled is a hole."""
    cdef int c, holes = -t.cells
    for c in range(VM_COLUMNS):
        holes += t.heights[c]
    return surface_indices(t.heights, holes, lines_left, out)


cdef int surface_indices(const int* heights, int holes, int lines_left,
                         int* out) noexcept nogil:
    """value_features from the column heights (rows from the floor) and the holes."""
    cdef int c, highest = 0, middle = 0, n = 0
    for c in range(VM_COLUMNS):
        out[n] = VM_OFF_HEIGHT + c * VM_HEIGHTS + heights[c]
        n += 1
        if heights[c] > highest:
            highest = heights[c]
        if 2 <= c <= 7 and heights[c] > middle:
            middle = heights[c]
    for c in range(9):
        out[n] = (VM_OFF_PAIR + c * VM_PAIR * VM_PAIR + clamp(heights[c], VM_PAIR - 1) * VM_PAIR
                  + clamp(heights[c + 1], VM_PAIR - 1))
        n += 1
    middle = clamp(middle, VM_PAIR - 1)
    out[n] = VM_OFF_WALL + clamp(heights[0], VM_PAIR - 1) * VM_PAIR + middle
    out[n + 1] = VM_OFF_WALL + VM_PAIR * VM_PAIR + clamp(heights[9], VM_PAIR - 1) * VM_PAIR + middle
    out[n + 2] = VM_OFF_HOLES + clamp(holes, VM_HOLES - 1)
    out[n + 3] = VM_OFF_MAX + highest
    out[n + 4] = VM_OFF_LEFT + clamp(lines_left // 5, VM_LEFT - 1)
    out[n + 5] = VM_OFF_BIAS
    return n + 6


def game_features(Game game not None, int goal_level=39) -> np.ndarray:
    """The table indices the game's board reads (with its lines left to `goal_level`): what
    training fits. int32, VM_ACTIVE of them."""
    cdef int out[VM_ACTIVE]
    cdef int k
    value_features(&game.g.board, lines_to(goal_level, game.g.level, game.g.lines), out)
    return np.array([out[k] for k in range(VM_ACTIVE)], dtype=np.int32)


cdef class ValueModel:
    """The tables (VM_SIZE doubles in LAYOUT order), the level the planner uses them from,
    the evaluation units a thousand points of value are worth there, and the level whose
    lines left the tables read."""

    def __init__(self, table, int from_level=29, double scale=1.0, bint at_leaves=False,
                 int goal_level=39):
        cdef double[::1] values = np.ascontiguousarray(table, dtype=np.float64)
        cdef int k
        if values.shape[0] != VM_SIZE:
            raise ValueError(f"a value model has {VM_SIZE} numbers, not {values.shape[0]}")
        if not isfinite(scale) or scale < 0:
            raise ValueError(f"a value model's scale must be a finite number >= 0, not {scale}")
        for k in range(VM_SIZE):
            if not isfinite(values[k]):
                raise ValueError(f"a value model's number {k} is not finite")
            self.table[k] = values[k]
        self.from_level = from_level
        self.scale = scale
        self.at_leaves = at_leaves
        self.goal_level = goal_level

    cdef int lines_left(self, int level, const unsigned char* lines) noexcept nogil:
        return lines_to(self.goal_level, level, lines)

    cdef double value(self, const Board* b, int lines_left) noexcept nogil:
        cdef int out[VM_ACTIVE]
        value_features(b, lines_left, out)
        return self._sum(out)

    cdef double tops_value(self, const Tops* t, int lines_left) noexcept nogil:
        cdef int out[VM_ACTIVE]
        tops_indices(t, lines_left, out)
        return self._sum(out)

    cdef double _sum(self, const int* indices) noexcept nogil:
        cdef int k
        cdef double total = 0.0
        for k in range(VM_ACTIVE):
            total += self.table[indices[k]]
        return total

    def game_value(self, Game game not None) -> float:
        """The value of the game's board (thousands of points to come)."""
        return self.value(&game.g.board, self.lines_left(game.g.level, game.g.lines))

    def table_array(self) -> np.ndarray:
        """A copy of the tables."""
        return np.array([self.table[k] for k in range(VM_SIZE)], dtype=np.float64)
