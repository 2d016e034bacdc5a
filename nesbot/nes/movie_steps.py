"""The buttons of nes-py's steps that replay an input log: a movie of FCEUX frames
(`MovieSteps`) or a log of nes-py steps (`StepsFromSteps`).

`MovieSteps` gives each step the buttons a movie's frames need (which frame each poll
belongs to is nesbot.nes.polls's), checks after each step what the polls read, tries the
step again with other buttons if one read wrong (nesbot.nes.replay.step_log), and names a
frame no buttons can give (`Conflict`) instead of playing another game in silence.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from nesbot.errors import NesbotError
from nesbot.nes.polls import LINE_OF_VBLANK, Blank, PollTracker, Stepped

if TYPE_CHECKING:
    from nesbot.nes.fm2 import InputLog


@dataclass(frozen=True)
class Conflict:
    """A frame whose poll nes-py cannot give the buttons the movie holds."""

    frame: int  # the FCEUX frame (movie line, from 0)
    step: int  # the nes-py step (from power-on, from 1) whose buttons its poll read last
    needs: int  # the pad byte (nes-py order) the movie holds for the frame
    gets: int  # the pad byte its poll reads instead
    why: str  # what in nes-py's steps stands in the way

    def __str__(self) -> str:
        return (
            f"frame {self.frame} needs buttons {self.needs:#04x}, but its poll in nes-py's "
            f"step {self.step} reads {self.gets:#04x}: {self.why}"
        )


class ConflictError(NesbotError):
    """A replay stopped at a frame nes-py cannot give its buttons."""

    def __init__(self, source: str, conflict: Conflict) -> None:
        super().__init__(
            f"{source}: {conflict}; nes-py cannot play this movie as FCEUX does "
            "(--go-on replays it anyway, naming each such frame)"
        )
        self.conflict = conflict


class LogSteps(Protocol):
    """The buttons of nes-py's steps that replay an input log (nesbot.nes.replay.step_log).

    `steps`: about how many steps play it all. `pad_for(emu)`: the buttons to try for the
    step after emu.frame. `checked(pad, emu)`, after it: None if it read as the log holds,
    else other buttons to try it with. `accept(pad, emu)`: the step as it stays.
    `aligned_pad(step)`: the buttons of a step that is one whole frame (the simulator's).
    """

    steps: int
    checks: bool  # whether step_log must check each step (and may step it again)

    def finished(self, step: int) -> bool: ...

    def pad_for(self, emu: "Stepped") -> int: ...

    def may_retry(self, emu: "Stepped") -> bool: ...  # after checked()

    def checked(self, pad: int, emu: "Stepped") -> int | None: ...

    def accept(self, pad: int, emu: "Stepped") -> None: ...

    def aligned_pad(self, step: int) -> int: ...


class StepsFromSteps:
    """A log of nes-py steps (one line a step, as nesbot wrote before its logs counted
    frames): step s is given line s - 1, as it was recorded."""

    checks = False

    def __init__(self, lines: bytes) -> None:
        self.lines = lines
        self.steps = len(lines)

    def finished(self, step: int) -> bool:
        return step >= self.steps

    def pad_for(self, emu: "Stepped") -> int:
        return self.lines[emu.frame]

    def may_retry(self, emu: "Stepped") -> bool:
        return False

    def checked(self, pad: int, emu: "Stepped") -> int | None:
        return None

    def accept(self, pad: int, emu: "Stepped") -> None:
        pass

    def aligned_pad(self, step: int) -> int:
        return self.lines[step - 1]


class MovieSteps:
    """The buttons of nes-py's steps for a movie of FCEUX frames (one pad byte a frame).

    Each step is given the buttons of the frames whose polls are expected in it; after the
    step, `checked` compares what every poll done read with its frame's line and proposes
    the buttons that would make them agree. What no buttons of the step can mend goes to
    `on_conflict` (which may raise to stop). The movie is played once the step that begins
    its last frame's blank has run and that frame's poll is done (or past it).
    """

    checks = True

    def __init__(self, frames: bytes, on_conflict: Callable[[Conflict], None]) -> None:
        self.frames = frames
        self.on_conflict = on_conflict
        self.tracker = PollTracker()
        self._trial: PollTracker | None = None
        self._trial_settled: list[Blank] = []
        self.last_blank = len(frames) - 1 - LINE_OF_VBLANK  # the blank of the last line
        self.steps = max(self.last_blank, 0)
        self._done = False
        self._in_flight: Blank | None = None  # the step checked: its poll in flight at start
        self._reading: Blank | None = None  # and a poll it began reading, not yet done
        self._settled_before: list[Blank] = []  # the polls done in the step before it

    def finished(self, step: int) -> bool:
        # Its last frame's poll is done; a blank's NMI runs at most a step after it.
        return self._done or step >= self.last_blank + 2

    def _line(self, line: int) -> int:
        return self.frames[line] if 0 <= line < len(self.frames) else 0

    def pad_for(self, emu: "Stepped") -> int:
        step = emu.frame + 1
        tracker = self.tracker
        # The polls not yet done, and the next blank's (it begins in this step), where they
        # are expected to read, as the last poll done fell.
        expected = [
            (blank.line, tracker.expected_reads(blank.step, blank.counted))
            for blank in tracker.pending
            if not blank.settled
        ]
        expected.append((tracker.next_line, tracker.expected_reads(step, None)))
        begun = tracker.in_flight()
        if (
            begun is not None
            and tracker.expected_reads(begun.step, begun.counted)[1] >= step
            and tracker.first_read_begun(emu.ram)
        ):
            # Its first read fell in the step before: this step holds its second, and the
            # next frame's first.
            return self._line(begun.line) | self._line(begun.line + 1)
        wanted = None
        for line, (first, second) in expected:
            if first == second == step:
                return self._line(line)  # read twice in this step: its buttons, no other
            if first <= step <= second:
                wanted = (wanted or 0) | self._line(line)
        if wanted is not None:
            return wanted
        # No poll expected in this step: the buttons of the first frame still to be read,
        # whose poll may come early.
        return self._line(min(line for line, (_, second) in expected if second >= step))

    def may_retry(self, emu: "Stepped") -> bool:
        """Whether the step just checked may be run again from the snapshot taken before it.
        nes-py's snapshots keep no pad's shift register: a poll that had latched the pads
        before the snapshot and read them after it would read what the first run left there.
        The poll in flight when the step began is done by its end, so its reads tell."""
        began = self._in_flight
        return began is None or began.reads is None or began.reads[0] == emu.frame

    def checked(self, pad: int, emu: "Stepped") -> int | None:
        step = emu.frame
        self._trial = trial = self.tracker.copy()
        self._trial_settled = trial.observe(step, pad, emu.ram, emu.ppu)
        began = self.tracker.in_flight()
        self._in_flight = next(
            (b for b in (*self._trial_settled, *trial.pending) if began and b.index == began.index),
            None,
        )
        self._reading = trial.in_flight() if trial.first_read_begun(emu.ram) else None
        return self._mending_pad(step, pad, trial)

    def _mending_pad(self, step: int, pad: int, trial: PollTracker) -> int | None:
        """The buttons this step needs for the polls it ended and the one it may have begun,
        if they are not `pad` and some buttons can serve them all; else None."""
        blanks = [*self._trial_settled, *trial.pending]
        ended = [b for b in blanks if b.reads is not None and b.reads[1] == step]
        whole = [b for b in ended if b.reads is not None and b.reads[0] == step]
        if whole:
            # A poll read this step alone: the step holds its frame's buttons, no other.
            # Where it holds two polls whose frames need different buttons, none serve both
            # (a conflict, named): all their buttons, so that every press comes.
            wanted = 0
            for blank in (*whole, self._reading) if self._reading else whole:
                wanted |= self._line(blank.line)
            return None if wanted == pad else wanted
        # Polls that read the step before and this one, and a poll begun (its first read
        # may fall in this step): the buttons of all their frames.
        begun = [
            b
            for b in trial.pending
            if b.counted is not None
            and b.value is None
            and trial.expected_reads(b.step, b.counted)[0] <= step
        ]
        if not ended and not begun:
            return None  # no poll read this step's buttons
        wanted = 0
        for blank in (*ended, *begun):
            wanted |= self._line(blank.line)
        before = trial.pads.get(step - 1, 0)
        for blank in ended:
            needs = self._line(blank.line)
            if needs & ~before or before & wanted & ~needs:
                return None  # the step before decides it already: a conflict, named
        return None if wanted == pad else wanted

    def accept(self, pad: int, emu: "Stepped") -> None:
        assert self._trial is not None, "accept() after checked()"
        self.tracker, self._trial = self._trial, None
        others = [*self._settled_before, *self._trial_settled]
        for blank in self._trial_settled:
            needs = self._line(blank.line)
            if blank.value is not None and blank.value != needs and blank.line < len(self.frames):
                shared = self._reading is not None and blank.reads == (emu.frame, emu.frame)
                why = _why(blank, [b for b in others if b is not blank], shared)
                self.on_conflict(Conflict(blank.line, emu.frame, needs, blank.value, why))
        self._settled_before = self._trial_settled
        # Played once the last frame's NMI has begun its poll, as a recording ends (see
        # FrameRecorder.close): FCEUX plays that frame whole, nes-py's step ended in it.
        for blank in (*self._trial_settled, *self.tracker.pending):
            if blank.index >= self.last_blank and (blank.counted is not None or blank.off):
                self._done = True

    def aligned_pad(self, step: int) -> int:
        # One whole frame a step, from blank step and its poll, in the same step.
        return self._line(step + LINE_OF_VBLANK)


def _why(blank: Blank, others: list[Blank], shared: bool) -> str:
    """What in nes-py's steps kept `blank`'s poll from reading its frame's buttons: `others`
    are the polls done in its step and the one before; `shared`, whether the next frame's
    poll began reading in the step that `blank`'s read alone."""
    assert blank.reads is not None
    first, second = blank.reads
    if first != second:
        return (
            f"it reads the pad in steps {first} and {second} and ANDs the two, and the frames "
            "around it need buttons in those steps that no choice gives it too"
        )
    if shared or any(other.reads is not None and first in other.reads for other in others):
        return f"nes-py's step {first} runs the polls of two frames, which read the same buttons"
    return (
        f"it fell in step {first}, whose buttons were chosen for another frame's poll before "
        "the step showed where the polls fell"
    )


def log_steps(log: "InputLog", on_conflict: Callable[[Conflict], None]) -> LogSteps:
    """The nes-py steps that replay `log`, whatever its lines count."""
    if log.counts_steps:
        return StepsFromSteps(log.frames)
    return MovieSteps(log.frames, on_conflict)
