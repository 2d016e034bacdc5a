"""Reading one picture of the game: the board, the next piece, lines, score and level, each
with how sure the reading is.

Everything is read against what the user's own ROM draws (nothing of Nintendo's screen
ships with nesbot): its digit and letter tiles, its next box for each piece, and the table
it draws the level from. A picture is read through its brightest colour channel, which
every level's palette makes bright for pieces and digits whatever a capture did to their
hue, and relative to the picture's own black and white (measured on the screen's
landmarks), so a capture's brightness, contrast and gamma matter little.

* A cell is filled when its middle (a 3 x 3 grid of NES pixels 2-6 of its 8) is brighter
  than black plus a quarter of the way to white; its confidence grows with the distance
  from that threshold (1 at a quarter of the range or more).
* A counter's tile is the ROM tile its samples correlate with best (a normalised
  correlation, so blur and contrast matter little), among the tiles the ROM can draw
  there; its confidence is the margin over the next best tile (1 at 0.1 or more). A tile
  that correlates under 0.5 with every candidate, or that two candidates match equally,
  is unreadable and the counter is None.
* The ROM draws a counter's digits from its BCD bytes: lines' hundreds and score's hundred
  thousands go on past 9 as the letters A-F, and from level 30 on the level's two
  characters come from the bytes after the ROM's level table (level 144 draws "96"); the
  same characters come back at other levels, so `level` is the first level that draws
  them and `level_text` what the screen shows.
"""

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from nesbot._core.pieces import PIECE_NAMES, PIECE_TYPE, SPAWN_TABLE
from nesbot.nes import ram
from nesbot.nes.emulator import Emulator
from nesbot.nes.menus import GameSetup, start_game
from nesbot.nes.rom import Rom
from nesbot.nes.screen_layout import CELL, COLUMNS, PLAYFIELD_LEFT, PLAYFIELD_TOP, ROWS
from nesbot.rating.geometry import CHANGING, Geometry

# Where the ROM writes its counters, in 8x8 tiles of the 256x240 picture: (column, row,
# digits). Measured on nes-py's screen with the ROM's digit tiles (tests/test_screen.py).
LINES_DIGITS = (19, 3, 3)
SCORE_DIGITS = (24, 8, 6)
LEVEL_DIGITS = (26, 21, 2)
NEXT_BOX = (188, 116, 40, 24)  # x, y, width, height of the next piece's box, in NES pixels
FILLED_SHARE = 0.25  # a cell brighter than black + this share of (white - black) is filled
READABLE = 0.5  # a tile correlating under this with every candidate is unreadable
SURE_MARGIN = 0.1  # a tile's margin over the next candidate at which its confidence is 1
HEX = "0123456789ABCDEF"
# The ROM's level table: levels 0-29 as BCD bytes; the ROM reads on past it for level 30+.
LEVEL_TABLE_START = bytes(int(str(level), 16) for level in range(30))


class Samples(Protocol):
    """A picture the reader samples: max(R, G, B), 0-255, at frame pixels (ys, xs)."""

    def bright(self, ys: np.ndarray, xs: np.ndarray) -> np.ndarray: ...


class RgbPicture:
    """An RGB (or greyscale) array as the reader samples it."""

    def __init__(self, rgb: np.ndarray) -> None:
        grey = rgb.max(axis=2) if rgb.ndim == 3 else rgb
        self.grey = np.asarray(grey, np.float32)
        self.height, self.width = self.grey.shape

    def bright(self, ys: np.ndarray, xs: np.ndarray) -> np.ndarray:
        return self.grey[np.clip(ys, 0, self.height - 1), np.clip(xs, 0, self.width - 1)]


@dataclass(frozen=True)
class RomPictures:
    """What the reader reads against, all drawn from the user's ROM: its game screen at a
    game's start (the brightest channel, 240 x 256), its tiles 0-F (16 x 8 x 8, 1 = ink),
    the next box's picture for each piece (filled pixels), and the two characters it draws
    for each level 0-255."""

    screen: np.ndarray
    glyphs: np.ndarray
    next_boxes: dict[int, np.ndarray]
    level_texts: tuple[str, ...]


def rom_pictures(rom: Rom) -> RomPictures:
    """Boot the ROM on nes-py to a game's first piece; the next box is drawn for each piece
    by setting RAM's next piece for a frame."""
    x, y, width, height = NEXT_BOX
    boxes = {}
    with Emulator(rom.path) as emu:
        start_game(emu, GameSetup(level=0), align=False)
        for _ in range(3):  # the counters and the first piece show
            emu.step(0)
        screen = np.asarray(emu.screen.max(axis=2))
        start = emu.save_state()
        for piece in SPAWN_TABLE:
            emu.load_state(start)
            emu.ram[ram.NEXT_PIECE] = piece
            emu.step(0)
            emu.step(0)
            boxes[piece] = np.asarray(emu.screen.max(axis=2))[y : y + height, x : x + width] > 64
    return RomPictures(screen, rom_tiles(rom), boxes, level_texts(rom))


def rom_tiles(rom: Rom) -> np.ndarray:
    """The ROM's tiles 0-F (its digits, then the letters A-F), 16 x 8 x 8, 1.0 = ink, from
    its first pattern table."""
    data = np.frombuffer(rom.data, np.uint8)
    chr_start = 16 + int(data[4]) * 16384
    tiles = data[chr_start : chr_start + 16 * 16].reshape(16, 2, 8)
    low, high = np.unpackbits(tiles[:, 0], axis=1), np.unpackbits(tiles[:, 1], axis=1)
    return (low | high).reshape(16, 8, 8).astype(np.float32)


def level_texts(rom: Rom) -> tuple[str, ...]:
    """The two characters the ROM draws for each level 0-255: the byte of its level table
    at that level, as two hexadecimal digits (levels 0-29 in decimal)."""
    start = rom.data.find(LEVEL_TABLE_START)
    if start < 0:  # not this game's ROM as nesbot knows it: levels 0-29 alone
        return tuple(f"{level:02d}" for level in range(30))
    return tuple(f"{byte:02X}" for byte in rom.data[start : start + 256])


@dataclass(frozen=True)
class ScreenReading:
    """What one picture shows: the board (20 rows of 10, True = filled), the counters and
    the next piece's letter (None where unreadable), where the picture was found, and a
    confidence per field, 0-1."""

    board: np.ndarray
    lines: int | None
    score: int | None
    level: int | None
    level_text: str | None
    next: str | None
    geometry: Geometry
    confidence: dict[str, float] = field(default_factory=dict)

    def board_rows(self) -> list[str]:
        """The board as 20 strings of 10 cells, X filled, . empty."""
        return ["".join("X" if cell else "." for cell in row) for row in self.board]

    def as_json(self) -> dict[str, object]:
        """The reading as JSON values (read-screen --json)."""
        g = self.geometry
        return {
            "board": self.board_rows(),
            "lines": self.lines,
            "score": self.score,
            "level": self.level,
            "level_text": self.level_text,
            "next": self.next,
            "geometry": {
                "left": round(g.left, 2),
                "top": round(g.top, 2),
                "sx": round(g.sx, 4),
                "sy": round(g.sy, 4),
                "match": round(g.match, 3),
            },
            "confidence": {name: round(value, 3) for name, value in self.confidence.items()},
        }


class FrameReader:
    """Reads the board and the counters of pictures whose NES picture lies at `geometry`;
    `parity` 0 or 1 reads one field only (the lines of that parity)."""

    def __init__(self, geometry: Geometry, rom: RomPictures, parity: int | None = None) -> None:
        self.geometry = geometry
        self.rom = rom
        self.parity = parity
        x, y, width, height = NEXT_BOX
        self._box_points = (
            self._y(y + np.arange(height) + 0.5)[:, None],
            self._x(x + np.arange(width) + 0.5)[None, :],
        )
        # Each cell's middle: a 3 x 3 grid of NES pixels 2-6 of its 8, in video pixels.
        offsets = np.array([2.5, 4.0, 5.5])
        cell_x = self._x(PLAYFIELD_LEFT + CELL * np.arange(COLUMNS)[:, None] + offsets[None, :])
        cell_y = self._y(PLAYFIELD_TOP + CELL * np.arange(ROWS)[:, None] + offsets[None, :])
        # [row, column, i, j]: the sample (i, j) of the cell
        self._cell_points = (cell_y[:, None, :, None], cell_x[None, :, None, :])
        self._digits = {
            name: self._digit_points(*where)
            for name, where in (
                ("lines", LINES_DIGITS),
                ("score", SCORE_DIGITS),
                ("level", LEVEL_DIGITS),
            )
        }
        self._levels: dict[str, int] = {}
        for level, text in enumerate(rom.level_texts):
            self._levels.setdefault(text, level)
        self._level_texts = list(self._levels)
        self._level_glyphs = np.array([[HEX.index(c) for c in text] for text in self._levels])
        glyphs = rom.glyphs - rom.glyphs.mean(axis=(1, 2), keepdims=True)
        self._glyphs = glyphs / glyphs.std(axis=(1, 2), keepdims=True)
        self._box_pieces = list(rom.next_boxes)
        boxes = np.stack([rom.next_boxes[piece] for piece in self._box_pieces]).astype(np.float32)
        boxes -= boxes.mean(axis=(1, 2), keepdims=True)
        self._boxes = boxes / boxes.std(axis=(1, 2), keepdims=True)
        black, white = self._landmark_points(rom.screen)
        parts = {
            "cells": self._cell_points,
            "box": self._box_points,
            "black": black,
            "white": white,
            **self._digits,
        }
        # each part's points flattened, and the shape its samples take
        self._flat = {}
        for name, (ys, xs) in parts.items():
            ys, xs = np.broadcast_arrays(ys, xs)
            self._flat[name] = (ys.ravel(), xs.ravel(), ys.shape)

    def _x(self, nes_x: np.ndarray) -> np.ndarray:
        """The video column that shows NES column position `nes_x` (a pixel's middle is
        x + 0.5)."""
        return np.floor(self.geometry.left + nes_x * self.geometry.sx).astype(int)

    def _y(self, nes_y: np.ndarray) -> np.ndarray:
        ys = self.geometry.top + nes_y * self.geometry.sy
        if self.parity is None:
            return np.floor(ys).astype(int)
        return (np.floor((ys - self.parity) / 2) * 2 + self.parity).astype(int)

    def _digit_points(self, column: int, row: int, count: int) -> tuple[np.ndarray, np.ndarray]:
        """The middles of the NES pixels of `count` tiles: (rows, columns) to broadcast."""
        xs = self._x(column * 8 + np.arange(count * 8) + 0.5)
        ys = self._y(row * 8 + np.arange(8) + 0.5)
        return ys[:, None], xs[None, :]

    def _landmark_points(self, screen: np.ndarray) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
        """Points of the screen's landmarks (nothing a game changes) that the ROM draws
        black, and white, with the same colour all around them (so blur does not mix them),
        in lines 16-223 (inside any overscan)."""
        static = np.ones(screen.shape, bool)
        for x, y, width, height in CHANGING:
            static[y : y + height, x : x + width] = False
        inner, static = screen[16:224], static[16:224]
        points = []
        for wanted in (static & (inner < 16), static & (inner > 200)):
            same = wanted.copy()
            same[1:-1, 1:-1] &= (
                wanted[:-2, 1:-1] & wanted[2:, 1:-1] & wanted[1:-1, :-2] & wanted[1:-1, 2:]
            )
            same[[0, -1]] = False
            same[:, [0, -1]] = False
            ys, xs = np.nonzero(same)
            pick = np.linspace(0, len(ys) - 1, min(len(ys), 256)).astype(int)
            points.append((self._y(ys[pick] + 16.5), self._x(xs[pick] + 0.5)))
        return tuple(points)

    def _look(self, picture: Samples, names: tuple[str, ...]) -> dict[str, np.ndarray]:
        """The picture's samples at the points of the parts `names` (cells, black, white,
        lines, score, level, box), taken in one pass."""
        ys = np.concatenate([self._flat[name][0] for name in names])
        xs = np.concatenate([self._flat[name][1] for name in names])
        values = picture.bright(ys, xs).astype(np.float32)
        looked, start = {}, 0
        for name in names:
            shape = self._flat[name][2]
            size = int(np.prod(shape))
            looked[name] = values[start : start + size].reshape(shape)
            start += size
        return looked

    def black_white(self, picture: Samples) -> tuple[float, float]:
        """The picture's black and white levels (its brightest channel, 0-255)."""
        return _black_white(self._look(picture, ("black", "white")))

    def cell_values(self, picture: Samples) -> np.ndarray:
        """20 x 10: each cell's middle, its brightest channel (0-255)."""
        return self._look(picture, ("cells",))["cells"].mean(axis=(2, 3))

    def threshold(self, picture: Samples) -> float:
        """The brightness above which a cell is filled."""
        black, white = self.black_white(picture)
        return black + FILLED_SHARE * (white - black)

    def board(self, picture: Samples) -> np.ndarray:
        """20 x 10 booleans, True = filled."""
        return self.cell_values(picture) > self.threshold(picture)

    def next_piece(self, picture: Samples) -> tuple[int | None, float]:
        """The next box's piece (a spawn orientation) and the confidence: the piece whose
        box picture the box's samples correlate with best; None under READABLE (the box
        hidden, or a misread)."""
        return self._next(self._look(picture, ("box",))["box"])

    def lines(self, picture: Samples) -> tuple[int | None, float]:
        """Lines, and the confidence (the hundreds go on past 9 as A-F)."""
        return self._lines(self._look(picture, ("lines",))["lines"])

    def score(self, picture: Samples) -> tuple[int | None, float]:
        """The score, and the confidence (the hundred thousands go on past 9 as A-F in
        ROMs that count past 999,999)."""
        return self._score(self._look(picture, ("score",))["score"])

    def level(self, picture: Samples) -> tuple[int | None, str | None, float]:
        """The level, the two characters the screen shows for it, and the confidence."""
        return self._level(self._look(picture, ("level",))["level"])

    def counters(
        self, picture: Samples
    ) -> tuple[int | None, int | None, int | None, int | None, float]:
        """Lines, score, level, the next piece and the filled threshold, from one pass over
        the picture (what a video's reading needs of every frame)."""
        looked = self._look(picture, ("black", "white", "lines", "score", "level", "box"))
        black, white = _black_white(looked)
        return (
            self._lines(looked["lines"])[0],
            self._score(looked["score"])[0],
            self._level(looked["level"])[0],
            self._next(looked["box"])[0],
            black + FILLED_SHARE * (white - black),
        )

    def _next(self, shown: np.ndarray) -> tuple[int | None, float]:
        shown = shown - shown.mean()
        spread = float(shown.std())
        if spread < 1.0:
            return None, 0.0
        scores = (self._boxes * shown).mean(axis=(1, 2)) / spread
        second, best = np.argsort(scores)[-2:]
        if scores[best] < READABLE:
            return None, 0.0
        confidence = min(1.0, float(scores[best] - scores[second]) / SURE_MARGIN)
        return self._box_pieces[best], confidence

    def _tile_scores(self, values: np.ndarray) -> np.ndarray | None:
        """How well each tile of a counter's samples correlates with each of the ROM's
        tiles 0-F ([tile, 16]); None when a tile is flat (nothing drawn there)."""
        tiles = np.stack(np.split(values, values.shape[1] // 8, axis=1))
        tiles -= tiles.mean(axis=(1, 2), keepdims=True)
        spread = tiles.std(axis=(1, 2), keepdims=True)
        if (spread < 1.0).any():
            return None
        return np.einsum("tij,gij->tg", tiles / spread, self._glyphs) / 64

    def _digits_text(self, values: np.ndarray) -> tuple[str | None, float]:
        """A counter of decimal digits whose first may also be A-F: each tile read apart
        (its best allowed character), the confidence the smallest margin."""
        scores = self._tile_scores(values)
        if scores is None:
            return None, 0.0
        scores[1:, 10:] = -np.inf  # only the first tile may show A-F
        order = np.argsort(scores, axis=1)
        rows = np.arange(len(scores))
        best, second = scores[rows, order[:, -1]], scores[rows, order[:, -2]]
        if best.min() < READABLE or (best == second).any():
            return None, 0.0
        text = "".join(HEX[glyph] for glyph in order[:, -1])
        return text, min(1.0, float((best - second).min()) / SURE_MARGIN)

    def _lines(self, values: np.ndarray) -> tuple[int | None, float]:
        text, confidence = self._digits_text(values)
        return (None if text is None else int(text[0], 16) * 100 + int(text[1:])), confidence

    def _score(self, values: np.ndarray) -> tuple[int | None, float]:
        text, confidence = self._digits_text(values)
        value = None if text is None else int(text[0], 16) * 100_000 + int(text[1:])
        return value, confidence

    def _level(self, values: np.ndarray) -> tuple[int | None, str | None, float]:
        scores = self._tile_scores(values)
        if scores is None:
            return None, None, 0.0
        # every pair of characters the ROM draws for some level, scored as a whole
        totals = scores[0, self._level_glyphs[:, 0]] + scores[1, self._level_glyphs[:, 1]]
        second, best = np.argsort(totals)[-2:]
        text = self._level_texts[best]
        shown = scores[[0, 1], self._level_glyphs[best]]
        if shown.min() < READABLE or totals[best] == totals[second]:
            return None, None, 0.0
        confidence = min(1.0, float(totals[best] - totals[second]) / SURE_MARGIN)
        return self._levels[text], text, confidence

    def read(self, picture: Samples) -> ScreenReading:
        """Everything one picture shows."""
        looked = self._look(picture, ("cells", "black", "white", "lines", "score", "level", "box"))
        values = looked["cells"].mean(axis=(2, 3))
        black, white = _black_white(looked)
        threshold = black + FILLED_SHARE * (white - black)
        board_confidence = float(
            np.clip(np.abs(values - threshold) / (threshold - black), 0, 1).min()
        )
        lines, lines_confidence = self._lines(looked["lines"])
        score, score_confidence = self._score(looked["score"])
        level, level_text, level_confidence = self._level(looked["level"])
        piece, next_confidence = self._next(looked["box"])
        return ScreenReading(
            values > threshold,
            lines,
            score,
            level,
            level_text,
            None if piece is None else PIECE_NAMES[PIECE_TYPE[piece]],
            self.geometry,
            {
                "geometry": self.geometry.match,
                "board": board_confidence,
                "lines": lines_confidence,
                "score": score_confidence,
                "level": level_confidence,
                "next": next_confidence,
            },
        )


def _black_white(looked: dict[str, np.ndarray]) -> tuple[float, float]:
    black, white = float(np.median(looked["black"])), float(np.median(looked["white"]))
    return black, max(white, black + 1.0)
