"""The command line, `nesbot COMMAND`: one module per command, each its options
(`add_arguments`) and what it runs (`run`); the options several commands share are in
options.py, and the wiring of what play, replay and rate write and show in outputs.py."""

import argparse
import contextlib
import io
import os
import signal
import sys
import threading
from collections.abc import Iterator
from types import FrameType, ModuleType
from typing import NoReturn, TextIO

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


class _Parser(argparse.ArgumentParser):
    """argparse's parser, its errors said as nesbot says every error: in one line."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"nesbot: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="nesbot",
        description="Play, replay and verify NES Tetris games on the real ROM.",
    )
    parser.add_argument("--version", action="version", version=f"nesbot {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")  # each a _Parser
    for command in COMMANDS:
        sub = commands.add_parser(command.NAME, help=command.HELP, description=command.HELP)
        command.add_arguments(sub)
        sub.set_defaults(run=command.run)
    return parser


class _Terminated(KeyboardInterrupt):
    """SIGTERM (kill, timeout, a shutdown) or SIGHUP (the terminal closed), ending a run as
    Ctrl-C does: every output closed whole, each partial file renamed into place or
    removed."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status  # the shell's 128 + the signal's number


# The signals that end a run as Ctrl-C does, and what is said of each.
ENDING_SIGNALS = {signal.SIGTERM: "terminated", signal.SIGHUP: "hung up"}


def _on_ending_signal(signum: int, frame: FrameType | None) -> None:
    raise _Terminated(ENDING_SIGNALS[signal.Signals(signum)], 128 + signum)


@contextlib.contextmanager
def _ending_signals_as_ctrl_c() -> Iterator[None]:
    # Only the main thread may set a handler (main() called from another is left as it is).
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {number: signal.signal(number, _on_ending_signal) for number in ENDING_SIGNALS}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


class _OutputLost(Exception):
    """Writing the results to stdout failed (a full disk, an I/O error): they are lost."""


class _Stdout:
    """sys.stdout while a command runs: a fault writing it becomes _OutputLost, told apart
    from any other OSError; a reader gone (BrokenPipeError) stays itself."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        with _lost_on_fault():
            return self._stream.write(text)

    def flush(self) -> None:
        with _lost_on_fault():
            self._stream.flush()

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)


@contextlib.contextmanager
def _lost_on_fault() -> Iterator[None]:
    try:
        yield
    except BrokenPipeError:
        raise
    except OSError as error:
        raise _OutputLost(error.strerror or str(error)) from None


def _drop_output(stdout: TextIO) -> None:
    """Send stdout's fd to /dev/null, so that the flush at exit, of what could not be
    written, does not fail again with an error of its own."""
    with contextlib.suppress(OSError, ValueError):  # not a file (a test's capture)
        os.dup2(os.open(os.devnull, os.O_WRONLY), stdout.fileno())


def _say(line: str) -> None:
    """A line on stderr, if it can be written (with stderr on a full disk, the exit status
    is all that is left to say it)."""
    with contextlib.suppress(OSError):
        print(line, file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    # A character the terminal's encoding lacks (PYTHONIOENCODING=ascii: "±") is escaped.
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    if sys.stdout is None:  # `>&-`: the results would be lost, and fd 1 taken by a file
        _say(
            "nesbot: error: standard output is closed; redirect it (>/dev/null to drop the results)"
        )
        return 2
    stdout = sys.stdout
    sys.stdout = _Stdout(stdout)
    args: argparse.Namespace | None = None
    try:
        args = _parsed(build_parser(), argv)
        code = 0
        if args is not None:
            with _ending_signals_as_ctrl_c():
                code = args.run(args)
        sys.stdout.flush()  # the results' last bytes: a full disk shows here
        return code
    except (NesbotError, _OutputLost) as error:
        if args is not None and args.debug:  # --debug: the traceback, as Python shows it
            raise
        said = str(error)
        if isinstance(error, _OutputLost):
            _drop_output(stdout)
            said = f"cannot write the output: {error}"
        _say(f"nesbot: error: {said}")
        return 2
    except BrokenPipeError:  # the reader went away (`| head`): stop quietly, as Unix tools do
        _drop_output(stdout)
        return 1
    except KeyboardInterrupt as error:  # window.WindowClosed says what ended the game
        _say(f"nesbot: {str(error) or 'interrupted'}")
        return error.status if isinstance(error, _Terminated) else 130
    finally:
        sys.stdout = stdout


def _parsed(parser: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace | None:
    """The command's arguments; None where nothing is to run: --help and --version printed
    (argparse's exit 0), or no command given (the help printed)."""
    try:
        args = parser.parse_args(argv)
    except SystemExit as done:
        if done.code == 0:
            return None
        raise
    if args.command is None:
        parser.print_help()
        return None
    return args
