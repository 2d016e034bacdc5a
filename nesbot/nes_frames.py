"""NES frames as FCEUX counts them, and the nes-py steps that poll them.

An .fm2 line is one NES frame from power-on: FCEUX gives the game's pad poll in frame L the
buttons of line L. nes-py's step is not a frame (29,781 CPU cycles; docs/steps.md), so an
input log written one line per step is another game in FCEUX. What was measured with this
ROM, FCEUX 2.6.5 and nes-py 9.0.1 (docs/steps.md, "FCEUX's frames"):

- From power-on to about step 55,900, nes-py's step s holds the pad poll of FCEUX frame
  s + 1 (`FRAME_OF_STEP`). Frames 0 and 1 poll nothing (the game has not enabled its NMI).
- Except where a frame's NMI draws so much before its poll that the poll falls past the
  step's end (the first frames of a game, which draw the whole playfield): that step polls no
  frame, and the next one polls two, both reading its buttons. The game's frame counter
  ($00B1, advanced by every NMI just before the poll) shows it: it advances twice in that
  step. nes-py cannot give the two frames different buttons; where a log holds different
  ones, the frame is named (`Conflict`), never played as another game in silence.
- Past about step 55,900 the step boundary reaches the next frame's NMI and, from about step
  57,000, the poll itself (docs/steps.md, "The pad poll straddle"), which this mapping does
  not follow yet.

`StepsFromFrames` turns an FCEUX movie into the buttons of each nes-py step; `FramesFromSteps`
turns the buttons of nes-py's steps into FCEUX frames. Both learn where the polls fell from
the game's frame counter (`nesbot.ram.FRAME_COUNTER`) after each step (`polls_in_step`).
"""

from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "FRAME_OF_STEP",
    "Conflict",
    "FramesFromSteps",
    "StepsFromFrames",
    "polls_in_step",
]

FRAME_OF_STEP = 1  # nes-py's step s polls FCEUX frame s + FRAME_OF_STEP


def polls_in_step(counter_before: int, counter_after: int) -> int:
    """How many NMIs (and so pad polls) ran in a step: the advance of the frame counter's low
    byte, which every NMI raises just before its poll."""
    return (counter_after - counter_before) & 0xFF


@dataclass(frozen=True)
class Conflict:
    """A frame nes-py cannot give its buttons: its poll shares a step with the next frame's."""

    frame: int  # the FCEUX frame (movie line, from 0) whose buttons nes-py cannot give
    step: int  # the nes-py step (from power-on, from 1) that polls it and frame + 1
    needs: int  # the pad byte (nes-py order) the movie holds for `frame`
    gets: int  # the pad byte it reads instead: the movie's for frame + 1

    def __str__(self) -> str:
        return (
            f"frame {self.frame} needs buttons {self.needs:#04x}, but nes-py's step "
            f"{self.step} polls frames {self.frame} and {self.frame + 1} together, so it "
            f"reads frame {self.frame + 1}'s {self.gets:#04x}"
        )


class StepsFromFrames:
    """The buttons of each nes-py step for a movie of FCEUX frames (one pad byte a frame).

    `pad(step)` before each step (from 1), `after(step, polls)` after it with
    `polls_in_step`; a frame nes-py cannot give its buttons goes to `on_conflict`, which may
    raise to stop. `steps` is how many steps play the whole movie: FCEUX ends it on frame
    len(frames), nes-py on the step that polls the last frame.
    """

    def __init__(self, frames: bytes, on_conflict: Callable[[Conflict], None]) -> None:
        self.frames = frames
        self.on_conflict = on_conflict
        self.steps = max(len(frames) - 1 - FRAME_OF_STEP, 0)

    def pad(self, step: int) -> int:
        return self.frames[step + FRAME_OF_STEP]

    def after(self, step: int, polls: int) -> None:
        # Two polls: the frame this step was to poll and the one the step before let slip
        # past its end (that step polled none); both read this step's buttons.
        if polls >= 2:
            late = step + FRAME_OF_STEP - 1
            if self.frames[late] != self.frames[late + 1]:
                self.on_conflict(Conflict(late, step, self.frames[late], self.frames[late + 1]))


class FramesFromSteps:
    """FCEUX frames from the buttons of nes-py's steps: `after(pad, polls)` after every step,
    in order from power-on, calls `write(pad)` for each frame whose buttons are now known,
    and `close()` writes the last. Frames that poll nothing hold the buttons of the step
    that ran them, so a movie reads like the game that was played."""

    def __init__(self, write: Callable[[int], None]) -> None:
        self.write = write
        self._pending: int | None = None  # the buttons of the last step's frame, unwritten
        for _ in range(FRAME_OF_STEP + 1):  # frames before the first step's poll: none
            write(0)

    def after(self, pad: int, polls: int) -> None:
        if self._pending is not None:
            # A frame whose poll slipped past its step's end read this step's buttons.
            self.write(pad if polls >= 2 else self._pending)
        self._pending = pad

    def close(self) -> None:
        """Write the last step's frame; calling it again does nothing."""
        if self._pending is not None:
            self.write(self._pending)
        self._pending = None
