"""Where nes-py's picture processing unit is when a step ends, and whole pictures from it.

nes-py draws the screen buffer pixel by pixel as its PPU renders, and a step (29,781 CPU
cycles, 89,343 PPU dots) ends wherever the PPU then is: in the game's whole-frame window
that is in the middle of the picture. So the buffer after a step holds the frame being
drawn above that point and the frame before below it. The frame is whole once the next
step has drawn the rest: `whole_picture` joins the two buffers at the point where the first
step ended.

`PpuClock` follows that point from power-on by counting dots. A frame is 262 lines of 341
dots, except that the PPU skips a dot of every other frame while rendering is on (nes-py
does so too), so the clock needs to know, frame by frame, whether the game has rendering
on: it reads the game's copy of the PPU's mask register ($00FE, which the ROM writes
together with the register) after each step. tests/test_ppu.py checks the split it gives
against every Tetris flash of real games, scanline for scanline.
"""

from dataclasses import dataclass

import numpy as np

DOTS_PER_STEP = 3 * 29_781  # nes-py runs 29,781 CPU cycles a step, 3 PPU dots each
DOTS_PER_LINE = 341
FRAME_DOTS = 262 * DOTS_PER_LINE  # pre-render line, 240 visible, post-render, 20 of vblank
WIDTH, HEIGHT = 256, 240
PIXELS = WIDTH * HEIGHT
PPU_MASK_COPY = 0x00FE  # the ROM's copy of PPUMASK (currentPpuMask)
RENDERING = 0x18  # PPUMASK: background and sprites shown


@dataclass
class PpuClock:
    """The PPU's place in its frame when the last step ended, counted from power-on.

    `dot`: dots since the start of the current frame's pre-render line (the first line of
    a frame in nes-py's pipeline). `odd`: the current frame is an odd one. `short`: its
    pre-render line was a dot short (an odd frame with rendering on).
    """

    dot: int = 0
    odd: bool = False
    short: bool = False

    def step(self, ppu_mask: int) -> None:
        """Advance one step; `ppu_mask` is RAM's PPU_MASK_COPY after the step."""
        dot = self.dot + DOTS_PER_STEP
        while dot >= FRAME_DOTS - self.short:
            dot -= FRAME_DOTS - self.short
            self.odd = not self.odd
            # The ROM changes the mask just after an NMI, before the next pre-render line,
            # and the RAM after this step shows it: so it is the new frame's.
            self.short = self.odd and ppu_mask & RENDERING == RENDERING
        self.dot = dot

    @property
    def drawn(self) -> int:
        """Pixels of the current frame drawn so far, in raster order (0 to 61,440)."""
        # Pixel (x, y) is drawn on dot x + 1 of visible line y, which follows the pre-render
        # line; the dots past 256 of a line are the horizontal blank.
        past = self.dot - (DOTS_PER_LINE - self.short) - 1
        if past <= 0:
            return 0
        line, column = divmod(past, DOTS_PER_LINE)
        return min(line * WIDTH + min(column, WIDTH), PIXELS)

    def copy(self) -> "PpuClock":
        return PpuClock(self.dot, self.odd, self.short)


def whole_picture(first: np.ndarray, second: np.ndarray, drawn: int, out: np.ndarray) -> None:
    """Write into `out` the frame whose top `drawn` pixels (PpuClock.drawn after the step
    of `first`) are in `first`, the screen after one step, and whose rest is in `second`,
    the screen after the next step. All three are 240x256x3 uint8 arrays.

    The one or two dots the second step drew of the next frame right where the first step
    ended come from `second` (the frame's own were overwritten): nothing else is mixed.
    """
    flat_out = out.reshape(PIXELS, 3)
    flat_out[:drawn] = first.reshape(PIXELS, 3)[:drawn]
    flat_out[drawn:] = second.reshape(PIXELS, 3)[drawn:]
