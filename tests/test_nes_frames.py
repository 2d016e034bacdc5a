"""nesbot.nes_frames, checked against FCEUX itself: movies FCEUX alone defines (person-like
input from power-on) replayed on nes-py end where FCEUX ends them, and buttons played on
nes-py, written as FCEUX frames, end in FCEUX where nes-py ended."""

import numpy as np
import pytest
from fceux import FCEUX, MISSING, XVFB_RUN, fceux_end_state

from nesbot import ram
from nesbot._core.buttons import DOWN, LEFT, RIGHT, SELECT, START, A, B
from nesbot.emulator import Emulator
from nesbot.fm2 import fceux_rom_md5, write_fm2
from nesbot.nes_frames import Conflict, FramesFromSteps, StepsFromFrames, polls_in_step

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
    }


def step_counting_polls(emu: Emulator, pad: int) -> int:
    """Step the emulator with `pad`; how many pad polls the step ran."""
    before = int(emu.ram[ram.FRAME_COUNTER])
    emu.step(pad)
    return polls_in_step(before, int(emu.ram[ram.FRAME_COUNTER]))


def replay_frames(rom_path, frames: bytes) -> tuple[dict[str, int], list[Conflict]]:
    """Play FCEUX frames on nes-py through StepsFromFrames; the end state and the conflicts."""
    conflicts: list[Conflict] = []
    plan = StepsFromFrames(frames, conflicts.append)
    with Emulator(rom_path) as emu:
        for step in range(1, plan.steps + 1):
            plan.after(step, step_counting_polls(emu, plan.pad(step)))
        return ram_end_state(emu.ram), conflicts


def test_frames_from_steps_gives_a_slipped_poll_the_next_steps_buttons():
    written: list[int] = []
    frames = FramesFromSteps(written.append)
    # Step 3 polls nothing (its frame's poll slips past its end), step 4 polls two frames.
    for pad, polls in [(1, 1), (2, 1), (3, 0), (4, 2), (5, 1)]:
        frames.after(pad, polls)
    frames.close()
    frames.close()
    assert written == [0, 0, 1, 2, 4, 4, 5]  # frames 0-1 poll nothing; frame 4 read step 4


def test_steps_from_frames_names_a_frame_nes_py_cannot_give_its_buttons():
    conflicts: list[Conflict] = []
    plan = StepsFromFrames(bytes([0, 0, 0, 7, 9, 9, 9]), conflicts.append)
    assert plan.steps == 5 and [plan.pad(step) for step in range(1, 6)] == [0, 7, 9, 9, 9]
    plan.after(3, 2)  # step 3 polls frames 3 and 4: 7 and 9
    plan.after(4, 2)  # frames 4 and 5 hold the same buttons: nothing lost
    assert conflicts == [Conflict(frame=3, step=3, needs=7, gets=9)]
    assert "frame 3 needs buttons 0x07" in str(conflicts[0])


@needs_fceux
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_person_like_movie_of_fceux_ends_in_nes_py_where_fceux_ends_it(
    tmp_path, rom_path, rom_bytes, seed
):
    frames = person_like(seed, 3_000)
    movie = tmp_path / "person.fm2"
    write_fm2(movie, frames, fceux_rom_md5(rom_bytes))
    fceux = fceux_end_state(movie, rom_path)
    assert fceux.pop("frames") == len(frames)
    nes_py, conflicts = replay_frames(rom_path, frames)
    # None of these movies presses on the two frames of the step that polls two.
    assert conflicts == []
    assert nes_py == fceux


@needs_fceux
def test_nes_py_steps_written_as_fceux_frames_end_in_fceux_where_nes_py_ended(
    tmp_path, rom_path, rom_bytes
):
    pads = person_like(7, 3_000)
    written: list[int] = []
    frames = FramesFromSteps(written.append)
    with Emulator(rom_path) as emu:
        for pad in pads:
            frames.after(pad, step_counting_polls(emu, pad))
        nes_py = ram_end_state(emu.ram)
    frames.close()
    assert nes_py["game_mode"] == 4  # the movie plays a game, not only menus
    movie = tmp_path / "nesbot.fm2"
    write_fm2(movie, bytes(written), fceux_rom_md5(rom_bytes))
    fceux = fceux_end_state(movie, rom_path)
    assert fceux.pop("frames") == len(pads) + 2
    assert fceux == nes_py
