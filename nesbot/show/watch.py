"""GameWatch: what the overlay, --still and the game's summary need about the game on screen,
kept up to date after every emulator step.

Put it first in `Emulator.observers`, so that the observers after it (video, window) see it
updated for the frame they draw. It reads a few RAM bytes per frame and decodes nothing, so
it costs a few microseconds. A planner's placements come from an object with the bot's
`planned_lock` and `planned_next_lock` attributes ((x, y, orientation) or None each).
"""

from typing import TYPE_CHECKING, Protocol

import numpy as np

from nesbot.nes import ram
from nesbot.show.overlay import CapMoment, Figures, FrameInfo, Placement

if TYPE_CHECKING:
    from nesbot.nes.emulator import Emulator

CAP_BCD = 0x99  # each of the score's three BCD bytes at 999,999


class Plans(Protocol):
    @property
    def planned_lock(self) -> Placement | None: ...
    @property
    def planned_next_lock(self) -> Placement | None: ...


class GameWatch:
    """An emulator observer that counts pieces, notes when the score first reads 999,999 and
    says what the overlay draws on the frame just stepped."""

    def __init__(self, memory: np.ndarray | None = None, plans: Plans | None = None) -> None:
        """`memory` is the emulator's live RAM; without it, the first observed step's."""
        self._memory = memory
        self._plans = plans
        self.was_active, self.pieces = False, 0
        self.cap: CapMoment | None = None
        self._show_plan = False
        self._figures_key: tuple[int, ...] | None = None
        self._figures: Figures | None = None
        if memory is not None:
            self.reset()

    def reset(self) -> None:
        """Start counting from what RAM shows now (a game on its first frame, or power-on)."""
        self.was_active = ram.piece_active(self.memory)
        # The piece on screen when the watch starts counts (play starts on its first frame).
        self.pieces = 1 if self.was_active else 0
        self.cap = None
        self._show_plan = False
        self._figures_key = None
        self._figures = None

    @property
    def memory(self) -> np.ndarray:
        """The RAM watched (known once given or once a step was observed)."""
        if self._memory is None:
            raise RuntimeError("GameWatch has not seen the emulator's RAM yet")
        return self._memory

    def __call__(self, pad: int, emu: "Emulator") -> None:
        if self._memory is None:
            self._memory = emu.ram
        self.observe(emu.frame)

    def observe(self, frame: int) -> None:
        """Look at RAM after step `frame` (steps since power-on)."""
        memory = self.memory
        active = ram.piece_active(memory)
        # RAM shows a new piece one frame before the screen draws it, and the bot plans it
        # only then, before the next step: until that step the plan is the last piece's.
        self._show_plan = active and self.was_active
        if active and not self.was_active:
            self.pieces += 1
        self.was_active = active
        if self.cap is None and (
            memory[ram.SCORE + 2] == CAP_BCD
            and memory[ram.SCORE + 1] == CAP_BCD
            and memory[ram.SCORE] == CAP_BCD
        ):
            lines = ram.bcd_value(int(memory[ram.LINES]), int(memory[ram.LINES + 1]))
            self.cap = CapMoment(frame, lines, int(memory[ram.LEVEL_NUMBER]))

    @property
    def figures(self) -> Figures:
        """The panel's numbers now (the same object while they do not change)."""
        m = self.memory
        key = (
            int(m[ram.SCORE]),
            int(m[ram.SCORE + 1]),
            int(m[ram.SCORE + 2]),
            int(m[ram.LINES]),
            int(m[ram.LINES + 1]),
            int(m[ram.LEVEL_NUMBER]),
            int(m[ram.LINE_CLEAR_STATS + 3]),
            self.pieces,
            self.cap is not None,
        )
        if key != self._figures_key or self._figures is None:
            self._figures_key = key
            self._figures = Figures(
                score=ram.bcd_value(key[0], key[1], key[2]),
                lines=ram.bcd_value(key[3], key[4]),
                level=key[5],
                pieces=self.pieces,
                tetrises=ram.bcd_value(key[6]),
                cap=self.cap,
            )
        return self._figures

    def info(self) -> FrameInfo:
        """What the overlay draws on the frame just stepped."""
        plans = self._plans
        if plans is None or not self._show_plan:
            return FrameInfo(self.figures)
        return FrameInfo(self.figures, plans.planned_lock, plans.planned_next_lock)
