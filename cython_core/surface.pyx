# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
"""The surface table's inner loop: value iteration over stack surfaces
(nesbot/evaluation/surface_builder.py).

A surface is the top of the stack in the columns left of the well (9 on the NES: column 9
is the Tetris well), written as the height difference of each neighbouring pair,
h[i+1] - h[i], clamped to [-3, 3]: 7 ** 8 = 5,764,801 surfaces. Its index is the base-7
number whose digit i (weight 7 ** i) is difference i + 3. A clamped difference is read back
as exactly +-3: that is the table's one approximation.

A placement is clean when it leaves no hole: each column the piece covers has its lowest
piece cell directly on that column's top, which holds exactly when the differences under
the piece equal the steps of the piece's underside. No underside step is steeper than 2, so a
clamped difference never takes part in that test. A clean placement raises each covered
column by its piece cells; the differences at the piece's edges and under it change by the
growth of their two columns. The piece never reaches the well, so no line is ever cleared.

The value of a surface (nesbot/evaluation/surface_builder.py says why these choices):

    V(s) = sum over piece types p of odds[p] * (1 + discount * max V(s')) over p's clean
           placements s' of s, or 0 when p has none.

`bellman_sweep` applies that once to a slice of the surfaces, reading the previous values
and writing the new ones, so processes can each sweep a slice of one iteration.
"""

from nesbot._core.pieces cimport NES_CELLS, NES_PIECE_TYPE
from nesbot._core.rules cimport transition_odds

cdef enum:
    MAX_COLUMNS = 9          # the surface's width on the NES: columns 0-8
    MIN_COLUMNS = 2          # one difference at least
    DIFF_LIMIT = 3           # differences are clamped to [-3, 3]
    DIFF_VALUES = 7          # 2 * DIFF_LIMIT + 1 digits
    PIECE_TYPES = 7          # T J Z O S L I = 0..6
    ORIENTATIONS = 19
    MAX_PLACEMENTS = 160     # 143 with 9 columns

ctypedef struct Placement:
    int piece                # T J Z O S L I = 0..6
    int orientation          # NES orientation ID, for tests
    int left                 # leftmost column the piece covers
    int width                # columns the piece covers, 1-4
    int need[3]              # difference left + j the piece's underside asks for
    int changes              # differences the placement changes, at most 5
    int change_at[5]         # which difference
    int change_by[5]         # by how much (before clamping)
    long change_step[5]      # 7 ** change_at: the digit's weight in the index

cdef int _placement_count(int columns, Placement* out) except -1:
    """Every clean-placement pattern on a surface `columns` wide, sorted by piece type."""
    cdef int piece, o, k, j, i, left, count = 0
    cdef int lo, hi, dx, height, width
    cdef int low[4]
    cdef int grow[4]
    cdef int top[4]
    for piece in range(PIECE_TYPES):
        for o in range(ORIENTATIONS):
            if NES_PIECE_TYPE[o] != piece:
                continue
            lo, hi = 9, -9
            for k in range(4):
                lo = min(lo, NES_CELLS[o][k][0])
                hi = max(hi, NES_CELLS[o][k][0])
            width = hi - lo + 1
            for j in range(4):
                low[j], top[j], grow[j] = 99, -99, 0
            for k in range(4):
                dx = NES_CELLS[o][k][0] - lo
                height = -NES_CELLS[o][k][1]  # +y is down on the NES, heights grow upwards
                low[dx] = min(low[dx], height)
                top[dx] = max(top[dx], height)
                grow[dx] += 1
            for j in range(width):
                if top[j] - low[j] + 1 != grow[j]:
                    raise ValueError(f"orientation {o} has a gap inside column {j}")
            for left in range(columns - width + 1):
                if count == MAX_PLACEMENTS:
                    raise ValueError("more placements than MAX_PLACEMENTS")
                out[count].piece = piece
                out[count].orientation = o
                out[count].left = left
                out[count].width = width
                for j in range(width - 1):
                    out[count].need[j] = low[j + 1] - low[j]
                out[count].changes = 0
                # Difference i is h[i + 1] - h[i]: it changes where a piece column meets
                # a column of different growth, from the one left of the piece to its right.
                for i in range(max(left - 1, 0), min(left + width, columns - 1)):
                    j = i - left
                    k = (grow[j + 1] if 0 <= j + 1 < width else 0) - (
                        grow[j] if 0 <= j < width else 0
                    )
                    if k != 0:
                        out[count].change_at[out[count].changes] = i
                        out[count].change_by[out[count].changes] = k
                        out[count].change_step[out[count].changes] = _weight(i)
                        out[count].changes += 1
                count += 1
    return count


cdef long _weight(int digit) noexcept nogil:
    """7 ** digit: a difference's weight in the index."""
    cdef long weight = 1
    cdef int _i
    for _i in range(digit):
        weight *= DIFF_VALUES
    return weight


cdef inline int _clamp(int diff) noexcept nogil:
    return -DIFF_LIMIT if diff < -DIFF_LIMIT else (DIFF_LIMIT if diff > DIFF_LIMIT else diff)


cdef long surface_index(const int* heights, int columns) noexcept nogil:
    cdef long index = 0, weight = 1
    cdef int i
    for i in range(columns - 1):
        index += (_clamp(heights[i + 1] - heights[i]) + DIFF_LIMIT) * weight
        weight *= DIFF_VALUES
    return index


cdef inline void _digits(long index, int diffs, int* d) noexcept nogil:
    """The differences of surface `index`."""
    cdef int i
    for i in range(diffs):
        d[i] = <int>(index % DIFF_VALUES) - DIFF_LIMIT
        index //= DIFF_VALUES


cdef inline long _after(const Placement* p, long index, const int* d) noexcept nogil:
    """The surface after placement `p` on surface `index` (differences `d`), or -1 if the
    placement would leave a hole."""
    cdef int j, i
    for j in range(p.width - 1):
        if d[p.left + j] != p.need[j]:
            return -1
    for j in range(p.changes):
        i = p.change_at[j]
        index += (_clamp(d[i] + p.change_by[j]) - d[i]) * p.change_step[j]
    return index


cdef double _sweep(
    const float[::1] values,
    float[::1] out,
    const double* odds,
    double discount,
    int diffs,
    const Placement* placements,
    int count,
    long start,
    long stop,
) noexcept nogil:
    cdef long s, after
    cdef int k, piece
    cdef int d[MAX_COLUMNS]
    cdef double best[PIECE_TYPES]
    cdef double total, change = 0.0
    for s in range(start, stop):
        _digits(s, diffs, d)
        for piece in range(PIECE_TYPES):
            best[piece] = -1.0
        for k in range(count):
            after = _after(&placements[k], s, d)
            if after >= 0 and values[after] > best[placements[k].piece]:
                best[placements[k].piece] = values[after]
        total = 0.0
        for piece in range(PIECE_TYPES):
            if best[piece] >= 0.0:
                total += odds[piece] * (1.0 + discount * best[piece])
        out[s] = <float>total
        change = max(change, abs(total - values[s]))
    return change


def _check_columns(int columns) -> None:
    if not MIN_COLUMNS <= columns <= MAX_COLUMNS:
        raise ValueError(f"columns must be {MIN_COLUMNS}-{MAX_COLUMNS}, not {columns}")


def surface_count(int columns=MAX_COLUMNS) -> int:
    """How many surfaces a stack `columns` wide has: 7 ** (columns - 1)."""
    _check_columns(columns)
    return DIFF_VALUES ** (columns - 1)


def encode(heights) -> int:
    """The index of the surface whose column heights are `heights` (clamping the differences)."""
    cdef int h[MAX_COLUMNS]
    cdef int i
    _check_columns(len(heights))
    for i in range(len(heights)):
        h[i] = heights[i]
    return surface_index(h, len(heights))


def decode(long index, int columns=MAX_COLUMNS) -> list[int]:
    """Column heights of surface `index`, the lowest column at height 0."""
    cdef int d[MAX_COLUMNS]
    cdef int i, height = 0
    _check_columns(columns)
    if not 0 <= index < DIFF_VALUES ** (columns - 1):
        raise ValueError(f"surface {index} is not one of a {columns}-column stack's")
    _digits(index, columns - 1, d)
    heights = [0]
    for i in range(columns - 1):
        height += d[i]
        heights.append(height)
    lowest = min(heights)
    return [h - lowest for h in heights]


def successors(long index, int piece, int columns=MAX_COLUMNS) -> list[tuple[int, int, int]]:
    """(orientation, leftmost column, surface after) of each clean placement of a piece
    type (T J Z O S L I = 0..6) on surface `index`."""
    cdef Placement placements[MAX_PLACEMENTS]
    cdef int d[MAX_COLUMNS]
    cdef int k, count
    cdef long after
    _check_columns(columns)
    count = _placement_count(columns, placements)
    _digits(index, columns - 1, d)
    found = []
    for k in range(count):
        if placements[k].piece == piece:
            after = _after(&placements[k], index, d)
            if after >= 0:
                found.append((placements[k].orientation, placements[k].left, after))
    return found


def picker_odds() -> list[list[float]]:
    """The NES picker's odds of the next piece type given the previous: [before][next]."""
    cdef double odds[7][7]
    transition_odds(odds)
    return [[odds[b][n] for n in range(PIECE_TYPES)] for b in range(PIECE_TYPES)]


def bellman_sweep(
    const float[::1] values,
    float[::1] out,
    const double[::1] odds,
    double discount,
    int columns,
    long start,
    long stop,
) -> float:
    """out[start:stop] = one value-iteration step from `values` (the whole table); returns
    the largest change |out[s] - values[s]| in the slice."""
    cdef Placement placements[MAX_PLACEMENTS]
    cdef int count
    cdef double change
    _check_columns(columns)
    if values.shape[0] != DIFF_VALUES ** (columns - 1) or out.shape[0] != values.shape[0]:
        raise ValueError("values and out must hold one value per surface")
    if odds.shape[0] != PIECE_TYPES:
        raise ValueError("odds must hold one probability per piece type")
    if not 0 <= start <= stop <= values.shape[0]:
        raise ValueError(f"slice {start}:{stop} is outside the table")
    count = _placement_count(columns, placements)
    with nogil:
        change = _sweep(values, out, &odds[0], discount, columns - 1, placements, count,
                        start, stop)
    return change
