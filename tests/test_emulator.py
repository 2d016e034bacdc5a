"""Pins where nes-py's step boundary falls (nesbot/nes/emulator.py), so nobody relies on a
wrong idea of when a button takes effect."""

from nesbot._core.buttons import LEFT, START
from nesbot.nes import ram
from nesbot.nes.timing import ALIGNED_FRAMES


def test_aligned_step_is_one_whole_frame(emulator, new_game):
    state = new_game(19)
    assert emulator.frame in ALIGNED_FRAMES
    x = state.x
    emulator.step(LEFT)
    after = ram.decode(emulator.ram)
    # the Left given to this step was polled and used by this step's logic
    assert after.x == x - 1
    assert after.held == LEFT and after.newly == LEFT
    assert emulator.ram[ram.GAME_MODE_STATE] == 2  # read between frames, not mid-logic


def test_early_steps_use_buttons_one_step_later(emulator):
    """Soon after power-on the boundary lies between the poll and the logic
    (docs/mechanics.md#nes-pys-step-boundary)."""
    emulator.power_on()
    r = emulator.ram
    while not (r[ram.GAME_MODE] == ram.MODE_LEGAL and r[ram.SLEEP_COUNTER] == 0):
        emulator.step(0)
    while r[ram.GAME_MODE] != ram.MODE_PLAY:  # Start through every menu: level 0
        emulator.step(START)
        emulator.step(0)
    while emulator.frame < 2500 or not ram.decode(r).active:
        emulator.step(0)
    x = int(r[ram.TETRIMINO_X])
    emulator.step(LEFT)
    assert r[ram.TETRIMINO_X] == x  # polled, not yet used
    emulator.step(0)
    assert r[ram.TETRIMINO_X] == x - 1


def test_save_and_load_state_restore_everything(emulator, new_game):
    new_game(19)
    snapshot = emulator.save_state()
    before = emulator.ram.copy()
    for _ in range(50):
        emulator.step(LEFT)
    emulator.load_state(snapshot)
    assert (emulator.ram == before).all()
    assert emulator.screen.shape == (240, 256, 3)
