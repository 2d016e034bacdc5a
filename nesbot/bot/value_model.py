"""A learned value's file, and the evaluator that plays with it.

A value model (nesbot._core.learned) is a table of numbers: what a board's line clears still
to come are worth, in thousands of points, read off its column heights, their neighbouring
pairs, its holes and the lines left to its goal level. Its file is JSON of numbers alone
(loading one runs no code):

    {"format": "nesbot-value-model", "version": 1, "tap_hz": 15, "from_level": 29,
     "scale": 3.0, "layout": [["height", 0, [10, 21]], ...], "table": [3085 numbers],
     "provenance": {"command": ..., "seed": ..., "games": ..., "commit": ...}}

`scale` is what a thousand points of value are worth in the evaluation's units: from
`from_level` on the planner subtracts scale x value from each of its best candidates'
values before it chooses (Planner.value_model), or, with `"at_leaves": true` (left out
when false), from each board its lookahead's last unknown piece leaves. A model is trained
at one tap rate (scripts/learned/train_value.py) and plays at that rate only. An evaluator
may ship models for its kill screen (Evaluator.value_models_by_tap_hz, files in
nesbot/data/): the bot plays its tap rate's unless it is given another (with_value_model)
or none (without_value_model).
"""

import hashlib
import json
import os
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from nesbot._core.learned import LAYOUT, SIZE, ValueModel
from nesbot.bot.tap_rates import TAP_RATES
from nesbot.errors import NesbotError
from nesbot.evaluation.evaluators import Evaluator
from nesbot.evaluation.weights import DATA_DIR, MAX_WEIGHT, check_keys, is_weight, read_json_file
from nesbot.output_file import write_output

FORMAT = "nesbot-value-model"
VERSION = 1
KEYS = ("format", "version", "tap_hz", "from_level", "scale", "layout", "table", "provenance")


@dataclass(frozen=True)
class ValueModelFile:
    """A value model as its file holds it."""

    table: tuple[float, ...]
    tap_hz: int
    from_level: int = 29
    scale: float = 1.0
    provenance: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    # True: the learned value judges the lookahead's last boards (each placement of the
    # last unknown piece), not the planner's final candidates.
    at_leaves: bool = False
    # The level whose lines left the tables read: 39, or 29 for a model of the stack
    # before level 29 (the file's "goal_level", left out when 39).
    goal_level: int = 39

    def model(self) -> ValueModel:
        """The core's model, for Planner.value_model."""
        return ValueModel(
            np.array(self.table), self.from_level, self.scale, self.at_leaves, self.goal_level
        )

    def identity(self) -> dict[str, Any]:
        """What games played with it depend on (a run's identity, nesbot.lab.game_runs)."""
        table = hashlib.sha256(json.dumps(list(self.table)).encode()).hexdigest()
        # keys left out at their first values: a run's identity as saved before them
        return {
            "table_sha256": table,
            "from_level": self.from_level,
            "scale": self.scale,
        } | self._optional()

    def _optional(self) -> dict[str, Any]:
        """The keys a file leaves out at their first values."""
        return ({"at_leaves": True} if self.at_leaves else {}) | (
            {"goal_level": self.goal_level} if self.goal_level != 39 else {}
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "tap_hz": self.tap_hz,
            "from_level": self.from_level,
            "scale": self.scale,
            **self._optional(),
            "layout": [[name, offset, list(shape)] for name, offset, shape in LAYOUT],
            "table": [float(x) for x in self.table],
            "provenance": self.provenance,
        }


def save_value_model(model: ValueModelFile, path: str | os.PathLike[str]) -> None:
    write_output(path, "value model", json.dumps(model.to_json(), indent=1) + "\n")


def _number(path: Path, key: str, value: object) -> float:
    if not is_weight(value):
        raise NesbotError(
            f"value model {path}: {key} must be a finite number within +-{MAX_WEIGHT:,.0f}, "
            f"not {value!r}"
        )
    return float(value)  # type: ignore[arg-type]


def _level(path: Path, key: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 255:
        raise NesbotError(f"value model {path}: {key} {value!r} is not a level 0-255")
    return value


def load_value_model(path: str | os.PathLike[str]) -> ValueModelFile:
    """Read a value model file; a bad one is refused with one line naming what is wrong."""
    path = Path(path)
    data = read_json_file(path, "value model")
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise NesbotError(f"value model {path} is not a {FORMAT} file")
    if data.get("version") != VERSION:
        raise NesbotError(f"value model {path}: version {data.get('version')!r} is not {VERSION}")
    check_keys(path, "value model", data, KEYS, (*KEYS, "at_leaves", "goal_level"))
    expected = [[name, offset, list(shape)] for name, offset, shape in LAYOUT]
    if data["layout"] != expected:
        raise NesbotError(f"value model {path}: its layout is not this nesbot's tables")
    table = data["table"]
    if not isinstance(table, list) or len(table) != SIZE:
        raise NesbotError(f"value model {path}: table must be a list of {SIZE} numbers")
    values = tuple(_number(path, f"table[{k}]", x) for k, x in enumerate(table))
    tap_hz = data["tap_hz"]
    if tap_hz not in TAP_RATES or isinstance(tap_hz, bool):
        raise NesbotError(
            f"value model {path}: tap_hz {tap_hz!r} is not one of {sorted(TAP_RATES)}"
        )
    from_level = _level(path, "from_level", data["from_level"])
    scale = _number(path, "scale", data["scale"])
    if scale < 0:
        raise NesbotError(f"value model {path}: scale {scale} is negative")
    if not isinstance(data["provenance"], dict):
        raise NesbotError(f"value model {path}: provenance must be a JSON object")
    at_leaves = data.get("at_leaves", False)
    if not isinstance(at_leaves, bool):
        raise NesbotError(f"value model {path}: at_leaves {at_leaves!r} is not true or false")
    goal_level = _level(path, "goal_level", data.get("goal_level", 39))
    return ValueModelFile(
        values, tap_hz, from_level, scale, data["provenance"], at_leaves, goal_level
    )


@dataclass(frozen=True)
class LearnedEvaluator(Evaluator):
    """An evaluator whose planner judges its kill screen by a value model as well
    (build_planner sets Planner.value_model). Its name names the model, so games saved with
    it are another run than the evaluator's own."""

    value_model: ValueModelFile | None = None


def with_value_model(
    evaluator: Evaluator,
    model: ValueModelFile,
    label: str,
    scale: float | None = None,
    at_leaves: bool | None = None,
) -> LearnedEvaluator:
    """`evaluator` playing with `model` (its scale and use, or `scale` and `at_leaves`),
    named after both."""
    if scale is not None:
        model = replace(model, scale=scale)
    if at_leaves is not None:
        model = replace(model, at_leaves=at_leaves)
    where = "leaves" if model.at_leaves else ""
    fields = _evaluator_fields(evaluator) | {
        "name": f"{evaluator.name}+{label}@{where}{model.scale:g}"
    }
    return LearnedEvaluator(**fields, value_model=model)


def without_value_model(evaluator: Evaluator) -> Evaluator:
    """`evaluator` with no learned value at any tap rate (`--value-model off`)."""
    fields = _evaluator_fields(evaluator) | {"value_models_by_tap_hz": {}}
    if isinstance(evaluator, LearnedEvaluator) or evaluator.value_models_by_tap_hz:
        fields["name"] = f"{evaluator.name}+no-value"
    return Evaluator(**fields)


def _evaluator_fields(evaluator: Evaluator) -> dict[str, Any]:
    """An evaluator's fields as a plain Evaluator has them (a given model left out)."""
    return {name: getattr(evaluator, name) for name in Evaluator.__dataclass_fields__}


@cache
def _shipped(name: str) -> ValueModelFile:
    return load_value_model(DATA_DIR / name)


def value_model_for(evaluator: object, tap_hz: int) -> ValueModelFile | None:
    """The value model a bot playing `evaluator` (anything build_planner takes) at `tap_hz`
    judges its kill screen by: the one it was given, else the one it ships for that tap
    rate, else none."""
    given = getattr(evaluator, "value_model", None)
    if given is not None:
        return given
    name = getattr(evaluator, "value_models_by_tap_hz", {}).get(tap_hz)
    return _shipped(name) if name else None
