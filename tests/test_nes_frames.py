"""nesbot.nes.polls and nesbot.nes.movie_steps, checked against FCEUX itself: movies FCEUX
alone defines (person-like and random input from power-on, a movie with frames taken out or
put in) replayed on nes-py end where FCEUX ends them or name the frame they cannot play, and
games played on nes-py, written as FCEUX frames, end in FCEUX where nes-py ended."""

from pathlib import Path

import numpy as np
import pytest
from fceux import FCEUX, MISSING, XVFB_RUN, fceux_end_state
from nes_py import NESEnv

from nesbot._core.buttons import DOWN, LEFT, RIGHT, SELECT, START, A, B, pad_to_nes
from nesbot.nes import ram
from nesbot.nes.emulator import Emulator
from nesbot.nes.fm2 import Fm2Writer, fceux_rom_md5, write_fm2
from nesbot.nes.movie_steps import Conflict, MovieSteps
from nesbot.nes.polls import HELD_2, NEWLY_2, FrameRecorder, _reads_of, polls_in_step, step_stamp
from nesbot.nes.replay import step_log

needs_fceux = pytest.mark.skipif(FCEUX is None or XVFB_RUN is None, reason=MISSING)


def person_like(seed: int, frames: int) -> bytes:
    """One button at a time, held 2-5 frames, 4-8 frames apart; Start and Select rarely, so
    that the game gets through its menus and is played (and paused) a while."""
    rng = np.random.default_rng(seed)
    buttons = [A, B, LEFT, RIGHT, DOWN, START, SELECT]
    odds = np.array([3, 3, 4, 4, 3, 1, 0.3])
    pads = bytearray(frames)
    frame = 0
    while frame < frames:
        frame += int(rng.integers(4, 9))
        end = min(frame + int(rng.integers(2, 6)), frames)
        pads[frame:end] = bytes([int(rng.choice(buttons, p=odds / odds.sum()))]) * (end - frame)
        frame = end
    return bytes(pads)


def ram_end_state(memory: np.ndarray) -> dict[str, int]:
    """The fields tests/data/fceux_end_state.lua reads, from nes-py's RAM."""
    return {
        "lines": ram.bcd_value(*(int(byte) for byte in memory[ram.LINES : ram.LINES + 2])),
        "score": ram.bcd_value(*(int(byte) for byte in memory[ram.SCORE : ram.SCORE + 3])),
        "level": int(memory[ram.LEVEL_NUMBER]),
        "play_state": int(memory[ram.PLAY_STATE]),
        "game_mode": int(memory[ram.GAME_MODE]),
        "frame_counter": int(memory[ram.FRAME_COUNTER]),
        "piece": int(memory[ram.CURRENT_PIECE]),
        "column": int(memory[ram.TETRIMINO_X]),
        "next": int(memory[ram.NEXT_PIECE]),
    }


def end_state_as_fceux_reads(emulator: Emulator) -> dict[str, int]:
    """nes-py's end state read as tests/data/fceux_end_state.lua reads FCEUX's: after the
    last frame's logic. Where the last step ended before that logic (the NMI's flag still
    set: past the pad poll, docs/steps.md), one more step without buttons runs it, and the
    frame count of the next NMI, if that step reached it too, is taken back off."""
    nmis_after = 0
    if emulator.ram[ram.NMI_WAITING]:
        counter = int(emulator.ram[ram.FRAME_COUNTER])
        emulator.step(0)
        nmis_after = polls_in_step(counter, int(emulator.ram[ram.FRAME_COUNTER]))
        # One frame's logic more, not the next frame's too (which would be a frame ahead).
        assert not (nmis_after and not emulator.ram[ram.NMI_WAITING]), "read a frame late"
    state = ram_end_state(emulator.ram)
    state["frame_counter"] = (state["frame_counter"] - nmis_after) & 0xFF
    return state


def record(rom_path: Path, pads: bytes, movie: Path) -> dict[str, int]:
    """Play one pad byte a step on nes-py from power-on, written to `movie` as FCEUX frames;
    the end state."""
    with (
        Fm2Writer(movie, fceux_rom_md5(rom_path.read_bytes())) as log,
        Emulator(rom_path) as emu,
    ):
        recorder = FrameRecorder(log)
        emu.observers.append(recorder)
        for pad in pads:
            emu.step(pad)
        recorder.close()
        return ram_end_state(emu.ram)


def replay(rom_path: Path, frames: bytes) -> tuple[dict[str, int], list[Conflict]]:
    """Play FCEUX frames on nes-py (MovieSteps); the end state and the frames named."""
    conflicts: list[Conflict] = []
    with Emulator(rom_path) as emu:
        for _ in step_log(emu, MovieSteps(frames, conflicts.append)):
            pass
        return ram_end_state(emu.ram), conflicts


def frames_of(movie: Path) -> bytes:
    from nesbot.nes.fm2 import read_fm2

    return read_fm2(movie).frames


def test_the_second_pads_and_names_the_steps_a_poll_read():
    for step in range(30, 36):
        for first in (step - 1, step):
            held2 = pad_to_nes(step_stamp(first) & step_stamp(step))
            assert _reads_of(step, held2) == (first, step)
    # A poll done a step before: the latest steps whose stamps give its AND.
    assert _reads_of(31, pad_to_nes(step_stamp(30))) == (30, 30)
    assert _reads_of(31, 0) is None  # before the first poll


def test_the_game_never_acts_on_the_second_pad(rom_path):
    """The stamps change nothing but the poll's own bytes: RAM as with no second pad."""
    plain = NESEnv(str(rom_path))
    plain.reset()
    poll_bytes = [HELD_2, NEWLY_2, 0xAA]  # and $AA, where the poll keeps the first read
    with Emulator(rom_path) as emu:
        for pad in person_like(4, 3_000):
            emu.step(pad)
            plain._frame_advance(pad)
            assert (np.delete(emu.ram, poll_bytes) == np.delete(plain.ram, poll_bytes)).all()
        assert ram.decode(emu.ram).game_mode == ram.decode(plain.ram).game_mode
    plain.close()


@needs_fceux
@pytest.mark.parametrize("seed", [1, 3, 6])
def test_a_person_like_movie_of_fceux_ends_in_nes_py_where_fceux_ends_it(
    tmp_path, rom_path, rom_bytes, seed
):
    frames = person_like(seed, 3_000)
    movie = tmp_path / "person.fm2"
    write_fm2(movie, frames, fceux_rom_md5(rom_bytes))
    fceux = fceux_end_state(movie, rom_path)
    assert fceux.pop("frames") == len(frames)
    nes_py, conflicts = replay(rom_path, frames)
    assert nes_py["game_mode"] == 4  # the movie plays a game, not only menus
    # None of these movies presses on the two frames of a step that polls two.
    assert conflicts == []
    assert nes_py == fceux


@needs_fceux
def test_a_game_on_nes_py_written_as_fceux_frames_ends_in_fceux_where_it_ended(tmp_path, rom_path):
    movie = tmp_path / "nesbot.nes.fm2"
    nes_py = record(rom_path, person_like(7, 3_000), movie)
    assert nes_py["game_mode"] == 4
    fceux = fceux_end_state(movie, rom_path)
    fceux.pop("frames")
    assert fceux == nes_py
    # And read back: nes-py plays the movie to the same state.
    assert replay(rom_path, frames_of(movie)) == (nes_py, [])


@needs_fceux
@pytest.mark.parametrize("change", ["remove", "add"])
def test_a_movie_with_a_frame_taken_out_or_put_in_plays_as_fceux_plays_it(
    tmp_path, rom_path, rom_bytes, change
):
    frames = bytearray(person_like(6, 3_000))
    at = 1_500  # mid-game: every later press comes a frame earlier, or later
    if change == "remove":
        del frames[at]
    else:
        frames.insert(at, frames[at])
    movie = tmp_path / "changed.fm2"
    write_fm2(movie, bytes(frames), fceux_rom_md5(rom_bytes))
    fceux = fceux_end_state(movie, rom_path)
    fceux.pop("frames")
    nes_py, conflicts = replay(rom_path, bytes(frames))
    assert conflicts == []
    assert nes_py == fceux


# Start on the title, the game type and the level menus, and once more: a level-0 game.
TO_A_GAME = {267: START, 272: START, 276: START, 281: START}


@needs_fceux
def test_a_step_that_polls_two_frames_gives_each_press_its_poll(tmp_path, rom_path, rom_bytes):
    """A new game's first frame draws its playfield: its NMI runs late, into the nes-py step
    that polls the next frame too, and both polls read the same buttons. A press on the
    first of the two frames is named, and the step holds both frames' buttons, so that the
    press still comes in its frame (and lasts a frame longer): the piece turns as in FCEUX."""
    frames = bytearray(400)
    for frame, pad in TO_A_GAME.items():
        frames[frame] = pad
    frames[286] = A  # step 286 polls frames 286 and 287 (measured)
    movie = tmp_path / "turn.fm2"
    write_fm2(movie, bytes(frames), fceux_rom_md5(rom_bytes))
    fceux = fceux_end_state(movie, rom_path)
    fceux.pop("frames")
    nes_py, conflicts = replay(rom_path, bytes(frames))
    assert [(c.frame, c.needs, c.gets) for c in conflicts] == [(287, 0, A)]
    assert "runs the polls of two frames" in conflicts[0].why
    assert nes_py == fceux and nes_py["game_mode"] == 4


@needs_fceux
def test_random_input_plays_as_fceux_plays_it_or_names_the_frame(tmp_path, rom_path, rom_bytes):
    """New buttons every frame: where a step polls two frames that hold different buttons,
    nes-py cannot play it, and says so. The game it plays differs only where it said so."""
    rng = np.random.default_rng(11)
    frames = bytes(rng.choice([0, A, B, LEFT, RIGHT, DOWN, START, A | RIGHT], 3_000).tolist())
    movie = tmp_path / "random.fm2"
    write_fm2(movie, frames, fceux_rom_md5(rom_bytes))
    fceux = fceux_end_state(movie, rom_path)
    fceux.pop("frames")
    nes_py, conflicts = replay(rom_path, frames)
    if nes_py != fceux:
        assert conflicts, "nes-py played another game and named no frame"
    for conflict in conflicts:
        assert frames[conflict.frame] == conflict.needs != conflict.gets
