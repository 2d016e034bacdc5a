"""Whole-game speed on the real ROM: the bot's frame rate and nes-py's raw rate on the same game.

Boots once, lets the bot play a whole game from level 19 while recording its buttons, then
steps the emulator through exactly those buttons again from the same saved state with no bot.
The ratio is what the bot (planning, RAM reads, checks) costs on top of the emulator.
"""

import argparse
import time

from nesbot.bot import Bot
from nesbot.emulator import Emulator
from nesbot.menus import GameSetup, reach_level_menu, start_game
from nesbot.play import play_game
from nesbot.rom import load_rom


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=4)
    parser.add_argument("--rom")
    args = parser.parse_args()

    rom = load_rom(args.rom)
    setup = GameSetup(level=19, seed=args.seed)
    with Emulator(rom.path) as emu:
        reach_level_menu(emu)
        start_game(emu, setup)
        game_start = emu.save_state()
        pads = bytearray()
        emu.observers.append(lambda pad, _emu: pads.append(pad))
        bot = Bot()
        started = time.perf_counter()
        result = play_game(emu, setup, rom, bot)
        bot_seconds = time.perf_counter() - started
        emu.observers.clear()

        emu.load_state(game_start)
        started = time.perf_counter()
        for pad in pads:
            emu.step(pad)
        raw_seconds = time.perf_counter() - started
    frames = len(pads)
    print(f"nes-py raw, same buttons {frames / raw_seconds:8.1f} frames/s")
    print(
        f"bot playing              {frames / bot_seconds:8.1f} frames/s  "
        f"({raw_seconds / bot_seconds:.1%} of raw)"
    )
    print(
        f"game: {frames} frames, score {result.score}, lines {result.lines}, level "
        f"{result.level}, {bot.desyncs} desyncs, plan ms p50 {bot.plan_ms(50)} "
        f"p99 {bot.plan_ms(99)}"
    )


if __name__ == "__main__":
    main()
