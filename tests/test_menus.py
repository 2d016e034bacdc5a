"""Menus: any start level, music choice, and seeds that choose the piece sequence."""

import pytest

from nesbot.errors import NesbotError
from nesbot.nes import ram
from nesbot.nes.menus import GameSetup, choose_game_type


@pytest.mark.parametrize("level", [0, 9, 10, 18, 19])
def test_reaches_start_level(new_game, level):
    state = new_game(level)
    assert state.active and state.level == level and state.start_level == level


def test_music_choice(emulator):
    emulator.power_on()
    r = emulator.ram
    while r[ram.GAME_MODE] != ram.MODE_GAME_TYPE:
        emulator.step(0x08 if emulator.frame % 2 and r[ram.SLEEP_COUNTER] == 0 else 0)
    for music in (3, 1, 2, 0):
        choose_game_type(emulator, music)
        assert r[ram.MUSIC_TYPE] == music and r[ram.GAME_TYPE] == 0


def _first_pieces(emulator, state, count=5):
    pieces = [state.piece, state.next]
    was_active = True
    while len(pieces) < count:
        emulator.step(0x20 if emulator.frame % 2 else 0)  # soft drop to hurry
        now = ram.decode(emulator.ram)
        if now.active and not was_active:
            pieces.append(now.next)
        was_active = now.active
    return tuple(pieces)


def test_seeds_choose_sequences(emulator, new_game):
    sequences = [_first_pieces(emulator, new_game(19, seed)) for seed in range(20)]
    assert len(set(sequences)) >= 15
    assert _first_pieces(emulator, new_game(19, 7)) == sequences[7]  # same seed, same game


@pytest.mark.parametrize(
    ("setup", "words"),
    [
        ({"level": 20}, "0-19"),
        ({"music": 4}, "music"),
        ({"seed": -1}, "outside 0-999"),
        ({"seed": 1000}, "outside 0-999"),
    ],
)
def test_bad_setup(setup, words):
    with pytest.raises(NesbotError, match=words):
        GameSetup(**setup)
