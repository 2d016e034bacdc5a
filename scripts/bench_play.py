"""Whole-game speed on the real ROM: nes-py's raw frame rate and the bot's, from one run.

Boots once to the level menu, then from the same saved state (1) steps the emulator with no
input for --raw-frames frames, and (2) lets the bot play a whole game from level 19.
"""

import argparse
import time

from nesbot.bot import Bot
from nesbot.emulator import Emulator
from nesbot.menus import GameSetup, reach_level_menu, start_game
from nesbot.play import run_game
from nesbot.rom import load_rom
from nesbot.weights import MEATFIGHTER_2018


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--raw-frames", type=int, default=6000)
    parser.add_argument("--rom")
    args = parser.parse_args()

    rom = load_rom(args.rom)
    setup = GameSetup(level=19, seed=args.seed)
    with Emulator(rom.path) as emu:
        reach_level_menu(emu)
        menu = emu.save_state()

        start_game(emu, setup)
        started = time.perf_counter()
        for _ in range(args.raw_frames):
            emu.step(0)
        raw_fps = args.raw_frames / (time.perf_counter() - started)

        emu.load_state(menu)
        bot = Bot(MEATFIGHTER_2018)
        started = time.perf_counter()
        result = run_game(emu, setup, rom, bot)
        bot_fps = result.frames / (time.perf_counter() - started)
    print(f"nes-py raw      {raw_fps:8.1f} frames/s")
    print(
        f"bot, whole game {bot_fps:8.1f} frames/s  ({bot_fps / raw_fps:.1%} of raw; "
        f"menus included: {result.frames} game frames)"
    )
    print(
        f"game: score {result.score}, lines {result.lines}, level {result.level}, "
        f"{bot.desyncs} desyncs, plan ms p50 {bot.plan_ms(50)} p99 {bot.plan_ms(99)}"
    )


if __name__ == "__main__":
    main()
