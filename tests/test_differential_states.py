"""Lockstep in states random play never reaches, set up by writing RAM between pieces.

How the states are made: on the first active frame of a game (the emulator between two
frames, the first piece in its 96-frame gravity hold), the test writes the persistent
player copy ($60-$7F: current piece, level, lines, score), the preview ($BF) and the
playfield ($0400-$04C7) into emulator RAM. The ROM copies $60-$7F into its working copy
at the next frame, so the game simply goes on from there. The simulator is then built from
that RAM, and both are stepped together and compared after every frame.
"""

import numpy as np
import pytest
from lockstep import lockstep

from nesbot._core.buttons import DOWN, LEFT, RIGHT, A, B
from nesbot.nes import ram

I_VERTICAL = 0x11
NEAR_FULL = 0x1FF  # columns 0-8 filled, column 9 open


def _bcd(value: int, size: int) -> list[int]:
    digits = f"{value:0{2 * size}d}"
    return [int(digits[i : i + 2], 16) for i in range(2 * size - 2, -1, -2)]


def _set_up(
    emulator,
    rows: dict[int, int],
    piece: int = I_VERTICAL,
    lines: int | None = None,
    level: int | None = None,
    score: int | None = None,
) -> None:
    r = emulator.ram
    r[ram.PLAYFIELD : ram.PLAYFIELD + 200] = ram.EMPTY_TILE
    for row, mask in rows.items():
        for column in range(10):
            if mask >> column & 1:
                r[ram.PLAYFIELD + 10 * row + column] = 0x7B
    r[ram.CURRENT_PIECE] = piece
    if lines is not None:
        r[ram.LINES : ram.LINES + 2] = _bcd(lines, 2)
    if level is not None:
        r[ram.LEVEL_NUMBER] = level
    if score is not None:
        r[ram.SCORE : ram.SCORE + 3] = _bcd(score, 3)


def _drop_in_column_9(idle: int = 0) -> list[int]:
    """Four Right taps from column 5, `idle` empty frames, then Down held to the lock."""
    return [RIGHT, 0] * 4 + [0] * idle + [DOWN] * 60 + [0] * 40


def _random_tail(seed: int, frames: int) -> list[int]:
    rng = np.random.default_rng(seed)
    return [int(p) for p in rng.choice([0, 0, LEFT, RIGHT, A, B, DOWN], size=frames)]


def _state(emulator) -> ram.GameState:
    return ram.decode(emulator.ram)


@pytest.mark.parametrize(("lines_before", "level_after"), [(139, 20), (129, 19)])
def test_level_up_at_140_not_130(emulator, new_game, lines_before, level_after):
    new_game(19)
    _set_up(emulator, {19: NEAR_FULL}, lines=lines_before, level=19)
    lockstep(emulator, _drop_in_column_9())
    state = _state(emulator)
    assert state.lines == lines_before + 1 and state.level == level_after
    # line points at the new level, plus up to 15 soft-drop points for the held Down
    assert 0 < state.score - 40 * (level_after + 1) <= 15


def test_level_29_and_beyond(emulator, new_game):
    new_game(19, seed=3)
    _set_up(
        emulator, {16: NEAR_FULL, 17: NEAR_FULL, 18: NEAR_FULL, 19: NEAR_FULL}, lines=226, level=28
    )
    lockstep(emulator, _drop_in_column_9())
    assert (_state(emulator).lines, _state(emulator).level) == (230, 29)
    lockstep(emulator, _random_tail(29, 1500))  # one frame per row, until top-out
    new_game(19, seed=4)
    _set_up(emulator, {19: NEAR_FULL}, lines=345, level=35)
    lockstep(emulator, _drop_in_column_9() + _random_tail(35, 1500))


def test_score_crosses_999999(emulator, new_game):
    new_game(19)
    _set_up(emulator, {16: NEAR_FULL, 17: NEAR_FULL, 18: NEAR_FULL, 19: NEAR_FULL}, score=989_999)
    lockstep(emulator, _drop_in_column_9())
    assert _state(emulator).score == 999_999
    new_game(19, seed=1)
    _set_up(emulator, {19: NEAR_FULL}, score=999_990, lines=10)
    lockstep(emulator, _drop_in_column_9())
    assert _state(emulator).score == 999_999


def test_clears_of_every_size_at_every_frame_counter_phase(emulator, new_game):
    phases = {n: set() for n in range(1, 5)}
    for size in range(1, 5):
        for idle in range(8):
            new_game(19, seed=size)
            _set_up(emulator, {19 - k: NEAR_FULL for k in range(size)}, lines=0)
            game = None
            for pad in _drop_in_column_9(idle):
                was_locked = _state(emulator).play_state == 2
                game, _ = lockstep(emulator, [pad], game)
                if _state(emulator).play_state == 2 and not was_locked:
                    phases[size].add(_state(emulator).frame_counter % 4)
            assert _state(emulator).lines == size
    assert all(found == {0, 1, 2, 3} for found in phases.values()), phases


def test_lock_above_row_0(emulator, new_game):
    new_game(19)
    _set_up(emulator, {row: 1 << 5 for row in range(2, 20)})
    lockstep(emulator, [DOWN] * 10 + _random_tail(7, 600))
    hidden = _state(emulator).hidden
    assert hidden == (1 << 5, 1 << 5)  # the vertical I locked with two cells above row 0


def test_clearing_row_0(emulator, new_game):
    """Row 0 full: the ROM's clear loop shifts the whole playfield page (cython_core/board).
    That frame's logic is the longest the game has: the game starts at step 32,000 so that
    nes-py's step boundary falls after it (nesbot/nes/emulator.py)."""
    new_game(19, not_before=32_000)
    around = 0x3FF & ~(1 << 5)
    rows = {0: around, 1: around} | {row: 1 << 5 for row in range(2, 20)}
    _set_up(emulator, rows)
    lockstep(emulator, [DOWN] * 10 + [0] * 60)
    state = _state(emulator)
    assert state.lines >= 2
    lockstep(emulator, _random_tail(8, 600))
