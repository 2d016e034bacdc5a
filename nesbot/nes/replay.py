"""Replaying input logs on the emulator or the simulator, and verifying one against the other.

A log's lines are NES frames as FCEUX counts them, or nes-py's steps in logs nesbot wrote
before (nesbot.nes.movie_steps.log_steps turns either into the buttons of each step). Where nes-py
cannot give a frame the buttons the log holds, `on_conflict` hears of it: by default
(`stop_at_conflicts`) the replay stops with an error naming the frame.

A replay covers the first game in the log: it ends at the last frame of the log or at the
game's top-out, whichever comes first. Per-piece trace records are taken on the first step
after which RAM shows game mode 4 and play state 1 for that piece.
"""

import json
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from typing import Protocol

from nesbot._core.buttons import DOWN, LEFT, RIGHT, SELECT, START, A, B
from nesbot._core.game import Game
from nesbot.errors import NesbotError
from nesbot.nes import ram
from nesbot.nes.emulator import Emulator
from nesbot.nes.fm2 import InputLog
from nesbot.nes.movie_steps import Conflict, ConflictError, LogSteps, log_steps
from nesbot.nes.rom import Rom
from nesbot.nes.timing import ALIGNED_FRAMES

OnConflict = Callable[[Conflict], None]

RESET_COMBO = A | B | SELECT | START
HALF_SPEED_DPAD = DOWN | LEFT | RIGHT  # held alone, the ROM runs its logic every other frame


@dataclass(frozen=True)
class ReplaySummary:
    """What `nesbot replay --json` prints. `frames` counts the game's frames from its first
    (as `nesbot play` does; 0 if no game began), `steps` nes-py's steps from power-on."""

    frames: int
    steps: int
    pieces: int
    score: int
    lines: int
    level: int
    topped_out: bool

    def to_json(self, **extra: object) -> str:
        return json.dumps(asdict(self) | extra)

    def differences(self, recorded: dict[str, int]) -> list[str]:
        """How this replay differs from what the log recorded (its result comment), one
        phrase per figure: empty when the game replayed as it was played."""
        found = asdict(self)
        return [
            f"{key} {found[key]:,} (recorded {value:,})"
            for key, value in recorded.items()
            if key in found and found[key] != value
        ]


class TraceSink(Protocol):
    """Where --trace lines go: an open text file, or nesbot.output_file.OutputFile."""

    def write(self, text: str, /) -> object: ...


def trace_record(state: ram.GameState, frame: int) -> dict:
    """The --trace record of a newly active piece."""
    return {
        "frame": frame,
        "piece": state.piece,
        "next": state.next,
        "x": state.x,
        "y": state.y,
        "board": state.board_rows(),
        "lines": state.lines,
        "score": state.score,
        "level": state.level,
    }


class _PieceTracer:
    """Counts pieces and writes a trace record when a piece becomes active."""

    def __init__(self, sink: TraceSink | None) -> None:
        self.sink = sink
        self.pieces = 0
        self.was_active = False
        self.first_step: int | None = None  # the step after which the first piece was active

    def observe(self, memory, frame: int) -> bool:
        """Look at RAM after a step; returns whether a piece is active. Decoding is costly,
        so it happens only for a new piece."""
        active = ram.piece_active(memory)
        if active and not self.was_active:
            if self.first_step is None:
                self.first_step = frame
            self.pieces += 1
            if self.sink is not None:
                state = ram.decode(memory)
                self.sink.write(json.dumps(trace_record(state, frame)) + "\n")
        self.was_active = active
        return active


def _summary(state: ram.GameState, steps: int, tracer: "_PieceTracer") -> ReplaySummary:
    frames = steps - tracer.first_step if tracer.first_step is not None else 0
    return ReplaySummary(
        frames, steps, tracer.pieces, state.score, state.lines, state.level, state.topped_out
    )


def stop_at_conflicts(log: InputLog) -> OnConflict:
    """The default on_conflict: stop the replay with an error naming the frame."""

    def stop(conflict: Conflict) -> None:
        raise ConflictError(log.source, conflict)

    return stop


# Tries of one step with other buttons, where a poll read other buttons than its frame's.
STEP_TRIES = 3


def step_log(emu: Emulator, plan: LogSteps) -> Iterator[int]:
    """Step `emu` on through the log's steps, from the one after `emu.frame` (power-on: 0)
    to the log's end; yield each step's buttons once it has run.

    A movie of frames is checked step by step (nesbot.nes.movie_steps.MovieSteps): a step whose
    polls read other buttons than their frames hold is run again from a snapshot with the
    buttons that mend it, where the plan allows. Only the step kept reaches the emulator's
    observers."""
    while not plan.finished(emu.frame):
        pad = plan.pad_for(emu)
        if not plan.checks:
            emu.step(pad)
            yield pad
            continue
        observers, emu.observers = emu.observers, []
        try:
            snapshot = emu.save_state()
            for tries_left in range(STEP_TRIES - 1, -1, -1):
                emu.step(pad)
                other = plan.checked(pad, emu)
                if other is None or not tries_left or not plan.may_retry(emu):
                    break
                emu.load_state(snapshot)
                pad = other
        finally:
            emu.observers = observers
        plan.accept(pad, emu)
        for observer in observers:
            observer(pad, emu)
        yield pad


def _emulator_until_first_piece(emu: Emulator, plan: LogSteps, tracer: _PieceTracer) -> bool:
    """Step the log on the emulator until the first piece of a game is active (False if the
    log ends before that)."""
    return any(tracer.observe(emu.ram, emu.frame) for _ in step_log(emu, plan))


def replay_on_emulator(
    rom: Rom,
    log: InputLog,
    trace: TraceSink | None = None,
    observers: tuple[Callable[[int, Emulator], None], ...] = (),
    on_conflict: OnConflict | None = None,
) -> ReplaySummary:
    """Replay every frame of the log on the emulator."""
    tracer = _PieceTracer(trace)
    plan = log_steps(log, on_conflict or stop_at_conflicts(log))
    with Emulator(rom.path) as emu:
        emu.observers.extend(observers)
        for _ in step_log(emu, plan):
            tracer.observe(emu.ram, emu.frame)
            if emu.ram[ram.PLAY_STATE] == ram.PLAY_TOPPED_OUT:
                break
        return _summary(ram.decode(emu.ram), emu.frame, tracer)


def _check_sim_can_follow(log: InputLog, start: int) -> None:
    if start not in ALIGNED_FRAMES:
        raise NesbotError(
            f"the game in {log.source} starts at frame {start}, outside frames "
            f"{ALIGNED_FRAMES.start}-{ALIGNED_FRAMES.stop} where a nes-py step is one whole "
            "game frame, so the simulator cannot follow it; use --engine emulator"
        )


def _check_modelled(pad: int, previous: int, frame: int, source: str) -> None:
    if pad & START and not previous & START:
        raise NesbotError(
            f"{source} frame {frame} presses Start during play (pause), which the simulator "
            "does not model; use --engine emulator"
        )
    if pad & RESET_COMBO == RESET_COMBO or pad & 0xF0 == HALF_SPEED_DPAD:
        raise NesbotError(
            f"{source} frame {frame} holds a button combination the simulator does not model "
            "(reset, or Down+Left+Right); use --engine emulator"
        )


def _sim_frames(game: Game, plan: LogSteps, start: int, source: str) -> Iterator[tuple[int, int]]:
    """Step the game through the log from step `start`; yield (step, pad) after each. In
    the whole-frame steps the simulator follows, each step polls one frame."""
    previous = plan.aligned_pad(start) if start else 0
    frame = start
    while frame < plan.steps:  # in whole-frame steps, the step of the log's last frame
        frame += 1
        pad = plan.aligned_pad(frame)
        _check_modelled(pad, previous, frame, source)
        game.step(pad)
        previous = pad
        yield frame, pad
        if game.topped_out:
            return


def replay_on_simulator(
    rom: Rom,
    log: InputLog,
    trace: TraceSink | None = None,
    on_conflict: OnConflict | None = None,
) -> ReplaySummary:
    """Replay the menus on the emulator, then the game from its first active frame on the
    simulator alone (NesbotError for a log that never reaches one, as verify says)."""
    tracer = _PieceTracer(trace)
    plan = log_steps(log, on_conflict or stop_at_conflicts(log))
    with Emulator(rom.path) as emu:
        if not _emulator_until_first_piece(emu, plan, tracer):
            raise NesbotError(
                f"{log.source} never reaches an active piece; no game for the simulator "
                "(--engine emulator replays the menus)"
            )
        _check_sim_can_follow(log, emu.frame)
        base = emu.ram.copy()
    game = ram.game_from_ram(base)
    frame = start = emu.frame
    for frame, _ in _sim_frames(game, plan, start, log.source):
        # Writing RAM costs more than stepping: only when a new piece may be active.
        if game.active != tracer.was_active:
            tracer.observe(ram.game_to_ram(game, base), frame)
    return _summary(ram.decode(ram.game_to_ram(game, base)), frame, tracer)


@dataclass(frozen=True)
class Divergence:
    frame: int
    field: str
    emulator: object
    simulator: object

    def __str__(self) -> str:
        return (
            f"first divergence at frame {self.frame}: {self.field}: "
            f"emulator {self.emulator!r}, simulator {self.simulator!r}"
        )


@dataclass(frozen=True)
class Verification:
    frames: int  # frames compared
    divergence: Divergence | None
    window_ended: bool  # stopped at the end of ALIGNED_FRAMES while the game went on


def verify(
    rom: Rom,
    log: InputLog,
    observers: tuple[Callable[[int, Emulator], None], ...] = (),
    on_conflict: OnConflict | None = None,
) -> Verification:
    """Run emulator and simulator in lockstep from the first active frame and compare the
    whole modelled state after every frame, up to top-out, the end of the log, or the end of
    the frames where a nes-py step is one whole game frame (ALIGNED_FRAMES), whichever comes
    first. `observers` see every emulator step (progress)."""
    tracer = _PieceTracer(None)
    plan = log_steps(log, on_conflict or stop_at_conflicts(log))
    with Emulator(rom.path) as emu:
        emu.observers.extend(observers)
        if not _emulator_until_first_piece(emu, plan, tracer):
            raise NesbotError(f"{log.source} never reaches an active piece; nothing to verify")
        _check_sim_can_follow(log, emu.frame)
        game = ram.game_from_ram(emu.ram)
        compared = 0
        for frame, pad in _sim_frames(game, plan, emu.frame, log.source):
            emu.step(pad)
            compared += 1
            divergence = first_difference(emu, game, frame)
            if divergence is not None:
                return Verification(compared, divergence, False)
            if game.topped_out:
                break
            if emu.frame + 1 >= ALIGNED_FRAMES.stop:
                return Verification(compared, None, True)
        return Verification(compared, None, False)


def first_difference(emu: Emulator, game: Game, frame: int) -> Divergence | None:
    expected = ram.decode(emu.ram)
    actual = ram.decode(ram.game_to_ram(game, emu.ram))
    for field, emulated, simulated in expected.differences(actual):
        return Divergence(frame, field, emulated, simulated)
    # Then the raw bytes behind the decoded values (BCD digits, counters, statistics).
    emulated_state = ram.game_from_ram(emu.ram).state()
    for field, simulated in game.state().items():
        if emulated_state[field] != simulated:
            return Divergence(frame, field, emulated_state[field], simulated)
    return None
