"""The colours the ROM draws a board in: three block tiles, two colours a level, and which
piece locks in which tile; and the board of every rated placement in those tiles.

Measured on nes-py's screen (tests/test_report.py checks every level against it): the ROM
draws a locked cell as tile $7B (white, framed in the level's dark colour: T, O, I), $7C
(the light colour: Z, L) or $7D (the dark colour: J, S), each with a white glint in its
top-left corner. The level's pair repeats every 10 levels; from level 138 the ROM reads
its colours from past its table, and a board there is drawn in level mod 10's.
"""

from collections.abc import Sequence

from nesbot._core.pieces import ORIENTATION_CELLS
from nesbot.rating.rater import PieceRating

WHITE = "#FCFCFC"
# (light, dark) for levels 0-9: tile $7C's colour and tile $7D's (and $7B's frame).
LEVEL_COLOURS: tuple[tuple[str, str], ...] = (
    ("#3CBCFC", "#0058F8"),
    ("#B8F818", "#00A800"),
    ("#F878F8", "#D800CC"),
    ("#58D854", "#0058F8"),
    ("#58F898", "#E40058"),
    ("#6888FC", "#58F898"),
    ("#7C7C7C", "#F83800"),
    ("#A80020", "#6844FC"),
    ("#F83800", "#0058F8"),
    ("#FCA044", "#F83800"),
)
# A board's cell: "0" empty, "1" tile $7B, "2" tile $7C, "3" tile $7D.
EMPTY, FRAMED, LIGHT, DARK = "0", "1", "2", "3"
PIECE_TILE = {"T": FRAMED, "O": FRAMED, "I": FRAMED, "Z": LIGHT, "L": LIGHT, "J": DARK, "S": DARK}


def level_colours(level: int) -> tuple[str, str]:
    """The (light, dark) colours the ROM draws `level`'s pieces in."""
    return LEVEL_COLOURS[level % 10]


def piece_cells(place: tuple[int, int, int]) -> list[tuple[int, int]]:
    """The (row, column) cells a piece locked at `place` covers on the 20 visible rows."""
    x, y, orientation = place
    cells = [(y + dy, x + dx) for dx, dy in ORIENTATION_CELLS[orientation]]
    return [(row, column) for row, column in cells if 0 <= row < 20]


def tiled_boards(ratings: Sequence[PieceRating]) -> list[str]:
    """Each placement's board as 200 tiles (row by row, top row first), in the tiles of the
    pieces that filled its cells: the game is followed lock by lock, and each board taken
    as the rating read it (a cell no followed lock filled, such as one under a piece left
    unrated, is drawn as tile $7B)."""
    tiles = [EMPTY] * 200
    boards = []
    for rating in ratings:
        for row, mask in enumerate(rating.board):
            for column in range(10):
                cell = row * 10 + column
                filled = mask >> column & 1
                tiles[cell] = (tiles[cell] if tiles[cell] != EMPTY else FRAMED) if filled else EMPTY
        boards.append("".join(tiles))
        for row, column in piece_cells(rating.player):
            tiles[row * 10 + column] = PIECE_TILE[rating.piece]
        kept = [tiles[r * 10 : r * 10 + 10] for r in range(20)]
        kept = [line for line in kept if EMPTY in line]
        tiles = [EMPTY] * (200 - 10 * len(kept)) + [tile for line in kept for tile in line]
    return boards
