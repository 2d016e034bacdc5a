"""What the real-ROM benchmarks share: one boot to the first frame of a level-19 game, and
a fresh bot playing from that frame as often as a benchmark needs.

The boot and menus take ~24,000 emulated frames, so each benchmark boots once, saves the
game's first frame and loads it again before every run; every run then plays the same game.
"""

import argparse
import contextlib
from collections.abc import Iterator
from dataclasses import dataclass

from nesbot.bot.policy import Bot
from nesbot.nes.emulator import Emulator, Snapshot
from nesbot.nes.menus import GameSetup, reach_level_menu, start_game
from nesbot.nes.rom import Rom, find_rom
from nesbot.show.watch import GameWatch


def add_game_options(parser: argparse.ArgumentParser) -> None:
    """--seed (the game's pieces) and --rom, as every real-ROM benchmark takes them."""
    parser.add_argument("--seed", type=int, default=4)
    parser.add_argument("--rom")


@dataclass(frozen=True)
class BootedGame:
    emu: Emulator
    rom: Rom
    setup: GameSetup
    start: Snapshot  # emu.save_state() at the game's first frame


@contextlib.contextmanager
def booted_game(args: argparse.Namespace) -> Iterator[BootedGame]:
    """The emulator at the first frame of the level-19 game of add_game_options' options."""
    rom = find_rom(args.rom)
    setup = GameSetup(level=19, seed=args.seed)
    with Emulator(rom.path) as emu:
        reach_level_menu(emu)
        start_game(emu, setup)
        yield BootedGame(emu, rom, setup, emu.save_state())


def fresh_bot(game: BootedGame) -> tuple[Bot, GameWatch]:
    """Back to the game's first frame with a new bot, whose watch is the only observer."""
    game.emu.load_state(game.start)
    game.emu.observers.clear()
    bot = Bot()
    watch = GameWatch(game.emu.ram, bot)
    game.emu.observers.append(watch)
    return bot, watch
