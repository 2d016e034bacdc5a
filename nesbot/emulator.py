"""The emulator adapter: the only module that imports nes_py.

Where a step ends (pinned by tests/test_emulator.py). nes-py runs a fixed 29,781 CPU cycles
per step, while an NTSC PPU frame is 29,780.67 cycles, so the step boundary drifts a third
of a cycle later into the game's frame at every step, and comes round again every 89,342
steps. Measured with this ROM, counting steps from power-on:

* about 1,400-5,000: the boundary lies between the NMI's controller poll and the game logic
  (docs/mechanics.md#nes-pys-step-boundary): a button acts in the RAM read one step later;
* about 6,000-16,000: the boundary cuts through the game logic: RAM is read mid-frame;
* from about 17,000 to about 55,900: the boundary lies in the idle time after the logic: a
  step is one whole frame (NMI, poll of this step's buttons, logic), and RAM read after
  step(pad) already shows what `pad` did;
* after that the boundary reaches the next frame's NMI: its screen-row copy and line-clear
  animation step show in RAM one step early; from about 57,000 it lies between the poll's
  two pad reads, which the game ANDs, and from about 57,800 between the poll and the logic
  (nesbot/bot.py follows the bot's buttons through this).

nesbot plays in the third window (ALIGNED_FRAMES); the simulator's step is that whole frame.
"""

from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import numpy as np
from nes_py import NESEnv
from nes_py.nes_env import OBSERVATION_MODE_RGB_ARRAY_CONTIGUOUS

from nesbot.errors import NesbotError
from nesbot.nes_frames import step_stamp
from nesbot.ppu import PPU_MASK_COPY, PpuClock

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
# after AND_ONSET, a frame reads the step before's buttons (nesbot/bot.py sends them a step
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


class Snapshot(NamedTuple):
    """The whole machine at one step (Emulator.save_state)."""

    state: object  # nes-py's native snapshot (in memory only)
    frame: int  # steps since power-on
    ppu: PpuClock  # where the PPU was when that step ended


class Emulator:
    """A powered-on NES with the Tetris cartridge, stepped one frame at a time.

    `frame` counts the steps since power-on; `ppu` says where the last one ended in the
    picture (nesbot.ppu), which makes whole pictures of two steps' screens.
    """

    def __init__(self, rom_path: Path) -> None:
        try:
            self._env = NESEnv(str(rom_path))
        except (ValueError, OSError) as error:
            raise NesbotError(f"nes-py cannot load {rom_path}: {error}") from None
        self._env.reset()
        # nes-py's reset is the console's reset button: RAM survives it. Power-on is
        # this first state, restored whole.
        self._power_on_state = self._env.dump_state()
        # The second pad holds a stamp of each step, which RAM keeps as the game's poll
        # read it: so RAM tells which steps a poll read (nesbot.nes_frames.PollTracker).
        self._second_pad = self._env._controller_buffer(1)
        self.frame = 0  # steps since power-on
        self.ppu = PpuClock()
        # Called after every step with (pad, emulator): input logs and video hang here.
        self.observers: list[Callable[[int, Emulator], None]] = []

    @property
    def ram(self) -> np.ndarray:
        """The live 2 KiB CPU RAM (a writable view; it changes as the emulator steps)."""
        return self._env.ram

    @property
    def screen(self) -> np.ndarray:
        """The live 240x256x3 RGB screen (a view)."""
        return self._env.screen

    def copy_screen(self, out: np.ndarray) -> None:
        """Copy the screen into `out` (see copy_screen)."""
        copy_screen(self._env, out)

    def power_on(self) -> None:
        """Return to the power-on state (deterministic)."""
        self._env.load_state(self._power_on_state)
        self.frame = 0
        self.ppu = PpuClock()

    def step(self, pad: int) -> None:
        """Advance one frame with the controller byte `pad` (nes-py bit order)."""
        self._second_pad[0] = step_stamp(self.frame + 1)
        self._env._frame_advance(pad)
        self.frame += 1
        self.ppu.step(int(self._env.ram[PPU_MASK_COPY]))
        for observer in self.observers:
            observer(pad, self)

    def save_state(self) -> Snapshot:
        """A snapshot of the whole machine (in memory only: nes-py's cannot be saved)."""
        return Snapshot(self._env.dump_state(), self.frame, self.ppu.copy())

    def load_state(self, snapshot: Snapshot) -> None:
        self._env.load_state(snapshot.state)
        self.frame = snapshot.frame
        self.ppu = snapshot.ppu.copy()

    def close(self) -> None:
        if self._env is not None:
            self._env.close()
            self._env = None

    def __enter__(self) -> "Emulator":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def copy_screen(env: NESEnv, out: np.ndarray) -> None:
    """Copy `env`'s screen into `out`, a C-contiguous 240x256x3 uint8 array.

    Five times as fast as copying the `screen` view (70 against 360 us): the view walks
    nes-py's 32-bit pixels byte by byte backwards, its C copy does not.
    """
    env.observation(OBSERVATION_MODE_RGB_ARRAY_CONTIGUOUS, out)


def power_cycle(env: NESEnv) -> None:
    """Switch `env`'s console off and on, so that its steps count from power-on again.

    nes-py's reset is the console's reset button: it starts the CPU and the PPU from their
    first cycle (so the step boundary is where it was at power-on) but RAM survives, and
    the ROM's reset code reads it for a few frames before clearing it. Clearing RAM as
    power-on leaves it makes the game the same as on a new emulator (tests/test_attach.py
    compares RAM and screens). VRAM, OAM and the mapper keep their contents until the
    reset code rewrites them, within the legal screen's first 13 frames.
    """
    env._env.reset()
    env.ram[:] = 0
    env.done = False  # as NESEnv.reset leaves it
