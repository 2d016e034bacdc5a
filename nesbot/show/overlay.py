"""The picture nesbot records and shows: the NES screen upscaled, and with --overlay a panel
of figures beside it and the planner's placements outlined on the playfield.

A `Renderer` turns one 240x256 RGB screen (and, for the overlay, one `FrameInfo`) into an
RGB picture `scale` times the NES's size, nearest neighbour so the pixel art stays sharp.
It reuses one array for its pictures, so each thread that renders needs its own Renderer
(the video encoder thread has one, the window another). Drawing is OpenCV's.

The outline of a placement is one NES pixel drawn inside its cells, along each side that
borders a cell outside the piece, so it lies exactly on the ROM's playfield cells
(`PLAYFIELD_LEFT`, `PLAYFIELD_TOP`, pinned against the emulator's picture by
tests/test_overlay.py).
"""

from dataclasses import dataclass

import cv2
import numpy as np

from nesbot._core.pieces import ORIENTATION_CELLS
from nesbot.errors import NesbotError
from nesbot.nes.screen_layout import (
    CELL,
    COLUMNS,
    PLAYFIELD_LEFT,
    PLAYFIELD_TOP,
    ROWS,
    SCREEN_HEIGHT,
    SCREEN_WIDTH,
)

MAX_SCALE = 8
# The panel beside the NES picture, in NES pixels. Even, so that the picture's width stays
# even at every scale, as yuv420p needs.
PANEL_WIDTH = 128

PLAN_RGB = (255, 255, 255)  # the current piece's planned lock: white reads on every palette
NEXT_PLAN_RGB = (110, 110, 110)  # the next piece's, lighter: it may still change
_PANEL_RGB = (16, 16, 24)
_LABEL_RGB = (150, 150, 160)
_VALUE_RGB = (255, 255, 255)
_CAP_RGB = (255, 200, 40)
_TITLE_RGB = (60, 188, 252)  # an NES palette cyan, as the ROM's frames
_FONT = cv2.FONT_HERSHEY_SIMPLEX
SCORE_CAP_TEXT = "999,999"

Placement = tuple[int, int, int]  # (x, y, orientation): the piece origin and NES orientation ID


@dataclass(frozen=True, slots=True)
class CapMoment:
    """When the score first read 999,999: the game frame, and lines and level then."""

    frame: int
    lines: int
    level: int


@dataclass(frozen=True, slots=True)
class Figures:
    """The panel's numbers. Equal figures draw the same panel, so it is drawn only on a change."""

    score: int
    lines: int
    level: int
    pieces: int
    tetrises: int
    cap: CapMoment | None = None
    note: tuple[str, ...] = ()  # lines of text under the figures (a rating's verdict)
    legend: tuple[str, str] = ("plan", "next piece's plan")  # what the two outlines show

    @property
    def tetris_rate(self) -> float | None:
        """The share of cleared lines that Tetrises cleared (None before the first line)."""
        return 4 * self.tetrises / self.lines if self.lines else None


@dataclass(frozen=True, slots=True)
class FrameInfo:
    """What the overlay draws on one frame besides the screen."""

    figures: Figures
    plan: Placement | None = None  # where the planner locks the current piece
    next_plan: Placement | None = None  # and the next one, on the board after the current


def check_scale(scale: object) -> int:
    """The scale, if it is a whole number from 1 to MAX_SCALE (else NesbotError: it comes
    from the user's --scale)."""
    # bool is an int subclass; scale=True is a caller's mistake, not 1.
    if not isinstance(scale, int) or isinstance(scale, bool) or not 1 <= scale <= MAX_SCALE:
        raise NesbotError(f"the scale must be a whole number from 1 to {MAX_SCALE}, not {scale}")
    return scale


def placement_cells(placement: Placement) -> set[tuple[int, int]]:
    """The (column, row) cells a placement covers, row 0 at the top; rows above 0 included."""
    x, y, orientation = placement
    return {(x + dx, y + dy) for dx, dy in ORIENTATION_CELLS[orientation]}


class Renderer:
    """Draws the picture of one frame (see the module docstring).

    The outlines are one NES pixel wide and drawn on the 256x240 screen before it is
    upscaled, so that the picture is the same whatever its scale; the panel is drawn at the
    picture's own scale, where its text is sharp.
    """

    def __init__(self, scale: int = 3, panel: bool = False) -> None:
        self.scale = check_scale(scale)
        self.panel = panel
        self.nes_width = SCREEN_WIDTH * scale
        self.panel_width = PANEL_WIDTH * scale if panel else 0
        self.width = self.nes_width + self.panel_width
        self.height = SCREEN_HEIGHT * scale
        self._screen = np.zeros((SCREEN_HEIGHT, SCREEN_WIDTH, 3), np.uint8)
        self._picture = np.zeros((self.height, self.width, 3), np.uint8)
        self._nes = self._picture[:, : self.nes_width]  # resize writes straight into it
        self._panel = self._picture[:, self.nes_width :]
        self._drawn_figures: Figures | None = None

    def render(self, screen: np.ndarray, info: FrameInfo | None = None) -> np.ndarray:
        """The RGB picture of one frame; the returned array is overwritten by the next call."""
        cv2.resize(
            self.screen(screen, info),
            (self.nes_width, self.height),
            dst=self._nes,
            interpolation=cv2.INTER_NEAREST,
        )
        if self.panel and info is not None:
            self.panel_picture(info.figures)
        return self._picture

    def screen(self, screen: np.ndarray, info: FrameInfo | None = None) -> np.ndarray:
        """The 240x256 RGB screen with the plan outlines drawn on it, if the overlay has
        any (else `screen` itself)."""
        if not self.panel or info is None or (info.plan is None and info.next_plan is None):
            return screen
        np.copyto(self._screen, screen)
        # The next piece's first, so that where they overlap the current piece's shows.
        if info.next_plan is not None:
            draw_outline(self._screen, info.next_plan, NEXT_PLAN_RGB)
        if info.plan is not None:
            draw_outline(self._screen, info.plan, PLAN_RGB)
        return self._screen

    def panel_picture(self, figures: Figures) -> np.ndarray:
        """The panel (height x panel width x 3 RGB), drawn again only when the figures change;
        the array is the picture's own panel area."""
        if figures != self._drawn_figures:
            draw_panel(self._panel, self.scale, figures)
            self._drawn_figures = figures
        return self._panel


def cell_box(column: int, row: int) -> tuple[int, int, int, int]:
    """The screen pixels of a playfield cell: left, top, right, bottom (inclusive)."""
    left = PLAYFIELD_LEFT + column * CELL
    top = PLAYFIELD_TOP + row * CELL
    return left, top, left + CELL - 1, top + CELL - 1


def draw_outline(screen: np.ndarray, placement: Placement, rgb: tuple[int, int, int]) -> None:
    """Outline a placement on a 240x256 RGB screen: one pixel inside its cells, along each
    side that borders a cell outside the piece. Cells above row 0 are hidden, as on the NES."""
    cells = placement_cells(placement)
    for column, row in cells:
        if not (0 <= column < COLUMNS and 0 <= row < ROWS):
            continue
        left, top, right, bottom = cell_box(column, row)
        if (column - 1, row) not in cells:
            screen[top : bottom + 1, left] = rgb
        if (column + 1, row) not in cells:
            screen[top : bottom + 1, right] = rgb
        if (column, row - 1) not in cells:
            screen[top, left : right + 1] = rgb
        if (column, row + 1) not in cells:
            screen[bottom, left : right + 1] = rgb


def draw_panel(area: np.ndarray, scale: int, figures: Figures) -> None:
    """Draw the figures on the panel's area of a picture at `scale`."""
    s = scale
    area[:] = _PANEL_RGB
    left, right = 8 * s, (PANEL_WIDTH - 8) * s
    small, large = 0.34 * s, 0.5 * s
    thin, bold = max(1, s // 2), max(1, s * 2 // 3)

    def text(words: str, x: int, y: int, size: float, rgb, weight: int) -> None:
        cv2.putText(area, words, (x, y), _FONT, size, rgb, weight, cv2.LINE_AA)

    def right_aligned(words: str, y: int, size: float, rgb, weight: int) -> None:
        (width, _), _ = cv2.getTextSize(words, _FONT, size, weight)
        text(words, right - width, y, size, rgb, weight)

    text("nesbot", left, 22 * s, large, _TITLE_RGB, bold)
    rate = figures.tetris_rate
    rows = (
        ("SCORE", f"{figures.score:,}"),
        ("LINES", f"{figures.lines}"),
        ("LEVEL", f"{figures.level}"),
        ("PIECES", f"{figures.pieces}"),
        ("TETRIS RATE", "-" if rate is None else f"{rate:.0%}"),
    )
    y = 42 * s
    for label, value in rows:
        text(label, left, y, small, _LABEL_RGB, thin)
        right_aligned(value, y + 13 * s, large, _VALUE_RGB, bold)
        y += 27 * s
    cap = figures.cap
    if cap is not None:
        text(f"{SCORE_CAP_TEXT} REACHED", left, y, small, _CAP_RGB, thin)
        right_aligned(f"line {cap.lines}, level {cap.level}", y + 12 * s, small, _CAP_RGB, thin)
        y += 27 * s
    for line in figures.note:
        text(line, left, y, small, _VALUE_RGB, thin)
        y += 12 * s
    # A legend for the outlines, at the bottom of the panel.
    y = (SCREEN_HEIGHT - 22) * s
    for words, rgb in zip(figures.legend, (PLAN_RGB, NEXT_PLAN_RGB), strict=True):
        size = 6 * s
        cv2.rectangle(area, (left, y - size), (left + size - 1, y - 1), rgb, s)
        text(words, left + size + 4 * s, y - s, small, _LABEL_RGB, thin)
        y += 13 * s


def draw_banner(picture: np.ndarray, scale: int, lines: tuple[str, str], done: float) -> None:
    """Draw a two-line message and a progress bar (done 0-1) across the bottom of a picture
    (the window while the bot gets ready)."""
    s = scale
    height = 34 * s
    top = picture.shape[0] - height
    box = picture[top:]
    box[:] = (box * 0.25).astype(np.uint8)  # darken, so the text reads over any screen
    for row, words in enumerate(lines):
        y = (12 + 10 * row) * s
        cv2.putText(box, words, (6 * s, y), _FONT, 0.3 * s, _VALUE_RGB, max(1, s // 2), cv2.LINE_AA)
    bar_top, bar_bottom = 26 * s, 30 * s
    bar_left, bar_right = 6 * s, picture.shape[1] - 6 * s
    cv2.rectangle(box, (bar_left, bar_top), (bar_right, bar_bottom), _LABEL_RGB, 1)
    filled = bar_left + round((bar_right - bar_left) * min(max(done, 0.0), 1.0))
    if filled > bar_left:
        cv2.rectangle(box, (bar_left, bar_top), (filled, bar_bottom), _TITLE_RGB, -1)
