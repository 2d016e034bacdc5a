"""The NES's frame rate, and keeping a loop to it (--realtime)."""

import time
from fractions import Fraction
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nesbot.nes.emulator import Emulator

# NTSC NES: 39,375,000 / 655,171 frames per second (the PPU's 341 x 262 - 0.5 dots a frame
# at 5,369,318.18 dots per second), exactly.
NTSC_RATE = Fraction(39_375_000, 655_171)
NES_FPS = float(NTSC_RATE)  # 60.0988


class Pacer:
    """Sleeps so that the n-th call returns no sooner than n frames after the first; an
    emulator observer too. Falls behind without trying to catch up in a burst when a frame
    runs late by more than `slack` frames."""

    def __init__(self, fps: float = NES_FPS, slack: int = 6) -> None:
        self.period = 1 / fps
        self.slack = slack
        self._start: float | None = None
        self._frames = 0

    def __call__(self, pad: int = 0, emu: "Emulator | None" = None) -> None:
        self.wait()

    def wait(self) -> None:
        now = time.perf_counter()
        if self._start is None:
            self._start, self._frames = now, 0
            return
        self._frames += 1
        due = self._start + self._frames * self.period
        if now - due > self.slack * self.period:  # far behind (a long plan, a busy core)
            self._start, self._frames = now, 0
        elif due > now:
            time.sleep(due - now)
