"""Record a game, replay it: identical RAM at every frame; both engines give one trace."""

import hashlib
import io
import json

import numpy as np
import pytest

from cython_core.buttons import DOWN, LEFT, RIGHT, A, B
from nesbot import ram
from nesbot.fm2 import Fm2Writer, fceux_rom_md5, read_fm2
from nesbot.menus import GameSetup
from nesbot.play import run_game
from nesbot.replay import replay_on_emulator, replay_on_simulator, verify

GAME_FRAMES = 1500


def _ram_digest(emu) -> bytes:
    return hashlib.blake2b(emu.ram.tobytes(), digest_size=8).digest()


@pytest.fixture(scope="module")
def recording(rom, emulator, tmp_path_factory):
    """A level-19 game from power-on played with seeded random buttons, its .fm2 log, and
    a digest of the RAM after every frame."""
    path = tmp_path_factory.mktemp("logs") / "game.fm2"
    rng = np.random.default_rng(5)
    choices = [0, LEFT, RIGHT, A, B, DOWN, 0, 0]
    digests = []
    emulator.power_on()
    with Fm2Writer(path, fceux_rom_md5(rom.data), [("seed", "5")]) as log:
        emulator.observers[:] = [
            lambda pad, _emu: log.write_frame(pad),
            lambda pad, emu: digests.append(_ram_digest(emu)),
        ]
        result = run_game(
            emulator,
            GameSetup(level=19, seed=5),
            rom,
            policy=lambda state: int(rng.choice(choices)),
            max_frames=GAME_FRAMES,
        )
    emulator.observers.clear()
    return path, digests, result


def test_replay_gives_identical_ram_every_frame(rom, recording):
    path, digests, result = recording
    replayed = []
    summary = replay_on_emulator(
        rom, read_fm2(path), observers=(lambda pad, emu: replayed.append(_ram_digest(emu)),)
    )
    assert len(replayed) == len(digests)
    assert replayed == digests
    assert (summary.score, summary.lines, summary.level) == (
        result.score,
        result.lines,
        result.level,
    )
    assert summary.pieces == result.pieces


def test_engines_write_identical_traces(rom, recording):
    log = read_fm2(recording[0])
    emulated, simulated = io.StringIO(), io.StringIO()
    by_emulator = replay_on_emulator(rom, log, emulated)
    by_simulator = replay_on_simulator(rom, log, simulated)
    assert by_emulator == by_simulator
    records = [json.loads(line) for line in emulated.getvalue().splitlines()]
    assert len(records) == by_emulator.pieces >= 5
    assert set(records[0]) == {
        "frame",
        "piece",
        "next",
        "x",
        "y",
        "board",
        "lines",
        "score",
        "level",
    }
    assert len(records[0]["board"]) == 20 and all(len(row) == 10 for row in records[0]["board"])
    assert emulated.getvalue() == simulated.getvalue()


def test_verify_finds_no_divergence(rom, recording):
    frames, divergence = verify(rom, read_fm2(recording[0]))
    assert divergence is None, str(divergence)
    assert frames > 100


def test_trace_records_match_ram(rom, recording, emulator):
    """Each trace record equals what RAM shows at that frame of a plain replay."""
    log = read_fm2(recording[0])
    trace = io.StringIO()
    replay_on_emulator(rom, log, trace)
    records = {r["frame"]: r for r in map(json.loads, trace.getvalue().splitlines())}
    emulator.power_on()
    for frame, pad in enumerate(log.frames, start=1):
        emulator.step(pad)
        if frame in records:
            state = ram.decode(emulator.ram)
            assert state.active
            assert records[frame]["board"] == state.board_rows()
            assert (records[frame]["piece"], records[frame]["x"]) == (state.piece, state.x)
        if frame >= max(records):
            break
