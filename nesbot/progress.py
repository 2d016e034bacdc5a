"""Progress of the long commands on stderr, for a person watching or a log file.

In a terminal a `Progress` is a tqdm bar that redraws in place. Into a file or a pipe (a
CI log, `make play > out.txt`) a bar's carriage returns would pile up, so it writes a plain
line instead, at most every `LINE_SECONDS` seconds and at the end; so it does on a terminal
that reports no width (a pseudo-terminal nobody sized), where tqdm would draw nothing:

    simulate: 40/200 games (20%), 12 s, about 48 s left
"""

import os
import sys
import time
from types import TracebackType
from typing import Self, TextIO

from tqdm import tqdm

LINE_SECONDS = 5.0  # between plain lines when stderr is not a terminal


class Progress:
    """`total` units of work called `unit` (plural "s" added), done by `what`; a total of
    None is work of unknown length (a game), counted without a share or time left."""

    def __init__(
        self,
        what: str,
        total: int | None,
        unit: str,
        stream: TextIO | None = None,
        enabled: bool = True,
    ) -> None:
        self.what, self.total, self.unit = what, total, unit
        self.stream = stream if stream is not None else sys.stderr
        self.done = 0
        self._started = time.perf_counter()
        self._next_line = self._started + LINE_SECONDS
        self._bar: tqdm | None = None
        self._lines = enabled and not _sized_terminal(self.stream)
        if enabled and not self._lines:
            self._bar = tqdm(
                total=total, unit=unit, desc=what, file=self.stream, leave=False, dynamic_ncols=True
            )
        self._opened = False  # the plain lines' opening line is out

    def update(self, count: int = 1) -> None:
        """`count` more units done."""
        self.advance_to(self.done + count)

    def advance_to(self, done: int, note: str = "") -> None:
        """`done` units done in all; `note` (say, the score so far) goes on the line."""
        step, self.done = done - self.done, done
        if self._bar is not None:
            if note:
                self._bar.set_postfix_str(note, refresh=False)
            self._bar.update(step)
        elif self._lines:
            if not self._opened:  # with the first progress, not before: an error before
                self._opened = True  # any work stays the one line it is
                size = f"{self.total:,} {self.unit}s" if self.total is not None else "counting"
                print(f"{self.what}: {size}, a line every {LINE_SECONDS:.0f} s", file=self.stream)
            if time.perf_counter() >= self._next_line:
                self._write_line(note)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        elif self._lines and self.done:
            self._write_line()
            self._lines = False

    def _write_line(self, note: str = "") -> None:
        now = time.perf_counter()
        self._next_line = now + LINE_SECONDS
        elapsed = now - self._started
        if self.total is None:
            line = f"{self.what}: {self.done:,} {self.unit}s, {elapsed:.0f} s"
        else:
            share = self.done / self.total if self.total else 1.0
            line = f"{self.what}: {self.done:,}/{self.total:,} {self.unit}s ({share:.0%})"
            line += f", {elapsed:.0f} s"
            if 0 < share < 1:
                line += f", about {elapsed / share - elapsed:.0f} s left"
        if note:
            line += f"; {note}"
        print(line, file=self.stream, flush=True)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def _sized_terminal(stream: TextIO) -> bool:
    """A terminal a bar can be drawn on: one that says how wide it is."""
    try:
        return stream.isatty() and os.get_terminal_size(stream.fileno()).columns > 0
    except (OSError, ValueError, AttributeError):  # no file descriptor, or not a terminal
        return False
