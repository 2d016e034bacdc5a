"""Record a game, replay it: identical RAM at every frame; both engines give the trace the
recording saw in RAM."""

import copy
import io
import json
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from conftest import Boot, MovieFrames

from nesbot._core.buttons import DOWN, LEFT, RIGHT, A, B
from nesbot.bot.session import GameResult, play_game
from nesbot.errors import NesbotWarning
from nesbot.nes import ram
from nesbot.nes.fm2 import Fm2Writer, fceux_rom_md5, read_fm2, write_fm2
from nesbot.nes.menus import GameSetup, start_game
from nesbot.nes.polls import FrameRecorder
from nesbot.nes.replay import (
    ReplaySummary,
    replay_on_emulator,
    replay_on_simulator,
    trace_record,
    verify,
)

GAME_FRAMES = 1500


@dataclass(frozen=True)
class Recording:
    log: Path  # the game as a log of nes-py's steps, from power-on (nesbot's older logs)
    movie: Path  # the same game as an FCEUX movie of NES frames, as nesbot writes now
    ram_digests: list[bytes]  # the RAM after every frame
    trace: list[dict]  # the --trace record of every new piece, built here from RAM
    summary: ReplaySummary  # what a replay of the log must report
    result: GameResult  # what play_game reported


def _record(emulator, rom, ram_digest, path: Path, boot: Boot | None) -> Recording:
    """A level-19 game from power-on played with seeded random buttons: its .fm2 log and
    movie, a digest of the RAM after every frame, and the trace records of its new pieces.
    With `boot`, the game starts at the first aligned step and, up to the level menu, these
    are the session's boot (its pads and RAM digests, kept step by step: starting a game
    from power-on steps through the same menus, nesbot.nes.menus); without, the emulator is
    switched on again and the game starts as soon as the menus allow, a few hundred steps
    in. The game is recorded live from there on."""
    rng = np.random.default_rng(5)
    choices = [0, LEFT, RIGHT, A, B, DOWN, 0, 0]
    digests, trace, was_active = list(boot.ram_digests if boot else ()), [], False

    def watch(_pad: int, emu) -> None:
        nonlocal was_active
        digests.append(ram_digest(emu))
        state = ram.decode(emu.ram)
        if state.active and not was_active:
            trace.append(trace_record(state, emu.frame))  # the record's fields, seen live
        was_active = state.active

    # A log of nes-py's steps, as nesbot wrote before its logs counted FCEUX's frames.
    # The recorder writes the same steps as FCEUX frames (from the boot's, to go on from).
    recorder = copy.deepcopy(boot.recorder) if boot else FrameRecorder(MovieFrames())
    with Fm2Writer(path, fceux_rom_md5(rom.data), [("seed", "5")], counts_steps=True) as log:
        if boot:
            for pad in boot.pads:
                log.write_frame(pad)
            emulator.load_state(boot.state)
        emulator.observers[:] = [lambda pad, _emu: log.write_frame(pad), recorder, watch]
        if not boot:
            emulator.power_on()
        setup = GameSetup(level=19, seed=5)
        start_game(emulator, setup, align=boot is not None)
        with warnings.catch_warnings():  # outside the aligned steps, play says so
            warnings.simplefilter("ignore", NesbotWarning)
            result = play_game(
                emulator,
                setup,
                rom,
                policy=lambda memory, frame: int(rng.choice(choices)),
                max_frames=GAME_FRAMES,
            )
    emulator.observers.clear()
    recorder.close()
    movie = path.with_name(f"{path.stem}-movie.fm2")
    write_fm2(movie, bytes(recorder.log.frames), fceux_rom_md5(rom.data), [("seed", "5")])
    end = ram.decode(emulator.ram)
    assert len(digests) == emulator.frame  # one per frame from power-on
    assert len(trace) == result.pieces >= 5
    assert trace[-1]["board"] != ["." * 10] * 20  # pieces have locked by the last record
    # Game frames as play counts them, and steps since power-on: replay counts both alike.
    summary = ReplaySummary(
        result.frames, emulator.frame, len(trace), end.score, end.lines, end.level, end.topped_out
    )
    return Recording(path, movie, digests, trace, summary, result)


# Session scope: once per test process, whichever tests of this module run in it.
@pytest.fixture(scope="session")
def recording(rom, emulator, boot, ram_digest, tmp_path_factory) -> Recording:
    """A game in the aligned steps, as nesbot plays (the simulator can follow it)."""
    return _record(emulator, rom, ram_digest, tmp_path_factory.mktemp("logs") / "game.fm2", boot)


@pytest.fixture(scope="session")
def early_recording(rom, emulator, ram_digest, tmp_path_factory) -> Recording:
    """A game started a few hundred steps after power-on, as a person's log starts: its
    replay on the emulator need not wait 24,000 steps in the level menu first."""
    early = _record(emulator, rom, ram_digest, tmp_path_factory.mktemp("logs") / "early.fm2", None)
    assert early.summary.steps < 3_000
    return early


# The movie's RAM on the emulator is checked by verify (below), which replays it there too.
def test_emulator_replay_of_a_log_of_steps_gives_identical_ram_and_trace(
    rom, early_recording, ram_digest
):
    digests = []
    trace = io.StringIO()
    summary = replay_on_emulator(
        rom,
        read_fm2(early_recording.log),
        trace,
        observers=(lambda pad, emu: digests.append(ram_digest(emu)),),
    )
    assert digests == early_recording.ram_digests
    assert [json.loads(line) for line in trace.getvalue().splitlines()] == early_recording.trace
    assert summary == early_recording.summary
    result = early_recording.result
    assert (summary.score, summary.lines, summary.level, summary.pieces) == (
        result.score,
        result.lines,
        result.level,
        result.pieces,
    )


# The simulator and verify, each a replay from power-on, read the movie: the same game as
# the log of steps (the test above), in NES frames.
def test_simulator_engine_writes_the_same_trace(rom, recording):
    trace = io.StringIO()
    summary = replay_on_simulator(rom, read_fm2(recording.movie), trace)
    assert [json.loads(line) for line in trace.getvalue().splitlines()] == recording.trace
    assert summary == recording.summary


def test_verify_finds_no_divergence_and_the_movie_gives_identical_ram(rom, recording, ram_digest):
    digests = []
    result = verify(
        rom,
        read_fm2(recording.movie),
        observers=(lambda pad, emu: digests.append(ram_digest(emu)),),
    )
    assert result.divergence is None, str(result.divergence)
    assert result.frames > 100 and not result.window_ended
    assert digests == recording.ram_digests  # the emulator's every step, from power-on
