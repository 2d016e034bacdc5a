"""`nesbot replay`: an .fm2 input log played from power-on, on the emulator or the simulator."""

import argparse
import sys
from contextlib import ExitStack

from nesbot.cli.options import (
    add_conflict_option,
    add_picture_options,
    add_rom_options,
    log_and_rom,
    on_conflict,
    rom_input,
)
from nesbot.cli.outputs import check_codec, check_overlay, replay_pictures, step_progress
from nesbot.errors import NesbotError
from nesbot.output_file import OutputFile, check_distinct, check_output

NAME = "replay"
HELP = "replay an .fm2 input log from power-on"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("log", metavar="LOG", help="FCEUX .fm2 input log")
    add_rom_options(parser)
    parser.add_argument(
        "--engine",
        choices=("emulator", "sim"),
        default="emulator",
        help="emulator: every frame on nes-py; sim: menus on nes-py, then the "
        "game on the simulator",
    )
    parser.add_argument("--trace", metavar="FILE", help="write one JSON line per new piece")
    parser.add_argument("--json", action="store_true", help="print one JSON summary object")
    parser.add_argument(
        "--video", metavar="FILE.mp4", help="render every frame of the log (.mp4 or .webm)"
    )
    add_picture_options(parser)
    parser.add_argument(
        "--realtime", action="store_true", help="pace the replay at 60.0988 frames per second"
    )
    add_conflict_option(parser)


def run(args: argparse.Namespace) -> int:
    from nesbot.nes.replay import replay_on_emulator, replay_on_simulator
    from nesbot.nes.timing import ALIGNED_FRAMES

    check_distinct(
        {"LOG": args.log, **rom_input(args)}, {"--trace": args.trace, "--video": args.video}
    )
    # Not nesbot.show.video's check: importing PyAV before --show's window opens hangs
    # OpenCV's window; the VideoWriter checks the name's format itself.
    for option, path in (("trace", args.trace), ("video", args.video)):
        if path:
            check_output(path, option)
    log, rom = log_and_rom(args.log, args)
    for option, wanted in (("--video", args.video), ("--show", args.show)):
        if wanted and args.engine == "sim":
            raise NesbotError(f"{option} needs --engine emulator: the simulator draws no pictures")
    check_overlay(args, "--video or --show")
    check_codec(args)
    with ExitStack() as stack:
        trace = stack.enter_context(OutputFile(args.trace, "trace")) if args.trace else None
        observers = (*replay_pictures(args, stack), step_progress("replay", log, stack))
        if args.engine == "sim":
            summary = replay_on_simulator(rom, log, trace, on_conflict(args, log))
            if summary.frames > ALIGNED_FRAMES.stop:
                print(
                    f"note: the game went on past frame {ALIGNED_FRAMES.stop}, where nes-py's "
                    "step boundary leaves the game's frame boundary; from there the "
                    "emulator's game can differ from the simulator's (see the README)",
                    file=sys.stderr,
                )
        else:
            summary = replay_on_emulator(rom, log, trace, observers, on_conflict(args, log))
    recorded = log.recorded_result()
    differences = summary.differences(recorded) if recorded is not None else []
    if args.json:
        print(summary.to_json(matches_recorded=None if recorded is None else not differences))
    else:
        print(
            f"score {summary.score:,}, lines {summary.lines}, level {summary.level}, "
            f"{summary.pieces} pieces in {summary.frames:,} game frames "
            f"({summary.steps:,} steps since power-on)"
            + (", topped out" if summary.topped_out else "")
        )
    if recorded is None:
        print("the log records no result to compare with", file=sys.stderr)
    elif differences:
        print(f"differs from the recorded game: {', '.join(differences)}", file=sys.stderr)
        return 1
    else:
        print("matches the recorded game", file=sys.stderr)
    return 0
