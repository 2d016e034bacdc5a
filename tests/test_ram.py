"""RAM decoding against the real ROM during play, and the simulator's view of RAM."""

import itertools

import numpy as np

from nesbot._core.pieces import SPAWN_TABLE
from nesbot.nes import ram


def test_decode_first_frame_of_a_level_19_game(emulator, new_game):
    state = new_game(19)
    assert state.game_mode == ram.MODE_PLAY
    assert state.play_state == 1 and state.active and not state.topped_out
    assert state.level == 19 and state.start_level == 19
    assert state.piece in SPAWN_TABLE and state.next in SPAWN_TABLE
    assert (state.x, state.y) == (5, 0)
    assert state.board == (0,) * 20 and state.hidden == (0, 0)
    assert state.lines == 0 and state.score == 0
    assert state.soft_drop >= 0x80  # the first piece's gravity hold
    assert state.board_rows() == [".........."] * 20


def test_decode_follows_play(emulator, new_game):
    new_game(19)
    states = []
    for _ in range(400):  # no input: pieces fall in the middle and stack up
        emulator.step(0)
        states.append(ram.decode(emulator.ram))
    landed = [s for s in states if s.board != (0,) * 20]
    assert landed, "a piece should have locked"
    assert any(s.y > 10 for s in states)
    counters = [s.frame_counter for s in states]
    assert all((b - a) % 65536 == 1 for a, b in itertools.pairwise(counters))
    # the bottom row holds cells of the first piece, which fell in the spawn columns 3-7
    assert landed[-1].board[19] and not landed[-1].board[19] & ~0b0011111000


def test_game_to_ram_round_trip(emulator, new_game):
    new_game(19)
    for _ in range(300):
        emulator.step(0x40 if emulator.frame % 7 == 0 else 0)
        game = ram.game_from_ram(emulator.ram)
        written = ram.game_to_ram(game, np.zeros(ram.RAM_SIZE, np.uint8))
        addresses = ram.modelled_addresses()
        board = [a for a in addresses if a >= ram.PLAYFIELD]
        others = [a for a in addresses if a < ram.PLAYFIELD]
        assert (written[others] == emulator.ram[others]).all()
        assert ((written[board] == ram.EMPTY_TILE) == (emulator.ram[board] == ram.EMPTY_TILE)).all()


def test_bcd_value():
    assert ram.bcd_value(0x99, 0x99, 0x99) == 999999
    assert ram.bcd_value(0x40, 0x01) == 140
    assert ram.bcd_value(0x0A) == 10  # a non-decimal nibble counts as-is
