"""`nesbot verify`: a log replayed on the emulator and the simulator in lockstep, every frame
compared."""

import argparse
from contextlib import ExitStack

from nesbot.cli.options import add_conflict_option, add_rom_options, log_and_rom, on_conflict
from nesbot.cli.outputs import step_progress

NAME = "verify"
HELP = "replay a log on emulator and simulator in lockstep and compare every frame"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("log", metavar="LOG", help="FCEUX .fm2 input log")
    add_rom_options(parser)
    add_conflict_option(parser)


def run(args: argparse.Namespace) -> int:
    from nesbot.nes.replay import verify
    from nesbot.nes.timing import ALIGNED_FRAMES

    log, rom = log_and_rom(args.log, args)
    with ExitStack() as stack:
        result = verify(rom, log, (step_progress("verify", log, stack),), on_conflict(args, log))
    if result.divergence is not None:
        print(result.divergence)
        return 1
    print(f"identical over {result.frames} frames")
    if result.window_ended:
        print(
            f"(compared up to frame {ALIGNED_FRAMES.stop} of the log: from there nes-py's "
            "step boundary reaches the next frame's NMI, whose screen updates show early)"
        )
    return 0
