"""nesbot.nes.timing.PpuClock and nesbot.show.frames: the clock says where each step ended in the
picture, to the pixel the Tetris flash shows, and whole pictures join two steps' screens
there."""

import numpy as np

from nesbot.bot.policy import Bot
from nesbot.nes.timing import PIXELS, WIDTH, PpuClock
from nesbot.show.frames import whole_picture

BORDER_COLUMN = 4  # left of the playfield: the background, which a Tetris flash turns white


def flashed_rows(screen: np.ndarray) -> np.ndarray:
    return np.nonzero(np.all(screen[:, BORDER_COLUMN] >= 230, axis=1))[0]


def test_drawn_counts_visible_pixels_from_the_pre_render_line():
    clock = PpuClock()
    assert clock.drawn == 0
    clock.dot = 341 + 1 + 10  # pre-render line, then 10 dots past pixel (0, 0)
    assert clock.drawn == 10
    clock.dot = 341 + 1 + 5 * 341 + 300  # line 5, in the horizontal blank
    assert clock.drawn == 6 * WIDTH
    clock.dot = 262 * 341 - 1
    assert clock.drawn == PIXELS
    clock.short, clock.dot = True, 340 + 1 + 10  # an odd frame's pre-render line is short
    assert clock.drawn == 10


def test_the_clock_steps_a_frame_and_a_dot_or_two():
    clock = PpuClock()
    clock.step(0x1E)  # frame 0 is even: 89,342 dots, the step one more
    assert (clock.dot, clock.odd, clock.short) == (1, True, True)
    clock.step(0x1E)  # frame 1, odd with rendering on: 89,341 dots
    assert (clock.dot, clock.odd, clock.short) == (3, False, False)
    clock.step(0x00)
    assert (clock.dot, clock.odd, clock.short) == (4, True, False)


def test_the_dots_the_next_frame_drew_are_guessed_from_this_frame_and_the_last():
    """The second step draws the next frame's first dots over the frame's own where the
    first step ended. The whole picture never takes them from the next frame: where the
    picture did not change, from the frame before; where it did (a flash), from beside."""
    grey, white, red = (100, 100, 100), (255, 255, 255), (200, 0, 0)
    out = np.empty((240, 256, 3), np.uint8)
    for drawn in (50 * WIDTH + 4, 50 * WIDTH):  # mid-line, and at a line's start
        lost = slice(drawn, drawn + 2)
        # A still picture (the frame before is the same, a red dot where the dots are
        # lost) and a flash coming in the next frame: the frame before's dot.
        first = np.full((240, 256, 3), grey, np.uint8)
        first.reshape(PIXELS, 3)[lost] = red
        second = first.copy()
        second.reshape(PIXELS, 3)[: drawn + 2] = white
        whole_picture(first, second, drawn, drawn + 2, out)
        expected = first.copy()
        assert (out == expected).all(), drawn
        # A flash frame after a grey one: the dots are white, as beside them.
        first = np.full((240, 256, 3), grey, np.uint8)  # above the split: not drawn yet
        first.reshape(PIXELS, 3)[:drawn] = white  # the flash, drawn by the first step
        second = np.full((240, 256, 3), white, np.uint8)  # the rest of the flash
        second.reshape(PIXELS, 3)[: drawn + 2] = grey  # the next frame, not a flash
        whole_picture(first, second, drawn, drawn + 2, out)
        assert (out == np.array(white, np.uint8)).all(), drawn


def test_the_split_is_where_each_tetris_flash_is_torn(emulator, new_game):
    """Every screen with a flash in it is flashed exactly above the split (a flash is
    one frame: the steps that show it are torn there), and the whole picture the split
    makes is flashed everywhere or nowhere."""
    new_game(19, 11)
    bot, before, drawn_before = Bot(), None, 0
    whole = np.empty((240, 256, 3), np.uint8)
    torn = whole_flashes = 0
    while emulator.frame < 29_000:  # seed 11 makes its first Tetrises by then
        emulator.step(bot(emulator.ram, emulator.frame))
        screen = emulator.screen.copy()
        rows = flashed_rows(screen)
        drawn = emulator.ppu.drawn
        if len(rows):
            torn += 1
            split_row = drawn // WIDTH  # the column is drawn in this row if x < drawn % 256
            covered = split_row + (drawn % WIDTH > BORDER_COLUMN)
            # The flash is the frame above the split, or the one below it: never both.
            assert rows.max() < covered or rows.min() >= covered, (emulator.frame, covered)
        if before is not None:
            whole_picture(before, screen, drawn_before, drawn, whole)
            whole_rows = flashed_rows(whole)
            assert len(whole_rows) == 0 or len(whole_rows) > 200, emulator.frame
            whole_flashes += len(whole_rows) > 200
        before, drawn_before = screen, drawn
    assert torn >= 20 and whole_flashes >= 10
