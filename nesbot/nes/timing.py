"""Where nes-py's step ends in the game's frame, by steps since power-on (pinned by
tests/test_emulator.py); no emulator here, so that the bot, the menus and the simulator
read it without nes-py. nes-py runs a fixed 29,781 CPU cycles per step, while an NTSC PPU
frame is 29,780.67 cycles, so the step boundary drifts a third of a cycle later into the
game's frame at every step, and comes round again every 89,342 steps. Measured with this
ROM, counting steps from power-on:

* about 1,400-5,000: the boundary lies between the NMI's controller poll and the game logic
  (docs/mechanics.md#nes-pys-step-boundary): a button acts in the RAM read one step later;
* about 6,000-16,000: the boundary cuts through the game logic: RAM is read mid-frame;
* from about 17,000 to about 55,900: the boundary lies in the idle time after the logic: a
  step is one whole frame (NMI, poll of this step's buttons, logic), and RAM read after
  step(pad) already shows what `pad` did;
* after that the boundary reaches the next frame's NMI: its screen-row copy and line-clear
  animation step show in RAM one step early; from about 57,000 it lies between the poll's
  two pad reads, which the game ANDs, and from about 57,800 between the poll and the logic
  (nesbot/bot/policy.py follows the bot's buttons through this).

nesbot plays in the third window (ALIGNED_FRAMES); the simulator's step is that whole frame.

Where the step ends in the picture: nes-py draws the screen buffer pixel by pixel as its
PPU renders, and a step (29,781 CPU cycles, 89,343 PPU dots) ends wherever the PPU then is.
`PpuClock` follows that point from power-on by counting dots. A frame is 262 lines of 341
dots, except that the PPU skips a dot of every other frame while rendering is on (nes-py
does so too), so the clock needs to know, frame by frame, whether the game has rendering
on: it reads the game's copy of the PPU's mask register ($00FE, which the ROM writes
together with the register) after each step. nesbot.show.frames joins two steps' screens into
whole pictures where it says; the NES frames of an FCEUX movie are counted by its vertical
blanks (nesbot.nes.polls).
"""

from dataclasses import dataclass, replace

# Steps since power-on in which a step is one whole game frame (see the module docstring),
# as measured with the lockstep tests. The start leaves room for the longest logic of
# normal play (clearing rows near the floor moves up to 190 playfield bytes). One frame
# runs longer still: clearing a full row 0 (only possible with the stack at the ceiling)
# moves the whole 256-byte page, and until step ~32,000 RAM is read in the middle of it.
ALIGNED_FRAMES = range(24_000, 55_500)
# The steps where an active piece's frames start to AND two steps' buttons: before them a
# frame reads its own step's, after them the AND (from about 57,800, the step before's
# alone), and inside them either, from frame to frame. Measured in eight game runs with an
# inert Up toggled every step (the game's held byte shows which reading a frame used): the
# first AND at step 57,005, the last own reading at 57,011. The NMI starts up to about 7
# CPU cycles late (the main loop's 6-cycle vblank wait, the OAM DMA's odd cycle), about 21
# steps of drift, so the range allows that much on both sides. A piece's first frame, and
# the frames that copy playfield rows, poll later and read their own step's a little longer.
AND_ONSET = range(56_990, 57_030)
# Steps since power-on where the bot plays correctly: a step is one whole frame, and then,
# after AND_ONSET, a frame reads the step before's buttons (nesbot/bot/policy.py sends them a step
# ahead). From about 61,000 the boundary cuts through the game logic again and RAM is read
# mid-frame. A level-19 game started at 24,000 ends by about 59,000, even one that plays
# on to level 39.
PLAYABLE_FRAMES = range(ALIGNED_FRAMES.start, 61_000)
# From about this step the NMI that advances the game's frame counter ($00B1) crosses the
# step boundary. A game that starts before it sees its counter advance once a step; from
# here on, some steps run two NMIs (a step is a third of a cycle longer than a frame) and
# some none, as the NMI's place in the frame varies with what it draws, so the counter is
# ahead of the steps since the game began by one frame or none. Measured in whole level-19
# games: first ahead at steps 56,733-56,742, and still alternating at 57,851.
NMI_CROSSING_START = 56_500

DOTS_PER_STEP = 3 * 29_781  # nes-py runs 29,781 CPU cycles a step, 3 PPU dots each
DOTS_PER_LINE = 341
FRAME_DOTS = 262 * DOTS_PER_LINE  # pre-render line, 240 visible, post-render, 20 of vblank
# The vertical blank (and the NMI) starts on dot 1 of line 241, after the pre-render line,
# 240 visible lines and the post-render line (one dot less on a short frame).
VBLANK_DOT = DOTS_PER_LINE + 241 * DOTS_PER_LINE + 1
WIDTH, HEIGHT = 256, 240
PIXELS = WIDTH * HEIGHT
PPU_MASK_COPY = 0x00FE  # the ROM's copy of PPUMASK (currentPpuMask)
RENDERING = 0x18  # PPUMASK: background and sprites shown


@dataclass
class PpuClock:
    """The PPU's place in its frame when the last step ended, counted from power-on.

    `dot`: dots since the start of the current frame's pre-render line (the first line of
    a frame in nes-py's pipeline). `odd`: the current frame is an odd one. `short`: its
    pre-render line was a dot short (an odd frame with rendering on). `vblanks`: the
    vertical blanks begun since power-on (each starts an NMI, when the game has them on);
    `since_vblank`: dots from the start of the last one to the step's end.
    """

    dot: int = 0
    odd: bool = False
    short: bool = False
    vblanks: int = 0
    since_vblank: int = 0
    _frame_start: int = 0  # dots from power-on to the current frame's first dot

    def step(self, ppu_mask: int) -> None:
        """Advance one step; `ppu_mask` is RAM's PPU_MASK_COPY after the step."""
        start = self._frame_start + self.dot
        end = start + DOTS_PER_STEP
        self.since_vblank += DOTS_PER_STEP
        while True:
            vblank = self._frame_start + VBLANK_DOT - self.short
            if start < vblank <= end:
                self.vblanks += 1
                self.since_vblank = end - vblank
            frame_end = self._frame_start + FRAME_DOTS - self.short
            if frame_end > end:
                break
            self._frame_start = frame_end
            self.odd = not self.odd
            # The ROM changes the mask just after an NMI, before the next pre-render line,
            # and the RAM after this step shows it: so it is the new frame's.
            self.short = self.odd and ppu_mask & RENDERING == RENDERING
        self.dot = end - self._frame_start

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
        return replace(self)
