"""From power-on to the first active frame of an A-TYPE game, driven by RAM (mechanics §12).

Every menu accepts a button only as a new press of exactly that button, so each press is
one frame down and one frame up, repeated until RAM shows the screen changed. Waits are
bounded; a ROM that never reaches the next screen gets a clear error.
"""

from dataclasses import dataclass

from nesbot import ram
from nesbot._core.buttons import DOWN, LEFT, RIGHT, START, UP, A
from nesbot.emulator import ALIGNED_FRAMES, Emulator
from nesbot.errors import NesbotError

MAX_WAIT_FRAMES = 3000  # the legal screen alone takes ~520 frames
SEED_IDLE_FRAMES = 1000  # level-menu idle frames cycle with this period


@dataclass(frozen=True)
class GameSetup:
    """What the menus choose: start level 0-19, music 0-3 (3 = off), and a seed."""

    level: int = 19
    music: int = 0
    seed: int = 0

    def __post_init__(self) -> None:
        if not 0 <= self.level <= 19:
            raise NesbotError(f"start level {self.level} is out of range: the menu offers 0-19")
        if not 0 <= self.music <= 3:
            raise NesbotError(f"music {self.music} is out of range: 0-2 are songs, 3 is off")
        if self.seed < 0:
            raise NesbotError(f"seed {self.seed} is negative; use 0 or more")

    @property
    def seed_frames(self) -> int:
        """Extra frames spent in the level menu. The menu steps the RNG several times a
        frame, so this is what makes the seed choose the piece sequence."""
        return self.seed % SEED_IDLE_FRAMES


def _wait(emu: Emulator, done, what: str) -> None:
    for _ in range(MAX_WAIT_FRAMES):
        if done():
            return
        emu.step(0)
    raise NesbotError(f"the ROM did not reach {what} within {MAX_WAIT_FRAMES} frames")


def _tap_until(emu: Emulator, pad: int, done, what: str, hold: int = 0) -> None:
    """Press `pad` for a frame and release it for a frame until done() (buttons in `hold`
    stay down throughout)."""
    for _ in range(MAX_WAIT_FRAMES // 2):
        if done():
            return
        emu.step(pad | hold)
        emu.step(hold)
    raise NesbotError(f"the ROM did not reach {what} within {MAX_WAIT_FRAMES} frames")


def _mode(emu: Emulator) -> int:
    return int(emu.ram[ram.GAME_MODE])


def start_game(emu: Emulator, setup: GameSetup) -> ram.GameState:
    """Drive the menus to the first frame RAM shows the first piece active.

    Works from power-on or from any later menu screen (a saved state), since every stage
    is chosen by what RAM shows.
    """
    r = emu.ram
    _to_level_menu(emu, setup.music)
    # Wait in the level menu until nes-py's step boundary lies after the game logic, so
    # that every step of the game is one whole frame (nesbot.emulator), then for the seed.
    while emu.frame < ALIGNED_FRAMES.start + setup.seed_frames:
        emu.step(0)
    target = setup.level % 10
    while r[ram.START_LEVEL] != target:
        before = int(r[ram.START_LEVEL])
        _tap_until(
            emu,
            _level_button(before, target),
            lambda before=before: r[ram.START_LEVEL] != before,
            f"level {target} in the level menu",
        )

    if setup.level >= 10:
        emu.step(A)  # A must be held before the frame Start is newly pressed
        _tap_until(emu, START, lambda: _mode(emu) == ram.MODE_PLAY, "the game", hold=A)
    else:
        _tap_until(emu, START, lambda: _mode(emu) == ram.MODE_PLAY, "the game")

    _wait(emu, lambda: ram.piece_active(r), "the first active piece")
    state = ram.decode(r)
    if state.level != setup.level:
        raise NesbotError(f"the game started at level {state.level}, not {setup.level}")
    return state


def choose_game_type(emu: Emulator, music: int) -> None:
    """On the game-type menu: A-TYPE and the music (0-2 songs, 3 off)."""
    r = emu.ram
    _tap_until(emu, LEFT, lambda: r[ram.GAME_TYPE] == 0, "A-TYPE")
    button = DOWN if r[ram.MUSIC_TYPE] < music else UP
    _tap_until(emu, button, lambda: r[ram.MUSIC_TYPE] == music, f"music {music}")


def reach_level_menu(emu: Emulator, music: int = 0) -> None:
    """From power-on to the level menu at the first aligned frame (a state worth saving:
    start_game goes on from it for any level and seed)."""
    _to_level_menu(emu, music)
    while emu.frame < ALIGNED_FRAMES.start:
        emu.step(0)


def _to_level_menu(emu: Emulator, music: int) -> None:
    r = emu.ram
    if _mode(emu) == ram.MODE_LEGAL:
        _wait(emu, lambda: r[ram.SLEEP_COUNTER] == 0, "the end of the legal screen's wait")
        _tap_until(emu, START, lambda: _mode(emu) == ram.MODE_TITLE, "the title screen")
    if _mode(emu) == ram.MODE_TITLE:
        _tap_until(emu, START, lambda: _mode(emu) == ram.MODE_GAME_TYPE, "the game-type menu")
    if _mode(emu) == ram.MODE_GAME_TYPE:
        choose_game_type(emu, music)
        _tap_until(emu, START, lambda: _mode(emu) == ram.MODE_LEVEL_MENU, "the level menu")
    if _mode(emu) != ram.MODE_LEVEL_MENU:
        raise NesbotError(f"the ROM is in game mode {_mode(emu)}, not in a menu")


def _level_button(current: int, target: int) -> int:
    if target - current >= 5:
        return DOWN
    if current - target >= 5:
        return UP
    return RIGHT if target > current else LEFT
