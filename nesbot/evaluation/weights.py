"""Evaluation weights as a named record, stored as JSON together with how they were made.

A weights file is one JSON object: a number for each field of `Weights` (the 17 names of
nesbot._core.evaluate.FEATURE_NAMES, "ceiling", the rule-2 penalty scale, nesbot's NES
features, NES_FEATURE_NAMES, the piece-range features, FIXED_NAMES, and the right-well
features, WELL_FEATURE_NAMES), "safe_stack_height" (where the feature high_stack starts
counting rows) and "provenance", an object saying where the numbers come from (source,
command, seed, games, ...). Every key is required but the NES, piece-range and right-well
features and safe_stack_height (files written before they existed leave them out: weight 0,
height 8), and no other key is allowed, so a typo cannot silently leave a weight at a
default.
`load_weights` raises NesbotError with one sentence for any problem with the file.

`as_vector()` gives meatfighter's 17 weights in FEATURE_NAMES order (the C evaluator takes
that, and the other features' weights by name); `trainable_vector()` gives the weights
training changes (TRAINABLE_NAMES); training keeps FIXED_NAMES as they are.
"""

import json
import math
import os
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from nesbot._core.evaluate import (
    DEFAULT_CEILING_WEIGHT,
    DEFAULT_SAFE_STACK_HEIGHT,
    FEATURE_NAMES,
    NES_FEATURE_NAMES,
    REACH_FEATURE_NAMES,
    WELL_FEATURE_NAMES,
)
from nesbot.errors import NesbotError

DATA_DIR = Path(__file__).parents[1] / "data"
# The weights training changes: meatfighter's 17, then nesbot's NES features.
TRAINABLE_NAMES: tuple[str, ...] = (*FEATURE_NAMES, *NES_FEATURE_NAMES)
# Weights a weights file holds that training keeps as they are (see Weights).
FIXED_NAMES: tuple[str, ...] = REACH_FEATURE_NAMES
# Every feature a weights file weighs.
FEATURE_WEIGHT_NAMES: tuple[str, ...] = (*TRAINABLE_NAMES, *FIXED_NAMES, *WELL_FEATURE_NAMES)


@dataclass(frozen=True)
class Weights:
    """One weight per evaluation feature (lower evaluation is better), plus provenance."""

    total_lines_cleared: float
    total_lock_height: float
    total_well_cells: float
    total_deep_wells: float
    total_column_holes: float
    total_weighted_column_holes: float
    total_column_hole_depths: float
    min_column_hole_depth: float
    max_column_hole_depth: float
    total_column_transitions: float
    total_row_transitions: float
    total_column_heights: float
    pile_height: float
    column_height_spread: float
    total_solid_cells: float
    total_weighted_solid_cells: float
    column_height_variance: float
    tetris_ready: float = 0.0
    burned_lines: float = 0.0
    right_column_height: float = 0.0
    high_stack: float = 0.0
    surface_value: float = 0.0
    burns_needed: float = 0.0
    # The piece-range features (cython_core/piece_ranges.py): set by hand, not trained, since
    # before level 29 at 30 Hz no stack the bot builds stands that tall, so training's
    # pre-29 fitness cannot see them.
    unreachable_columns: float = 0.0
    reach_excess: float = 0.0
    # The right-well features (cython_core/evaluate.pxd): set by hand for now
    well_covered: float = 0.0
    high_beside_well: float = 0.0
    beside_well_low: float = 0.0
    unable_to_burn: float = 0.0
    built_out_left: float = 0.0
    well_tetris_ready: float = 0.0
    stack_height_over: float = 0.0
    extreme_gap: float = 0.0
    stack_holes: float = 0.0
    ceiling: float = DEFAULT_CEILING_WEIGHT
    # high_stack counts the stack's rows past this many (not trained: a setting of the
    # feature, like the ceiling's scale)
    safe_stack_height: float = DEFAULT_SAFE_STACK_HEIGHT
    # A dict cannot be hashed; leaving it out of the hash keeps Weights usable as a dict key.
    provenance: dict[str, Any] = field(default_factory=dict, hash=False)

    def as_vector(self) -> list[float]:
        """meatfighter's 17 feature weights in FEATURE_NAMES order (the C evaluator reads
        the NES features' weights by name; the ceiling weight is not included)."""
        return [getattr(self, name) for name in FEATURE_NAMES]

    def trainable_vector(self) -> list[float]:
        """The weights training changes, in TRAINABLE_NAMES order."""
        return [getattr(self, name) for name in TRAINABLE_NAMES]

    @classmethod
    def from_vector(
        cls,
        vector: list[float],
        ceiling: float = DEFAULT_CEILING_WEIGHT,
        provenance: dict[str, Any] | None = None,
    ) -> "Weights":
        """Weights from floats in TRAINABLE_NAMES order (what a trainer works with): all of
        them, or meatfighter's 17 alone (the NES features then weigh 0)."""
        if len(vector) not in (len(FEATURE_NAMES), len(TRAINABLE_NAMES)):
            raise ValueError(
                f"expected {len(FEATURE_NAMES)} or {len(TRAINABLE_NAMES)} "
                f"weights, got {len(vector)}"
            )
        values = {name: float(v) for name, v in zip(TRAINABLE_NAMES, vector, strict=False)}
        return cls(**values, ceiling=float(ceiling), provenance=dict(provenance or {}))


_NUMBER_KEYS = (*FEATURE_WEIGHT_NAMES, "ceiling", "safe_stack_height")
_ALL_KEYS = (*_NUMBER_KEYS, "provenance")
_OPTIONAL_DEFAULTS = {
    name: 0.0 for name in (*NES_FEATURE_NAMES, *FIXED_NAMES, *WELL_FEATURE_NAMES)
} | {"safe_stack_height": DEFAULT_SAFE_STACK_HEIGHT}
if tuple(f.name for f in fields(Weights)) != _ALL_KEYS:
    raise ImportError(
        "nesbot.evaluation.weights.Weights fields differ from nesbot._core's feature names"
    )


def load_weights(path: str | os.PathLike[str]) -> Weights:
    """Read a weights file written by save_weights (or by hand in the same layout)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise NesbotError(f"weights file {path} does not exist") from None
    except (OSError, UnicodeDecodeError) as e:
        raise NesbotError(f"cannot read weights file {path}: {e}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise NesbotError(
            f"weights file {path} is not valid JSON ({e.msg} at line {e.lineno})"
        ) from None
    if not isinstance(data, dict):
        raise NesbotError(
            f"weights file {path} must hold a JSON object, found {type(data).__name__}"
        )
    missing = [k for k in _ALL_KEYS if k not in data and k not in _OPTIONAL_DEFAULTS]
    if missing:
        raise NesbotError(f"weights file {path} lacks {', '.join(missing)}")
    unknown = [k for k in data if k not in _ALL_KEYS]
    if unknown:
        raise NesbotError(f"weights file {path} has unknown keys: {', '.join(unknown)}")
    data = _OPTIONAL_DEFAULTS | data
    for key in _NUMBER_KEYS:
        value = data[key]
        # bool is an int in Python, but true/false in a weights file is a mistake.
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
        ):
            raise NesbotError(f"weights file {path}: {key} must be a finite number, got {value!r}")
    if not isinstance(data["provenance"], dict):
        raise NesbotError(f"weights file {path}: provenance must be a JSON object")
    return Weights(**{key: float(data[key]) for key in _NUMBER_KEYS}, provenance=data["provenance"])


def save_weights(weights: Weights, path: str | os.PathLike[str]) -> None:
    """Write weights as JSON (exact: floats are written with repr, so load gives them back)."""
    path = Path(path)
    data: dict[str, Any] = {key: getattr(weights, key) for key in _NUMBER_KEYS}
    data["provenance"] = weights.provenance
    try:
        path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    except OSError as e:
        raise NesbotError(f"cannot write weights file {path}: {e.strerror}") from None
    except TypeError as e:
        raise NesbotError(f"weights provenance cannot be saved as JSON: {e}") from None


MEATFIGHTER_2018: Weights = load_weights(DATA_DIR / "meatfighter2018.json")
