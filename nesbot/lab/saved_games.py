"""A simulate run's games saved as they finish, so that a long run can stop and go on.

The file is JSON lines: the first names the run (what its games depend on: the
evaluator's weights, the planner's settings, the start level, seed, stop level and
pieces; and the evaluator's name, which they do not depend on), each other line is one
game's result with its index. A run given the file again plays only the games it does not
hold; a run that differs in anything but the number of games (or the name its weights go
by: a weights file and the built-in evaluator it copies play the same games) is refused,
so results of two runs are never mixed. Each line is flushed as its game
ends: a run killed mid-write loses at most the line it was writing, which is dropped.
"""

import json
import os
from pathlib import Path
from typing import Any

from nesbot._core.features import ALL_FEATURE_NAMES
from nesbot.bot.planning import settings_saved_before
from nesbot.errors import NesbotError

FORMAT = "nesbot simulate games 1"
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


class SavedGames:
    """The games of `run` already in `path` (`done`, by index), and the place to add the
    others."""

    def __init__(self, path: str | Path, run: dict[str, Any]) -> None:
        self.path = Path(path)
        self.done: dict[int, dict] = {}
        lines = self._read()
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
        records = [{"format": FORMAT, "run": run}]
        records += [{"index": index} | game for index, game in sorted(self.done.items())]
        fresh = self.path.with_name(self.path.name + ".partial")
        try:
            fresh.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
            os.replace(fresh, self.path)
            self._out = self.path.open("a", encoding="utf-8")
        except OSError as e:
            raise NesbotError(f"cannot write games file {self.path}: {e.strerror}") from None

    def _read(self) -> list[dict]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        except (OSError, UnicodeDecodeError) as e:
            raise NesbotError(f"cannot read games file {self.path}: {e}") from None
        lines, texts = [], text.splitlines()
        for number, line in enumerate(texts, 1):
            try:
                lines.append(json.loads(line))
            except json.JSONDecodeError:
                if number < len(texts) or number == 1:  # only a torn last game is dropped
                    raise NesbotError(
                        f"{self.path} line {number} is not JSON: not a file of simulated games"
                    ) from None
        return lines

    def add(self, index: int, result: dict) -> None:
        self._out.write(json.dumps({"index": index} | result) + "\n")
        self._out.flush()

    def close(self) -> None:
        self._out.close()
