"""Command-line interface: argument parsing only; each subcommand calls one function."""

import argparse
import sys

from nesbot import __version__
from nesbot.errors import NesbotError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="nesbot",
        description="Play, replay and verify NES Tetris games on the real ROM.",
    )
    parser.add_argument("--version", action="version", version=f"nesbot {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    parser.add_subparsers(dest="command", metavar="COMMAND")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    try:
        return args.run(args)
    except NesbotError as error:
        if args.debug:
            raise
        print(f"nesbot: error: {error}", file=sys.stderr)
        return 2
