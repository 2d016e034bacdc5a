"""The command line, `nesbot COMMAND`: one module per command, each its options
(`add_arguments`) and what it runs (`run`); the options several commands share are in
options.py, and the wiring of what play, replay and rate write and show in outputs.py."""

import argparse
import os
import sys
from types import ModuleType

from nesbot._version import __version__
from nesbot.cli import (
    convert,
    explain,
    play,
    rate,
    read_screen,
    replay,
    simulate,
    surface_table,
    train,
    verify,
)
from nesbot.errors import NesbotError

COMMANDS: tuple[ModuleType, ...] = (
    play,
    simulate,
    replay,
    verify,
    convert,
    train,
    surface_table,
    rate,
    read_screen,
    explain,
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="nesbot",
        description="Play, replay and verify NES Tetris games on the real ROM.",
    )
    parser.add_argument("--version", action="version", version=f"nesbot {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in COMMANDS:
        sub = commands.add_parser(command.NAME, help=command.HELP, description=command.HELP)
        command.add_arguments(sub)
        sub.set_defaults(run=command.run)
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
    except BrokenPipeError:  # the reader went away (`| head`): stop quietly, as Unix tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no error at exit
        return 1
    except KeyboardInterrupt as error:  # window.WindowClosed says what ended the game
        print(f"nesbot: {str(error) or 'interrupted'}", file=sys.stderr)
        return 130
