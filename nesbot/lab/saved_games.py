"""A simulate run's games saved as they finish, so that a long run can stop and go on.

The file is JSON lines: the first names the run (what its games depend on: the
evaluator's weights, the planner's settings, the start level, seed, stop level and
pieces; and the evaluator's name, which they do not depend on), each other line is one
game's result with its index. A run given the file again plays only the games it does not
hold; a run that differs in anything but the number of games (or the name its weights go
by: a weights file and the built-in evaluator it copies play the same games) is refused,
so results of two runs are never mixed. Each line is flushed as its game
ends: a run killed mid-write loses at most the line it was writing, which is dropped.

The file is read line by line, each line at most MAX_LINE_BYTES: a line longer, or one that
is not a game (an object with an index and every figure the summary reads, each a whole
number a game can make: _MOST), is refused with its number, before any game is played. The
file is then written again whole beside itself and renamed into place (nesbot.output_file).
"""

import json
import reprlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from nesbot._core.features import ALL_FEATURE_NAMES
from nesbot.bot.planning import settings_saved_before
from nesbot.errors import NesbotError
from nesbot.input_file import parse_json
from nesbot.lab.statistics import RESULT_KEYS
from nesbot.output_file import OutputFile

FORMAT = "nesbot simulate games 1"
# A game's line is ~400 bytes and the run's (its weights and settings) a few KB: a longer
# line is not of this file, and is not read whole.
MAX_LINE_BYTES = 1 << 20
_WEIGHT_VECTORS = ("weights", "kill_screen", "fast_levels")  # the run's vectors, one per feature


def _as_today(run: Any) -> Any:
    """A run named by an older nesbot, with the settings added since at what it played and
    the features added since weighed 0 in each of its weight sets."""
    if not isinstance(run, dict):
        return run
    if isinstance(run.get("settings"), dict):
        run = run | {"settings": settings_saved_before(run["settings"])}
    if isinstance(run.get("evaluator"), dict):
        evaluator = dict(run["evaluator"])
        for key in _WEIGHT_VECTORS:
            vector = evaluator.get(key)
            if isinstance(vector, list) and len(vector) < len(ALL_FEATURE_NAMES):
                evaluator[key] = vector + [0.0] * (len(ALL_FEATURE_NAMES) - len(vector))
        run = run | {"evaluator": evaluator}
    return run


def _named(run: Any, name: Any) -> Any:
    """`run` with its evaluator called `name` (what the games do not depend on)."""
    if isinstance(run, dict) and isinstance(run.get("evaluator"), dict):
        return run | {"evaluator": run["evaluator"] | {"name": name}}
    return run


def read_records(path: Path) -> list[dict]:
    """A games file's lines, checked: its header and its games (none if there is no file);
    a torn last line (a run killed mid-write) is dropped."""
    try:
        file = path.open("rb")
    except FileNotFoundError:
        return []
    except OSError as e:
        raise NesbotError(f"cannot read games file {path}: {e.strerror}") from None
    with file:
        records: list[dict] = []
        for number, line, torn in _lines(file, path):
            try:
                record = parse_json(line, f"{path} line {number}")
            except NesbotError:
                if torn and number > 1:
                    break
                raise
            problem = _header_problem(record) if number == 1 else _game_problem(record)
            if problem:
                raise NesbotError(f"{path} line {number} {problem}")
            records.append(record)
    return records


def read_games(path: str | Path) -> tuple[dict[str, Any], dict[int, dict]]:
    """A games file read for its figures alone: the run its first line names and its
    games by index (nothing is written)."""
    path = Path(path)
    records = read_records(path)
    if not records or records[0].get("format") != FORMAT:
        raise NesbotError(f"{path} is not a file of simulated games")
    header, *games = records
    return header["run"], {game.pop("index"): game for game in games}


class SavedGames:
    """The games of `run` already in `path` (`done`, by index), and the place to add the
    others."""

    def __init__(self, path: str | Path, run: dict[str, Any]) -> None:
        self.path = Path(path)
        self.done: dict[int, dict] = {}
        lines = read_records(self.path)
        if lines:
            header, *games = lines
            if header.get("format") != FORMAT:
                raise NesbotError(f"{self.path} is not a file of simulated games")
            played = _as_today(header.get("run"))
            if _named(played, None) != _named(run, None):
                raise NesbotError(
                    f"{self.path} holds the games of another run (other weights, settings, "
                    "level, seed, stop level or pieces); give another file"
                )
            self.done = {game.pop("index"): game for game in games}
            run = _named(run, played["evaluator"]["name"])  # the file keeps its name
        # Written again whole, beside it and then in its place (a torn last line, from a run
        # killed mid-write, is left out); a stop on the way leaves the old file as it was.
        with OutputFile(self.path, "games file") as fresh:
            fresh.write(json.dumps({"format": FORMAT, "run": run}) + "\n")
            for index, game in sorted(self.done.items()):
                fresh.write(json.dumps({"index": index} | game) + "\n")
        try:
            self._out = self.path.open("a", encoding="utf-8")
        except OSError as e:
            raise NesbotError(f"cannot write games file {self.path}: {e.strerror}") from None

    def add(self, index: int, result: dict) -> None:
        try:
            self._out.write(json.dumps({"index": index} | result) + "\n")
            self._out.flush()
        except OSError as e:
            raise NesbotError(f"cannot write games file {self.path}: {e.strerror}") from None

    def close(self) -> None:
        try:
            self._out.close()
        except OSError as e:
            raise NesbotError(f"cannot write games file {self.path}: {e.strerror}") from None


def _lines(file: IO[bytes], path: Path) -> Iterator[tuple[int, bytes, bool]]:
    """(number, line, whether it is the last and has no newline), each line read with a
    bound, so that no file makes the reader hold more than MAX_LINE_BYTES of it at once."""
    number = 0
    while line := file.readline(MAX_LINE_BYTES + 1):
        number += 1
        if len(line) > MAX_LINE_BYTES:
            raise NesbotError(
                f"{path} line {number} is longer than {MAX_LINE_BYTES:,} bytes: not a file of "
                "simulated games"
            )
        yield number, line, not line.endswith(b"\n")


def _header_problem(record: Any) -> str | None:
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        return "is not the header of a file of simulated games"
    if not isinstance(record.get("run"), dict):
        return "names no run"
    return None


# The most each figure of a game's result (whole_games.play's) can be, so that a line no
# game could have made (lines 100,000, a score of 10^300) is refused, not averaged: its
# summary would be wrong, or not even a float. Every figure is 0 or more. A game stops by
# level 155 (game_runs.MAX_STOP_LEVEL), some 1,560 lines from level 0, and a line is worth
# at most 300 x 155 points there: under 73 million points. It lasts at most
# game_runs.MAX_FRAMES (2 x 10^7) frames, with at most one new piece and one plan a frame.
_LARGEST = 10**8
_MOST = {
    "score": 999_999,  # the ROM's score stops there
    "lines": 9_999,  # loose: some 1,560 (above)
    "lines_at_29": 9_999,
    "tetrises": 2_499,  # four lines each
    "level": 255,  # a byte
    **dict.fromkeys(("pre29_points", "pre29_line_points", "points", "line_points"), _LARGEST),
    **dict.fromkeys(("points_at_39", "line_points_at_39"), _LARGEST),
    **dict.fromkeys(("frames", "pieces", "fallbacks", "truncated"), _LARGEST),
}
_FLAGS = ("topped_out", "maxout")
_MAY_BE_NULL = ("points_at_39", "line_points_at_39", "lines_at_29")  # not reached


def _game_problem(record: Any) -> str | None:
    if not isinstance(record, dict):
        return "is not a game (a JSON object)"
    index = record.get("index")
    if isinstance(index, bool) or not isinstance(index, int) or index < 0:
        return f"has no game index (a whole number 0 or more): {reprlib.repr(index)}"
    missing = RESULT_KEYS - record.keys()
    if missing:
        return f"lacks {', '.join(sorted(missing))}: not a game of this nesbot"
    for key, value in record.items():
        shown = reprlib.repr(value)  # a 1 MiB string or a 400-digit number, cut short
        if key in _FLAGS:
            if not isinstance(value, bool):
                return f"has {key} {shown}, not true or false"
        elif value is None:
            if key in _MOST and key not in _MAY_BE_NULL:
                return f"has {key} null, not a whole number"
        elif isinstance(value, bool | float) or not isinstance(value, int):
            return f"has {key} {shown}, not a whole number"
        elif key in _MOST and not 0 <= value <= _MOST[key]:  # another key: any whole number
            return f"has {key} {shown}, outside 0-{_MOST[key]:,}: no game makes it"
    if 4 * record["tetrises"] > record["lines"]:
        return f"has {record['tetrises']} tetrises in {record['lines']} lines"
    if (record["lines_at_29"] or 0) > record["lines"]:
        return f"has lines_at_29 {record['lines_at_29']} above its {record['lines']} lines"
    return None
