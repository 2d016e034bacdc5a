"""The bot past step 61,000 of nes-py, where the step boundary falls inside the game logic
again (docs/steps.md): a level-19 game on the real ROM, started in the level menu at
--start steps since power-on and played to --end or its top-out. Prints the desyncs in each
thousand steps, the first of them, and where the game ended.

    .venv/bin/python scripts/late_steps.py --start 60000 --end 75000
"""

import argparse
import collections
import warnings

from nesbot.bot.policy import Bot
from nesbot.errors import NesbotWarning
from nesbot.nes import ram
from nesbot.nes.emulator import Emulator
from nesbot.nes.menus import GameSetup, reach_level_menu, start_game
from nesbot.nes.rom import find_rom


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--start", type=int, default=60_000)
    parser.add_argument("--end", type=int, default=75_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rom")
    args = parser.parse_args()
    warnings.simplefilter("ignore", NesbotWarning)  # the point is to play outside them

    with Emulator(find_rom(args.rom).path) as emu:
        reach_level_menu(emu)
        while emu.frame < args.start:
            emu.step(0)
        start_game(emu, GameSetup(level=19, seed=args.seed))
        bot, desyncs = Bot(), []
        while emu.frame < args.end and emu.ram[ram.PLAY_STATE] != ram.PLAY_TOPPED_OUT:
            before = bot.desyncs
            emu.step(bot(emu.ram, emu.frame))
            desyncs += [emu.frame] * (bot.desyncs - before)
        state = ram.decode(emu.ram)
        last = emu.frame
    per_thousand = collections.Counter(step // 1000 * 1000 for step in desyncs)
    for thousand, count in sorted(per_thousand.items()):
        print(f"steps {thousand:,}-{thousand + 999:,}: {count} desyncs")
    print(f"first desyncs at steps {desyncs[:8]}")
    print(
        f"{len(desyncs)} desyncs; the game {'topped out' if state.topped_out else 'went on'} "
        f"at step {last:,}, {state.lines} lines, read {bot.reading}"
    )


if __name__ == "__main__":
    main()
