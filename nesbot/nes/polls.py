"""NES frames as FCEUX counts them, and which nes-py steps' buttons each of the game's pad
polls read.

An .fm2 line is one NES frame from power-on: FCEUX gives every pad read in frame L the
buttons of line L. nes-py's step is not a frame (29,781 CPU cycles against 29,780.5 or .67;
docs/steps.md), so nesbot follows, step by step, which frame each of the game's pad polls
belongs to and which steps' buttons it read (measured with this ROM, FCEUX 2.6.5 and nes-py
9.0.1; docs/steps.md, "FCEUX's frames"):

- Frames are counted by the PPU's vertical blanks (`nesbot.nes.timing.PpuClock.vblanks`, from the
  dots since power-on): the frame of vertical blank v is movie line v + `LINE_OF_VBLANK`.
- Each vertical blank starts the game's NMI (unless the game has switched NMIs off while it
  draws a new screen), which advances the frame counter ($00B1) and then polls the pads. The
  NMI runs into the next step when the blank falls late in a step: the counter tells how
  many NMIs each step ran, and so which blank each belongs to.
- The poll reads the pads twice and ANDs the reads. nes-py's second pad holds a stamp of
  each step (`STAMPS`; the game never acts on it), and the AND of its reads stays in RAM
  ($00F8): it names the step, or the two steps, whose buttons the poll read.

`PollTracker` follows the polls; `FrameRecorder` writes what every poll read as an FCEUX
movie. Playing a movie back step by step is nesbot.nes.movie_steps.
"""

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol

from nesbot._core.buttons import nes_to_pad
from nesbot.nes.ram import FRAME_COUNTER
from nesbot.nes.timing import DOTS_PER_STEP, FRAME_DOTS

if TYPE_CHECKING:
    import numpy as np

    from nesbot.nes.timing import PpuClock

# Vertical blank v (from 1, power-on) begins FCEUX's frame v + 1: measured, a press on line
# 100 reaches the game's held buttons in the NMI of nes-py's 99th blank.
LINE_OF_VBLANK = 1

# The second pad's buttons at each step, in turn (nes-py bit order). The game's poll reads
# both pads and never acts on the second's (measured: over 30,000 steps of play and menus,
# RAM differs only in the poll's own bytes, $AA, $F6 and $F8). Two stamps in turn AND to a
# bit of their own, so the AND of the poll's two reads names the step, or the two steps.
STAMPS = (0b011, 0b110, 0b101)
HELD_2 = 0x00F8  # the second pad's AND of the last poll's two reads (game bit order)
NEWLY_2 = 0x00F6  # its buttons that the last poll found newly pressed
PPU_CTRL_COPY = 0x00FF  # the game's copy of PPUCTRL: bit 7 turns the NMI on
NMI_ON = 0x80


def step_stamp(step: int) -> int:
    """The second pad's buttons at nes-py step `step`."""
    return STAMPS[step % len(STAMPS)]


def polls_in_step(counter_before: int, counter_after: int) -> int:
    """How many NMIs (each polls the pads) advanced the frame counter's low byte in a step."""
    return (counter_after - counter_before) & 0xFF


def _reads_of(step: int, held2: int) -> tuple[int, int] | None:
    """The steps of the two reads of the last poll done by the end of `step`, from the
    second pad's AND (game bit order): the latest steps whose stamps give it."""
    pad = nes_to_pad(held2)
    for residue, stamp in enumerate(STAMPS):
        following = (residue + 1) % len(STAMPS)
        for apart, value in ((0, stamp), (1, stamp & STAMPS[following])):
            if pad == value:
                second = step - (step - (residue + apart)) % len(STAMPS)
                return second - apart, second
    return None


def _inferred(step: int, held: int, newly: int) -> tuple[int, int] | None:
    """The reads of a poll done in `step` just before the one RAM shows (its second pad's
    AND `held`): those whose AND leaves RAM's newly pressed buttons `newly`."""
    for earlier in ((step, step), (step - 1, step), (step - 1, step - 1)):
        if held & ~_held2_of(earlier) == newly:
            return earlier
    return None


def _held2_of(reads: tuple[int, int]) -> int:
    """What the second pad's AND holds (nes-py order) for a poll that read at `reads`."""
    return step_stamp(reads[0]) & step_stamp(reads[1])


@dataclass
class Blank:
    """A vertical blank and the poll of its NMI, if it had one."""

    index: int  # vertical blanks since power-on, from 1
    step: int  # the step it began in
    age: int  # dots from its start to that step's end
    nmi_off: bool = False  # the game had NMIs off when the step ended, and none had run
    counted: int | None = None  # the step in which its NMI advanced the frame counter
    reads: tuple[int, int] | None = None  # the steps of its poll's two pad reads
    value: int | None = None  # what its poll read of the first pad: those steps' AND
    off: bool = False  # no NMI ran for it: the frame polled nothing

    @property
    def line(self) -> int:
        """Its frame: the movie line FCEUX gives its poll."""
        return self.index + LINE_OF_VBLANK

    @property
    def settled(self) -> bool:
        return self.off or self.value is not None


# The NMI's work before it advances the frame counter is at most this many dots: past it, a
# blank whose NMI has not counted at a step's end had its NMI off. (Measured: 2,400-2,900
# CPU cycles for the heaviest NMIs, those that draw a new game's playfield.)
_COUNT_WITHIN = 3 * 3_500


class PollTracker:
    """Follows every vertical blank's NMI and poll through nes-py's steps (see the module
    docstring). `observe` after every step, from power-on, returns the blanks settled by
    it, in order: polled (`value`, `reads`) or with no NMI (`off`)."""

    def __init__(self) -> None:
        self.blanks_seen = 0
        self.counter = 0  # the frame counter after the last step (RAM starts cleared)
        self.pads: dict[int, int] = {}  # the buttons of the last few steps
        self.pending: list[Blank] = []  # begun, not yet settled
        self.last_reads: tuple[int, int] | None = None
        self.last_held2 = 0  # nes-py order
        self.last_newly2 = 0  # what the last poll done left there: a read since rolls it
        # Where the last poll done fell: steps from its blank's to its NMI's count, from
        # that to its first read, and from that to its second. Where the next will fall.
        self.pattern = (0, 0, 0)

    def in_flight(self) -> Blank | None:
        """A blank whose NMI has counted and whose poll is not done yet."""
        for blank in self.pending:
            if blank.counted is not None and blank.value is None and not blank.off:
                return blank
        return None

    @property
    def next_line(self) -> int:
        """The frame of the next blank to begin."""
        return self.blanks_seen + 1 + LINE_OF_VBLANK

    def copy(self) -> "PollTracker":
        """A copy that observing does not change this one through."""
        twin = PollTracker()
        twin.blanks_seen, twin.counter = self.blanks_seen, self.counter
        twin.pads = dict(self.pads)
        twin.pending = [replace(blank) for blank in self.pending]
        twin.last_reads, twin.last_held2 = self.last_reads, self.last_held2
        twin.last_newly2, twin.pattern = self.last_newly2, self.pattern
        return twin

    def observe(self, step: int, pad: int, memory: "np.ndarray", clock: "PpuClock") -> list[Blank]:
        """Follow step `step`, run with `pad`: RAM and the PPU's clock after it."""
        self.pads[step] = pad
        self.pads.pop(step - 4, None)
        begun = clock.vblanks - self.blanks_seen
        for later in range(begun):  # nearly always one; two where a step holds two blanks
            index = self.blanks_seen + later + 1
            age = clock.since_vblank + (begun - 1 - later) * FRAME_DOTS
            self.pending.append(Blank(index, step, age))
        self.blanks_seen = clock.vblanks
        counter = int(memory[FRAME_COUNTER])
        self._count(step, polls_in_step(self.counter, counter))
        self.counter = counter
        nmi_on = bool(memory[PPU_CTRL_COPY] & NMI_ON)
        for blank in self.pending:
            if blank.counted is None and not blank.off:
                age = blank.age + (step - blank.step) * DOTS_PER_STEP
                # Its NMI would have counted within a step: none ran. Or the game has NMIs
                # off now, which it cannot have switched since an NMI that is still running.
                if step > blank.step or age >= _COUNT_WITHIN:
                    blank.off = True
                elif not nmi_on:
                    blank.nmi_off = True
        self._store(step, int(memory[HELD_2]), int(memory[NEWLY_2]))
        settled = []
        while self.pending and self.pending[0].settled:
            settled.append(self.pending.pop(0))
        return settled

    def _count(self, step: int, counts: int) -> None:
        """Give this step's frame counter advances to the blanks whose NMIs they were."""
        waiting = [b for b in self.pending if b.counted is None and not b.off]
        if counts == 1 and len(waiting) >= 2 and waiting[0].step < step:
            # One NMI: the last step's blank running late, or that blank had no NMI and
            # this step's ran. A blank seen with NMIs off had none (one too old to count
            # is marked off already, at its own step's end).
            late = waiting[0]
            if late.nmi_off:
                late.off = True
                waiting.pop(0)
        for blank in waiting[:counts]:
            blank.counted = step

    def _store(self, step: int, held2: int, newly2: int) -> None:
        """Give the polls done in this step their reads: the last one's RAM shows, and a
        poll is done within a step of its NMI's count, so every one counted before this
        step is done by its end (an earlier one's reads the second pad's newly pressed
        buttons reveal, or, failing that, where the polls have been falling)."""
        unstored = [b for b in self.pending if b.counted is not None and b.value is None]
        reads = _reads_of(step, held2)
        shown = reads is not None and reads != self.last_reads
        due = [b for b in unstored if b.counted is not None and b.counted < step]
        if not due and not (shown and unstored):
            return
        held, newly = nes_to_pad(held2), nes_to_pad(newly2)
        latest: Blank | None = None
        earlier = due
        if shown:
            assert reads is not None
            fresh = [b for b in unstored if b.counted == step]
            latest = due[-1] if due else fresh[0] if fresh else None
            alone = reads == (step, step)  # the poll RAM shows read in this step alone
            # A poll counted in this step done too (it read in this step alone), if the
            # due one's could not leave these buttons newly pressed.
            if due and fresh and alone and newly != held & ~self.last_held2:
                latest = fresh[0]
            # Two NMIs counted in this step and both polls done: the second read what the
            # first did, so it found nothing newly pressed (where the last poll before them
            # read other buttons, else this cannot tell).
            elif not due and len(fresh) >= 2 and alone and not newly and held != self.last_held2:
                latest, earlier = fresh[1], fresh[:1]
        before = self.last_held2
        for blank in earlier:
            if blank is latest:
                continue
            found = _inferred(step, held, newly) if latest is not None else None
            if found is None:
                first, second = self.expected_reads(blank.step, blank.counted)
                found = (min(first, step), min(second, step))
            self._done(blank, found)
            before = _held2_of(found)
        if latest is not None and reads is not None:
            self._done(latest, reads)
            self.last_reads, self.last_newly2 = reads, held & ~before
            self.last_held2 = held

    def _done(self, blank: Blank, reads: tuple[int, int]) -> None:
        blank.reads = reads
        blank.value = self.pads.get(reads[0], 0) & self.pads.get(reads[1], 0)
        counted = blank.counted
        assert counted is not None
        self.pattern = (counted - blank.step, reads[0] - counted, reads[1] - reads[0])

    def expected_reads(self, blank_step: int, counted: int | None) -> tuple[int, int]:
        """The steps a blank's poll is expected to read in, as the last poll's fell."""
        to_count, to_read, apart = self.pattern
        first = (blank_step + to_count if counted is None else counted) + to_read
        return first, first + apart

    def first_read_begun(self, memory: "np.ndarray") -> bool:
        """Whether the poll in flight has begun reading the pads: its reads roll the bits
        in, over what the last poll done left."""
        return nes_to_pad(int(memory[NEWLY_2])) != self.last_newly2


class FrameRecorder:
    """An emulator observer (nesbot.nes.emulator.Emulator.observers, from power-on) that writes
    the game as FCEUX frames to `log`: each frame's line holds what its poll read, a frame
    that polled nothing the buttons of the step it began in. `close()` writes the frames
    begun but not yet settled, so that FCEUX's movie ends on nes-py's last step."""

    def __init__(self, log: "FrameSink") -> None:
        self.log = log
        self.tracker = PollTracker()
        self._pads: dict[int, int] = {}  # the steps' own buttons, for frames with no poll
        for _ in range(LINE_OF_VBLANK + 1):  # the frames before the first blank's
            log.write_frame(0)

    def __call__(self, pad: int, emu: "Stepped") -> None:
        self._pads[emu.frame] = pad
        for blank in self.tracker.observe(emu.frame, pad, emu.ram, emu.ppu):
            self._write(blank)

    def _write(self, blank: Blank) -> None:
        own = self._pads.pop(blank.step, 0)
        self.log.write_frame(blank.value if blank.value is not None else own)
        for step in [step for step in self._pads if step < blank.step]:
            del self._pads[step]

    def close(self) -> None:
        """Write the frames still open whose NMI has run; calling it again does nothing.
        (A blank that began at the last step's end has not run its NMI in nes-py: FCEUX,
        which plays a movie's last frame whole, would play a frame more.)"""
        pending, self.tracker.pending = self.tracker.pending, []
        for blank in pending:
            if blank.counted is not None or blank.off:
                self._write(blank)


class FrameSink(Protocol):
    """Where FrameRecorder writes: an Fm2Writer, or anything else that takes frames."""

    def write_frame(self, pad: int) -> None: ...


class Stepped(Protocol):
    """What an observer reads of the emulator after a step (nesbot.nes.emulator.Emulator)."""

    frame: int
    ppu: "PpuClock"

    @property
    def ram(self) -> "np.ndarray": ...
