"""From power-on to the first active frame of an A-TYPE game, driven by RAM
(docs/mechanics.md#menus).

Every menu accepts a button only as a new press of exactly that button, so each press is
one frame down and one frame up, repeated until RAM shows the screen changed. Waits are
bounded; a ROM that never reaches the next screen gets a clear error.

The menus are generators of button bytes, one per step, that read RAM before each: one
sequence serves `start_game` (nesbot's own emulator) and `nesbot.attach` (a user's env,
stepped by the user's loop), so both reach the same game for the same setup.
"""

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from nesbot._core.buttons import DOWN, LEFT, RIGHT, START, UP, A
from nesbot.arguments import check_whole
from nesbot.errors import NesbotError
from nesbot.nes import ram
from nesbot.nes.emulator import Emulator
from nesbot.nes.timing import ALIGNED_FRAMES

MAX_WAIT_FRAMES = 3000  # the legal screen alone takes ~520 frames
# A real-ROM seed is the frames the level menu idles before Start: seeds 0-999, each its own
# game. More would start games past the steps where nes-py's step is one whole frame.
SEED_IDLE_FRAMES = 1000

Pads = Iterator[int]  # button bytes, one per step; RAM is read before each is chosen
Steps = Callable[[], int]  # steps since power-on, now


@dataclass(frozen=True)
class GameSetup:
    """What the menus choose: start level 0-19, music 0-3 (3 = off), and a seed."""

    level: int = 19
    music: int = 0
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("level", "music", "seed"):
            check_whole(name, getattr(self, name))
        if not 0 <= self.level <= 19:
            raise NesbotError(f"start level {self.level} is out of range: the menu offers 0-19")
        if not 0 <= self.music <= 3:
            raise NesbotError(f"music {self.music} is out of range: 0-2 are songs, 3 is off")
        if not 0 <= self.seed < SEED_IDLE_FRAMES:
            raise NesbotError(
                f"seed {self.seed} is outside 0-{SEED_IDLE_FRAMES - 1}: on the ROM a seed is "
                "the frames the level menu waits before Start, one game each"
            )

    @property
    def seed_frames(self) -> int:
        """Extra frames spent in the level menu. The menu steps the RNG several times a
        frame, so this is what makes the seed choose the piece sequence."""
        return self.seed


def start_game(emu: Emulator, setup: GameSetup, align: bool = True) -> ram.GameState:
    """Drive the menus to the first frame RAM shows the first piece active.

    Works from power-on or from any later menu screen (a saved state), since every stage
    is chosen by what RAM shows. `align`: see game_inputs.
    """
    _drive(emu, game_inputs(emu.ram, setup, lambda: emu.frame, align))
    return ram.decode(emu.ram)


def reach_level_menu(emu: Emulator, music: int = 0, align: bool = True) -> None:
    """From power-on to the level menu at the first aligned frame (a state worth saving:
    start_game goes on from it for any level and seed); without `align`, as soon as the
    menus allow."""
    _drive(emu, level_menu_inputs(emu.ram, music, lambda: emu.frame, align))


def choose_game_type(emu: Emulator, music: int) -> None:
    """On the game-type menu: A-TYPE and the music (0-2 songs, 3 off)."""
    _drive(emu, _game_type_inputs(emu.ram, music))


def game_inputs(memory: np.ndarray, setup: GameSetup, steps: Steps, align: bool = True) -> Pads:
    """The buttons from power-on (or any menu) to the game's first active frame; raises
    NesbotError if the ROM does not get there or starts another level. Without `align`
    the game starts as soon as the menus allow, as a person's does (from power-on: outside
    the aligned steps, nesbot.nes.emulator)."""
    yield from _to_level_menu(memory, setup.music)
    # Wait in the level menu until nes-py's step boundary lies after the game logic, so
    # that every step of the game is one whole frame (nesbot.nes.emulator), then for the seed.
    start = ALIGNED_FRAMES.start if align else steps()
    while steps() < start + setup.seed_frames:
        yield 0
    target = setup.level % 10
    while memory[ram.START_LEVEL] != target:
        before = int(memory[ram.START_LEVEL])

        def moved(before: int = before) -> bool:
            return bool(memory[ram.START_LEVEL] != before)

        yield from _tap_until(
            _level_button(before, target), moved, f"level {target} in the level menu"
        )

    def playing() -> bool:
        return memory[ram.GAME_MODE] == ram.MODE_PLAY

    if setup.level >= 10:
        yield A  # A must be held before the frame Start is newly pressed
        yield from _tap_until(START, playing, "the game", hold=A)
    else:
        yield from _tap_until(START, playing, "the game")
    yield from _wait(lambda: ram.piece_active(memory), "the first active piece")
    level = int(memory[ram.LEVEL_NUMBER])
    if level != setup.level:
        raise NesbotError(f"the game started at level {level}, not {setup.level}")


def level_menu_inputs(memory: np.ndarray, music: int, steps: Steps, align: bool = True) -> Pads:
    """The buttons from power-on to the level menu (at the first aligned step)."""
    yield from _to_level_menu(memory, music)
    while align and steps() < ALIGNED_FRAMES.start:
        yield 0


def _drive(emu: Emulator, pads: Pads) -> None:
    for pad in pads:
        emu.step(pad)


def _wait(done: Callable[[], bool], what: str) -> Pads:
    for _ in range(MAX_WAIT_FRAMES):
        if done():
            return
        yield 0
    raise NesbotError(f"the ROM did not reach {what} within {MAX_WAIT_FRAMES} frames")


def _tap_until(pad: int, done: Callable[[], bool], what: str, hold: int = 0) -> Pads:
    """Press `pad` for a frame and release it for a frame until done() (buttons in `hold`
    stay down throughout)."""
    for _ in range(MAX_WAIT_FRAMES // 2):
        if done():
            return
        yield pad | hold
        yield hold
    raise NesbotError(f"the ROM did not reach {what} within {MAX_WAIT_FRAMES} frames")


def _game_type_inputs(memory: np.ndarray, music: int) -> Pads:
    yield from _tap_until(LEFT, lambda: memory[ram.GAME_TYPE] == 0, "A-TYPE")
    button = DOWN if memory[ram.MUSIC_TYPE] < music else UP
    yield from _tap_until(button, lambda: memory[ram.MUSIC_TYPE] == music, f"music {music}")


def _to_level_menu(memory: np.ndarray, music: int) -> Pads:
    def mode() -> int:
        return int(memory[ram.GAME_MODE])

    if mode() == ram.MODE_LEGAL:
        yield from _wait(
            lambda: memory[ram.SLEEP_COUNTER] == 0, "the end of the legal screen's wait"
        )
        yield from _tap_until(START, lambda: mode() == ram.MODE_TITLE, "the title screen")
    if mode() == ram.MODE_TITLE:
        yield from _tap_until(START, lambda: mode() == ram.MODE_GAME_TYPE, "the game-type menu")
    if mode() == ram.MODE_GAME_TYPE:
        yield from _game_type_inputs(memory, music)
        yield from _tap_until(START, lambda: mode() == ram.MODE_LEVEL_MENU, "the level menu")
    if mode() != ram.MODE_LEVEL_MENU:
        raise NesbotError(f"the ROM is in game mode {mode()}, not in a menu")


def _level_button(current: int, target: int) -> int:
    if target - current >= 5:
        return DOWN
    if current - target >= 5:
        return UP
    return RIGHT if target > current else LEFT
