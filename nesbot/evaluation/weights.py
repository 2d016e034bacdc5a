"""Evaluation weights as a record, stored as JSON together with how they were made.

A weights file is one JSON object: a number for each evaluation feature it weighs (the
names of nesbot._core.features, which names every feature once), "ceiling" (the rule-2
penalty scale), "safe_stack_height" (where the feature high_stack starts counting rows) and
"provenance", an object saying where the numbers come from (source, command, seed, games,
...), and optionally "kill_screen" (the weights from level 29 on),
"kill_screen_by_tap_hz" (such sets for slower tap rates), "fast_levels" (the weights
from level 19, where a piece falls a row every two frames, until the kill_screen set) and
"fast_levels_by_tap_hz" (such sets for slower tap rates).
meatfighter's 17 features, "ceiling" and "provenance" are required; any other feature left
out weighs 0 (files written before it existed), safe_stack_height defaults to 8, and no
other key is allowed, so a typo cannot silently leave a weight at a default.
`load_weights` raises NesbotError with one sentence for any problem with the file.

`as_vector()` gives every feature's weight in ALL_FEATURE_NAMES order (what the C evaluator
takes); `trainable_vector()` gives the weights training changes (TRAINABLE_NAMES); training
keeps FIXED_NAMES as they are.
"""

import json
import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from nesbot._core.features import (
    ALL_FEATURE_NAMES,
    FEATURE_NAMES,
    NES_FEATURE_NAMES,
    REACH_FEATURE_NAMES,
)
from nesbot._core.pieces import KILL_SCREEN_LEVEL
from nesbot._core.weight_sets import DEFAULT_CEILING_WEIGHT, DEFAULT_SAFE_STACK_HEIGHT
from nesbot.errors import NesbotError
from nesbot.input_file import parse_json, read_at_most
from nesbot.output_file import write_output

DATA_DIR = Path(__file__).parents[1] / "data"
# The weights training changes: meatfighter's 17, then nesbot's NES features.
TRAINABLE_NAMES: tuple[str, ...] = (*FEATURE_NAMES, *NES_FEATURE_NAMES)
# The piece-range features: set by hand, not trained, since before level 29 at 30 Hz no
# stack the bot builds stands that tall, so training's pre-29 fitness cannot see them.
FIXED_NAMES: tuple[str, ...] = REACH_FEATURE_NAMES
_SLOT = {name: slot for slot, name in enumerate(ALL_FEATURE_NAMES)}
_SETTINGS = ("ceiling", "safe_stack_height")


class LevelSets:
    """What Weights and Evaluator share: a kill_screen set (from level 29, or its
    from_level), a fast_levels set (from level 19 until the kill_screen set), each with
    sets for slower taps, and what the C evaluator reads of them (weight_sets.pyx's
    load_weights calls the *_vector methods and reads the properties)."""

    safe_stack_height: float
    kill_screen: dict[str, float]
    kill_screen_by_tap_hz: dict[int, dict[str, float]]
    fast_levels: dict[str, float]
    fast_levels_by_tap_hz: dict[int, dict[str, float]]

    def _named_weights(self) -> tuple[Mapping[str, float], float]:
        """Feature name -> weight before the sets, and the sign that makes lower better."""
        raise NotImplementedError

    def _check_level_sets(self) -> None:
        """The sets are well formed, and every fast_levels set takes over before every
        kill_screen set does (else it would never weigh a position)."""
        check_tap_rates("kill_screen_by_tap_hz", self.kill_screen_by_tap_hz)
        check_tap_rates("fast_levels_by_tap_hz", self.fast_levels_by_tap_hz)
        kill_sets = (self.kill_screen, *self.kill_screen_by_tap_hz.values())
        for kill in kill_sets:
            check_kill_screen(kill)
        kill_level = min(kill_screen_from_level(kill) for kill in kill_sets)
        for fast in (self.fast_levels, *self.fast_levels_by_tap_hz.values()):
            check_set_keys("fast_levels", fast)
            level = fast.get("from_level", FAST_LEVELS_LEVEL)
            if level != int(level) or not 0 <= level < kill_level:
                raise ValueError(
                    f"fast_levels from_level must be a level 0-{kill_level - 1}, before the "
                    f"kill_screen set's {kill_level}, got {level!r}"
                )

    def _sets_at_tap_hz(self, tap_hz: int) -> dict[str, Any]:
        """The sets a bot tapping `tap_hz` plays, as fields to replace: the tap rate's own
        kill_screen and fast_levels sets, and none by rate."""
        return {
            "kill_screen": set_at_tap_hz(self.kill_screen, self.kill_screen_by_tap_hz, tap_hz),
            "kill_screen_by_tap_hz": {},
            "fast_levels": set_at_tap_hz(self.fast_levels, self.fast_levels_by_tap_hz, tap_hz),
            "fast_levels_by_tap_hz": {},
        }

    def _set_vector(self, changes: Mapping[str, float]) -> list[float] | None:
        weights, sign = self._named_weights()
        return level_set_vector(weights, changes, sign)

    def kill_screen_vector(self) -> list[float] | None:
        """The weights from level 29 on (or its from_level) in ALL_FEATURE_NAMES order,
        lower-is-better, or None without a kill_screen set."""
        return self._set_vector(self.kill_screen)

    @property
    def kill_screen_safe_stack_height(self) -> float:
        return self.kill_screen.get("safe_stack_height", self.safe_stack_height)

    @property
    def kill_screen_from_level(self) -> int:
        return kill_screen_from_level(self.kill_screen)

    def fast_levels_vector(self) -> list[float] | None:
        """The same from level 19 (or its from_level), or None without a fast_levels set."""
        return self._set_vector(self.fast_levels)

    @property
    def fast_levels_safe_stack_height(self) -> float:
        return self.fast_levels.get("safe_stack_height", self.safe_stack_height)

    @property
    def fast_levels_from_level(self) -> int:
        return fast_levels_from_level(self.fast_levels)


@dataclass(frozen=True)
class Weights(LevelSets):
    """One weight per evaluation feature (lower evaluation is better), the features'
    settings, and provenance. `weights["pile_height"]` reads one weight."""

    vector: tuple[float, ...]  # one weight per ALL_FEATURE_NAMES, in that order
    ceiling: float = DEFAULT_CEILING_WEIGHT  # rule 2's scale: a cell in row r costs this / (r + 1)
    # high_stack counts the stack's rows past this many (not trained: a setting of the
    # feature, like the ceiling's scale)
    safe_stack_height: float = DEFAULT_SAFE_STACK_HEIGHT
    # A dict cannot be hashed; leaving it out of the hash keeps Weights usable as a dict key.
    provenance: dict[str, Any] = field(default_factory=dict, hash=False)
    # From level 29 on (a row a frame), or from its "from_level": these features' weights,
    # and safe_stack_height, instead (KILL_SCREEN_KEYS); empty: the same weights throughout.
    kill_screen: dict[str, float] = field(default_factory=dict, hash=False)
    # Tap rate (Hz) -> a kill_screen set for a bot tapping that fast or slower (down to the
    # next rate listed): at 1G the rows a piece falls per tap decide which stacks it can
    # cross (set_at_tap_hz).
    kill_screen_by_tap_hz: dict[int, dict[str, float]] = field(default_factory=dict, hash=False)
    # From level 19 (or its "from_level") until the kill_screen set takes over: these
    # features' weights and safe_stack_height instead (KILL_SCREEN_KEYS); empty: none.
    fast_levels: dict[str, float] = field(default_factory=dict, hash=False)
    # Tap rate (Hz) -> a fast_levels set for a bot tapping that fast or slower, as
    # kill_screen_by_tap_hz (an empty set: none; a taller stack costs slow taps columns).
    fast_levels_by_tap_hz: dict[int, dict[str, float]] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        if len(self.vector) != len(ALL_FEATURE_NAMES):
            raise ValueError(
                f"Weights needs {len(ALL_FEATURE_NAMES)} weights, got {len(self.vector)}"
            )
        self._check_level_sets()

    @classmethod
    def named(
        cls,
        weights: Mapping[str, float],
        ceiling: float = DEFAULT_CEILING_WEIGHT,
        safe_stack_height: float = DEFAULT_SAFE_STACK_HEIGHT,
        provenance: dict[str, Any] | None = None,
        kill_screen: Mapping[str, float] | None = None,
        kill_screen_by_tap_hz: Mapping[int, Mapping[str, float]] | None = None,
        fast_levels: Mapping[str, float] | None = None,
        fast_levels_by_tap_hz: Mapping[int, Mapping[str, float]] | None = None,
    ) -> "Weights":
        """Weights from feature name -> weight; the features not named weigh 0."""
        unknown = sorted(set(weights) - set(ALL_FEATURE_NAMES))
        if unknown:
            raise ValueError(f"unknown features: {', '.join(unknown)}")
        return cls(
            tuple(float(weights.get(name, 0.0)) for name in ALL_FEATURE_NAMES),
            float(ceiling),
            float(safe_stack_height),
            dict(provenance or {}),
            {name: float(value) for name, value in (kill_screen or {}).items()},
            _by_tap_hz(kill_screen_by_tap_hz),
            {name: float(value) for name, value in (fast_levels or {}).items()},
            _by_tap_hz(fast_levels_by_tap_hz),
        )

    def __getitem__(self, name: str) -> float:
        return self.vector[_SLOT[name]]

    def by_name(self) -> dict[str, float]:
        """Feature name -> weight, every feature."""
        return dict(zip(ALL_FEATURE_NAMES, self.vector, strict=True))

    def changed(self, **changes: float) -> "Weights":
        """These weights with some features' weights or settings (ceiling,
        safe_stack_height) changed."""
        ceiling = changes.pop("ceiling", self.ceiling)
        safe_stack_height = changes.pop("safe_stack_height", self.safe_stack_height)
        return Weights.named(
            self.by_name() | changes,
            ceiling,
            safe_stack_height,
            self.provenance,
            self.kill_screen,
            self.kill_screen_by_tap_hz,
            self.fast_levels,
            self.fast_levels_by_tap_hz,
        )

    def at_tap_hz(self, tap_hz: int) -> "Weights":
        """These weights as a bot tapping `tap_hz` plays them: its tap rate's kill_screen
        and fast_levels sets as those sets."""
        return replace(self, **self._sets_at_tap_hz(tap_hz))

    def as_vector(self) -> list[float]:
        """Every feature's weight in ALL_FEATURE_NAMES order (the C evaluator's form; the
        ceiling weight is not included)."""
        return list(self.vector)

    def _named_weights(self) -> tuple[Mapping[str, float], float]:
        return self.by_name(), 1.0

    def trainable_vector(self) -> list[float]:
        """The weights training changes, in TRAINABLE_NAMES order."""
        return [self[name] for name in TRAINABLE_NAMES]

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
        return cls.named(
            dict(zip(TRAINABLE_NAMES, vector, strict=False)), ceiling, provenance=provenance
        )


# What a kill_screen set may change: the features' weights, high_stack's height, and the
# level it takes over from: 29 unless an earlier level, where a stack built for Tetrises
# is brought down before pieces fall a row a frame.
KILL_SCREEN_KEYS = (*ALL_FEATURE_NAMES, "safe_stack_height", "from_level")


def _by_tap_hz(sets: Mapping[int, Mapping[str, float]] | None) -> dict[int, dict[str, float]]:
    return {int(hz): {k: float(v) for k, v in s.items()} for hz, s in (sets or {}).items()}


# Where a fast_levels set takes over unless it says: the first level a piece falls a row
# every two frames (it does until level 29).
FAST_LEVELS_LEVEL = 19


def check_set_keys(name: str, changes: Mapping[str, float]) -> None:
    """A kill_screen or fast_levels set names only features and its two settings."""
    unknown = sorted(set(changes) - set(KILL_SCREEN_KEYS))
    if unknown:
        raise ValueError(f"unknown {name} keys: {', '.join(unknown)}")


def check_kill_screen(kill_screen: Mapping[str, float]) -> None:
    check_set_keys("kill_screen", kill_screen)
    level = kill_screen.get("from_level", KILL_SCREEN_LEVEL)
    if level != int(level) or not 0 <= level <= KILL_SCREEN_LEVEL:
        raise ValueError(
            f"kill_screen from_level must be a level 0-{KILL_SCREEN_LEVEL}, got {level!r}"
        )


def check_tap_rates(name: str, by_tap_hz: Mapping[int, Mapping[str, float]]) -> None:
    for hz in by_tap_hz:
        if isinstance(hz, bool) or not isinstance(hz, int) or hz <= 0:
            raise ValueError(f"{name} keys must be tap rates in Hz, got {hz!r}")


def set_at_tap_hz(
    level_set: Mapping[str, float],
    by_tap_hz: Mapping[int, Mapping[str, float]],
    tap_hz: int,
) -> dict[str, float]:
    """The kill_screen (or fast_levels) set a bot tapping `tap_hz` plays: the one listed
    at the slowest rate at least that fast, else `level_set` (the sets are for slower
    taps; an empty one changes nothing)."""
    covering = [hz for hz in by_tap_hz if hz >= tap_hz]
    return dict(by_tap_hz[min(covering)] if covering else level_set)


def kill_screen_from_level(kill_screen: Mapping[str, float]) -> int:
    """The level a kill_screen set takes over from."""
    return int(kill_screen.get("from_level", KILL_SCREEN_LEVEL))


def fast_levels_from_level(fast_levels: Mapping[str, float]) -> int:
    """The level a fast_levels set takes over from."""
    return int(fast_levels.get("from_level", FAST_LEVELS_LEVEL))


def level_set_vector(
    weights: Mapping[str, float], changes: Mapping[str, float], sign: float = 1.0
) -> list[float] | None:
    """A kill_screen or fast_levels set's weights, in ALL_FEATURE_NAMES order, times
    `sign`: `weights` with the set's changes; None when there are none."""
    if not changes:
        return None
    merged = {**weights, **changes}
    return [sign * merged.get(name, 0.0) for name in ALL_FEATURE_NAMES]


# The largest weight a file may give (nesbot's own reach 1,000). A board's features are at
# most a few thousand each, so sums of weights this size stay exact enough and far from
# float overflow; a file's 1e308 would make every evaluation inf or NaN.
MAX_WEIGHT = 1e6
_REQUIRED_KEYS = (*FEATURE_NAMES, "ceiling", "provenance")
_NUMBER_KEYS = (*ALL_FEATURE_NAMES, *_SETTINGS)
_LEVEL_SETS = ("kill_screen", "kill_screen_by_tap_hz", "fast_levels", "fast_levels_by_tap_hz")
_ALL_KEYS = (*_NUMBER_KEYS, "provenance", *_LEVEL_SETS)


# The largest data file read (weights, value models, checkpoints are kilobytes to a few
# megabytes); a larger one is refused, not read whole.
MAX_JSON_BYTES = 64 << 20


def read_json_file(path: Path, what: str) -> object:
    """The JSON a data file holds; a file that is missing, unreadable or not JSON is refused
    in one line naming it as `what` ("weights file", "value model")."""
    try:
        text = read_at_most(path, MAX_JSON_BYTES, what).decode("utf-8")
    except FileNotFoundError:
        raise NesbotError(f"{what} {path} does not exist") from None
    except (OSError, UnicodeDecodeError) as e:
        raise NesbotError(f"cannot read {what} {path}: {e}") from None
    return parse_json(text, f"{what} {path}")


def is_weight(value: object) -> bool:
    """A number a data file may give a weight (or a learned value): finite, not a flag,
    within +-MAX_WEIGHT."""
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)  # an int in Python, but true/false is a mistake
        and abs(value) <= MAX_WEIGHT  # first: a 400-digit int has no float to test
        and math.isfinite(value)
    )


def check_keys(
    path: Path,
    what: str,
    data: Mapping[str, object],
    required: Iterable[str],
    allowed: Iterable[str],
) -> None:
    """Refuse a data file's object that lacks a required key or has one not allowed."""
    missing = [k for k in required if k not in data]
    if missing:
        raise NesbotError(f"{what} {path} lacks {', '.join(missing)}")
    allowed = set(allowed)
    unknown = [k for k in data if k not in allowed]
    if unknown:
        raise NesbotError(f"{what} {path} has unknown keys: {', '.join(unknown)}")


def load_weights(path: str | os.PathLike[str]) -> Weights:
    """Read a weights file written by save_weights (or by hand in the same layout)."""
    path = Path(path)
    data = read_json_file(path, "weights file")
    if not isinstance(data, dict):
        raise NesbotError(
            f"weights file {path} must hold a JSON object, found {type(data).__name__}"
        )
    check_keys(path, "weights file", data, _REQUIRED_KEYS, _ALL_KEYS)
    numbers = [(key, data[key]) for key in _NUMBER_KEYS if key in data]
    kill_screen = _level_set(path, "kill_screen", data.get("kill_screen", {}), numbers)
    by_tap_hz = _sets_by_tap_hz(path, "kill_screen_by_tap_hz", data, numbers)
    fast_levels = _level_set(path, "fast_levels", data.get("fast_levels", {}), numbers)
    fast_by_tap_hz = _sets_by_tap_hz(path, "fast_levels_by_tap_hz", data, numbers)
    for key, value in numbers:
        if not is_weight(value):
            raise NesbotError(
                f"weights file {path}: {key} must be a finite number within "
                f"+-{MAX_WEIGHT:,.0f}, got {value!r}"
            )
    if not isinstance(data["provenance"], dict):
        raise NesbotError(f"weights file {path}: provenance must be a JSON object")
    try:
        # Weights checks the level sets themselves (_check_level_sets: from_level's range)
        return Weights.named(
            {name: data[name] for name in ALL_FEATURE_NAMES if name in data},
            data["ceiling"],
            data.get("safe_stack_height", DEFAULT_SAFE_STACK_HEIGHT),
            data["provenance"],
            kill_screen,
            by_tap_hz,
            fast_levels,
            fast_by_tap_hz,
        )
    except ValueError as e:
        raise NesbotError(f"weights file {path}: {e}") from None


def _sets_by_tap_hz(
    path: Path, name: str, data: dict[str, Any], numbers: list[tuple[str, Any]]
) -> dict[int, dict[str, Any]]:
    """A file's kill_screen_by_tap_hz (or fast_levels_by_tap_hz): tap rate -> set."""
    sets = data.get(name, {})
    if not isinstance(sets, dict):
        raise NesbotError(f"weights file {path}: {name} must be a JSON object")
    by_tap_hz = {}
    for hz, changes in sets.items():
        if not (hz.isascii() and hz.isdigit()) or int(hz) == 0:
            raise NesbotError(
                f"weights file {path}: {name} keys must be tap rates in Hz, got {hz!r}"
            )
        by_tap_hz[int(hz)] = _level_set(path, f"{name}.{hz}", changes, numbers)
    return by_tap_hz


def _level_set(
    path: Path, name: str, changes: Any, numbers: list[tuple[str, Any]]
) -> dict[str, Any]:
    """A file's kill_screen (or fast_levels) set, its keys checked; its numbers are added
    to `numbers`."""
    if not isinstance(changes, dict):
        raise NesbotError(f"weights file {path}: {name} must be a JSON object")
    unknown = [k for k in changes if k not in KILL_SCREEN_KEYS]
    if unknown:
        raise NesbotError(f"weights file {path}: {name} has unknown keys: {', '.join(unknown)}")
    numbers += [(f"{name}.{key}", value) for key, value in changes.items()]
    return changes


def level_sets_data(sets: LevelSets) -> dict[str, Any]:
    """The level sets that are not empty as a weights file holds them (tap rates as
    strings): JSON, and what Weights.named takes back."""
    data = {name: getattr(sets, name) for name in _LEVEL_SETS if getattr(sets, name)}
    for name in ("kill_screen_by_tap_hz", "fast_levels_by_tap_hz"):
        if name in data:
            data[name] = {str(hz): changes for hz, changes in data[name].items()}
    return data


def save_weights(weights: Weights, path: str | os.PathLike[str]) -> None:
    """Write weights as JSON (exact: floats are written with repr, so load gives them back)."""
    path = Path(path)
    data: dict[str, Any] = weights.by_name()
    data |= {"ceiling": weights.ceiling, "safe_stack_height": weights.safe_stack_height}
    data |= level_sets_data(weights)
    data["provenance"] = weights.provenance
    try:
        text = json.dumps(data, indent=2, allow_nan=False) + "\n"
    except (TypeError, ValueError) as e:
        raise NesbotError(f"cannot write weights file {path}: not JSON numbers ({e})") from None
    write_output(path, "weights file", text)


MEATFIGHTER_2018: Weights = load_weights(DATA_DIR / "meatfighter2018.json")
