"""`nesbot convert`: a log of nes-py steps, as nesbot wrote them before, as an FCEUX movie."""

import argparse
import sys

from nesbot.cli.options import add_rom_options, log_and_rom, rom_input
from nesbot.output_file import check_distinct, check_output

NAME = "convert"
HELP = "turn a log of nes-py steps (as nesbot wrote them before) into an FCEUX movie"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("old", metavar="OLD.fm2", help="the log of nes-py steps")
    parser.add_argument("new", metavar="NEW.fm2", help="the FCEUX movie to write")
    add_rom_options(parser)


def run(args: argparse.Namespace) -> int:
    from nesbot.nes.convert import convert_log

    check_distinct({"OLD.fm2": args.old, **rom_input(args)}, {"NEW.fm2": args.new})
    check_output(args.new, "movie")
    log, rom = log_and_rom(args.old, args)
    frames = convert_log(rom, log, args.new)
    print(f"wrote {args.new}: {frames:,} NES frames", file=sys.stderr)
    return 0
