"""Record a game, replay it: identical RAM at every frame; both engines give one trace."""

import hashlib
import io
import json

import numpy as np
import pytest

from nesbot import ram
from nesbot._core.buttons import DOWN, LEFT, RIGHT, A, B
from nesbot.fm2 import Fm2Writer, fceux_rom_md5, read_fm2
from nesbot.menus import GameSetup, start_game
from nesbot.play import play_game
from nesbot.replay import replay_on_emulator, replay_on_simulator, trace_record, verify

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
        setup = GameSetup(level=19, seed=5)
        start_game(emulator, setup)
        result = play_game(
            emulator,
            setup,
            rom,
            policy=lambda memory, frame: int(rng.choice(choices)),
            max_frames=GAME_FRAMES,
        )
    emulator.observers.clear()
    return path, digests, result


@pytest.fixture(scope="module")
def emulated(rom, recording):
    """The recording replayed on the emulator: RAM digests, trace text, summary, and the
    decoded state at every frame where a new piece became active."""
    digests, new_pieces, was_active = [], [], False

    def watch(pad, emu):
        nonlocal was_active
        digests.append(_ram_digest(emu))
        state = ram.decode(emu.ram)
        if state.active and not was_active:
            new_pieces.append((emu.frame, state))
        was_active = state.active

    trace = io.StringIO()
    summary = replay_on_emulator(rom, read_fm2(recording[0]), trace, observers=(watch,))
    return digests, trace.getvalue(), summary, new_pieces


def test_replay_gives_identical_ram_every_frame(recording, emulated):
    _path, recorded_digests, result = recording
    digests, _trace, summary, _ = emulated
    assert digests == recorded_digests
    assert (summary.score, summary.lines, summary.level, summary.pieces) == (
        result.score,
        result.lines,
        result.level,
        result.pieces,
    )


def test_trace_records_are_what_ram_shows(emulated):
    _digests, trace, summary, new_pieces = emulated
    records = [json.loads(line) for line in trace.splitlines()]
    assert len(records) == len(new_pieces) == summary.pieces >= 5
    for record, (frame, state) in zip(records, new_pieces, strict=True):
        assert record == trace_record(state, frame)
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


def test_simulator_engine_writes_the_same_trace(rom, recording, emulated):
    simulated = io.StringIO()
    by_simulator = replay_on_simulator(rom, read_fm2(recording[0]), simulated)
    assert by_simulator == emulated[2]
    assert simulated.getvalue() == emulated[1]


def test_verify_finds_no_divergence(rom, recording):
    result = verify(rom, read_fm2(recording[0]))
    assert result.divergence is None, str(result.divergence)
    assert result.frames > 100 and not result.window_ended
