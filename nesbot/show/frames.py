"""Whole pictures from nes-py's screen, which a step leaves torn.

nes-py draws the screen buffer pixel by pixel as its PPU renders, and a step ends wherever
the PPU then is (nesbot.nes.timing.PpuClock): in the game's whole-frame window that is in the
middle of the picture. So the buffer after a step holds the frame being drawn above that
point and the frame before below it. The frame is whole once the next step has drawn the
rest: `whole_picture` joins the two buffers at the point where the first step ended.
tests/test_ppu.py checks the split against every Tetris flash of real games, scanline for
scanline.

What it costs: the screen copied each step (nes-py's C copy, about 40 us) and the join
(about 7 us), and pictures one step late: a video's last picture is the frame before the
last step's, whose bottom nes-py has not drawn yet.
"""

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from nesbot.nes.timing import HEIGHT, PIXELS, WIDTH

if TYPE_CHECKING:
    from nesbot.nes.emulator import Emulator
    from nesbot.show.overlay import FrameInfo


def whole_picture(
    first: np.ndarray, second: np.ndarray, drawn: int, drawn_next: int, out: np.ndarray
) -> None:
    """Write into `out` the frame whose top `drawn` pixels (PpuClock.drawn after the step
    of `first`) are in `first`, the screen after one step, and whose rest is in `second`,
    the screen after the next step (which drew `drawn_next` pixels of the frame after).
    All three are 240x256x3 uint8 arrays.

    A step is a dot or two longer than a frame, so the second step also drew the next
    frame's first pixels over this frame's where the first step ended: those one or two
    pixels of the frame were never on any screen. Where the pixel after them is the same in
    this frame and the one before (`second` and `first` there), the picture did not change
    there and they keep the frame before's colour (still in `first`); where it changed (a
    Tetris flash), they take this frame's colour beside them on the same line. Taken from
    the next frame instead, a flash would show there a frame early.
    """
    flat_out = out.reshape(PIXELS, 3)
    flat_first, flat_second = first.reshape(PIXELS, 3), second.reshape(PIXELS, 3)
    flat_out[:drawn] = flat_first[:drawn]
    flat_out[drawn:] = flat_second[drawn:]
    if not drawn < drawn_next < PIXELS:
        return
    after = drawn_next  # this frame's, in `second`; the frame before's, in `first`
    if after // WIDTH == (drawn_next - 1) // WIDTH:
        if (flat_first[after] == flat_second[after]).all():
            flat_out[drawn:drawn_next] = flat_first[drawn:drawn_next]
        else:
            flat_out[drawn:drawn_next] = flat_second[after]
    elif drawn % WIDTH:  # the run ends its line: the pixel before it is this frame's
        flat_out[drawn:drawn_next] = flat_first[drawn - 1]


class FrameJoiner:
    """Whole pictures from the screens after consecutive steps, one step late.

    `push(screen, drawn, info)` after every step, with PpuClock.drawn for that step and
    whatever goes with its frame (the overlay's FrameInfo); from the second push on, it
    returns True and `picture` holds, whole, the frame the step before began, with `info`
    what was pushed with it. `picture` is overwritten by the next push: copy what is kept.
    """

    def __init__(self) -> None:
        self.picture = np.zeros((HEIGHT, WIDTH, 3), np.uint8)
        self.info: FrameInfo | None = None
        # The screen of the next push may be copied here first, and pushed as None: nes-py's
        # own copy into a contiguous array is five times as fast as copying its view.
        self.incoming = np.zeros((HEIGHT, WIDTH, 3), np.uint8)
        self._held = np.zeros((HEIGHT, WIDTH, 3), np.uint8)
        self._held_drawn: int | None = None  # None: nothing pushed yet
        # What goes with the frame the last push began: may be set until the next push.
        self.held_info: FrameInfo | None = None

    def push(self, screen: np.ndarray | None, drawn: int, info: "FrameInfo | None" = None) -> bool:
        if screen is not None:
            np.copyto(self.incoming, screen)
        joined = self._held_drawn is not None
        if self._held_drawn is not None:
            whole_picture(self._held, self.incoming, self._held_drawn, drawn, self.picture)
            self.info = self.held_info
        self._held, self.incoming = self.incoming, self._held
        self._held_drawn, self.held_info = drawn, info
        return joined


# A consumer of whole frames: (picture, its FrameInfo or None, the step that began it).
FrameConsumer = Callable[[np.ndarray, "FrameInfo | None", int], None]


class WholeFrames:
    """An emulator observer that hands every frame, whole, to its consumers one step late:
    after step k + 1, the frame step k began (FrameJoiner), with what `info` said after
    step k. The video, the still and the window all take their pictures from here."""

    def __init__(self, info: "Callable[[], FrameInfo | None] | None" = None) -> None:
        self.info = info
        self.consumers: list[FrameConsumer] = []
        self.joiner = FrameJoiner()

    def __call__(self, pad: int, emu: "Emulator") -> None:
        info = self.info() if self.info is not None else None
        emu.copy_screen(self.joiner.incoming)
        if self.joiner.push(None, emu.ppu.drawn, info):
            for consume in self.consumers:
                consume(self.joiner.picture, self.joiner.info, emu.frame - 1)
