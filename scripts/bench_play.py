"""Whole-game speed on the real ROM: the bot's frame rate and nes-py's raw rate on the same game.

Boots once, lets the bot play a whole game from level 19 while recording its buttons, then
steps the emulator through exactly those buttons again from the same saved state with no bot.
The ratio is what the bot (planning, RAM reads, checks) costs on top of the emulator.
"""

import argparse
import time

from bench_game import add_game_options, booted_game

from nesbot.bot.policy import Bot
from nesbot.bot.session import play_game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    add_game_options(parser)
    args = parser.parse_args()

    with booted_game(args) as game:
        emu = game.emu
        pads = bytearray()
        emu.observers.append(lambda pad, _emu: pads.append(pad))
        bot = Bot()
        started = time.perf_counter()
        result = play_game(emu, game.setup, game.rom, bot)
        bot_seconds = time.perf_counter() - started
        emu.observers.clear()

        emu.load_state(game.start)
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
