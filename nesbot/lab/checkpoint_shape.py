"""What a `nesbot train` checkpoint must hold before a run resumes from it: every key, of its
type and length, every number finite (a fitness not yet measured is null, never NaN).

A checkpoint is nesbot's own file, but a hand-edited or damaged one must be refused in one
line naming the file and the key, not fail with a traceback or resume into NaN weights.
"""

import math
from pathlib import Path
from typing import Any

from nesbot.errors import NesbotError
from nesbot.evaluation.weights import check_keys

WHAT = "checkpoint"
_SWARM_KEYS = (
    "version",
    "config",
    "rng",
    "positions",
    "velocities",
    "best_positions",
    "best_fitness",
    "global_best",
    "global_fitness",
    "iteration",
    "stagnant",
    "restarts",
    "history",
)
_CMA_KEYS = (
    "version",
    "config",
    "strategy",
    "numpy_random",
    "iteration",
    "best",
    "best_fitness",
    "best_se",
    "history",
)


def _fault(path: Path, key: str, wanted: str, found: Any) -> NesbotError:
    shown = repr(found)
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    return NesbotError(f"{WHAT} {path}: {key} must be {wanted}, found {shown}")


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _number(path: Path, key: str, value: Any, null: bool = False) -> None:
    if not (_is_number(value) or (null and value is None)):
        raise _fault(path, key, "a finite number" + (" or null" if null else ""), value)


def _whole(path: Path, key: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _fault(path, key, "a whole number 0 or more", value)


def _vector(path: Path, key: str, value: Any, length: int, null: bool = False) -> None:
    if not isinstance(value, list) or len(value) != length:
        raise _fault(path, key, f"a list of {length} numbers", value)
    for index, item in enumerate(value):
        _number(path, f"{key}[{index}]", item, null)


def _matrix(path: Path, key: str, value: Any, rows: int, columns: int) -> None:
    if not isinstance(value, list) or len(value) != rows:
        raise _fault(path, key, f"a list of {rows} lists of {columns} numbers", value)
    for index, row in enumerate(value):
        _vector(path, f"{key}[{index}]", row, columns)


def _history(path: Path, value: Any, iteration: int) -> None:
    """The log of iterations: one object of finite numbers (a standard error may be null)
    for each of the `iteration` done, in order, each naming its iteration. Training
    appends one as it counts one: a count its log does not hold (10^12 beside one entry)
    is no run's, and would be printed as its iterations."""
    if not isinstance(value, list):
        raise _fault(path, "history", "a list of iterations", value)
    if len(value) != iteration:
        raise NesbotError(
            f"{WHAT} {path}: iteration {iteration:,} does not match its history of "
            f"{len(value):,} iterations"
        )
    for index, entry in enumerate(value):
        if not isinstance(entry, dict):
            raise _fault(path, f"history[{index}]", "an object", entry)
        for key, number in entry.items():
            _number(path, f"history[{index}].{key}", number, null=key.endswith("_se"))
        if entry.get("iteration") != index + 1:
            where = f"history[{index}].iteration"
            raise _fault(path, where, f"{index + 1}", entry.get("iteration"))


def check_header(path: Path, data: Any) -> dict[str, Any]:
    """The checkpoint's object, once it is known to have a version and a config object."""
    if not isinstance(data, dict):
        raise _fault(path, "the file", "a JSON object", type(data).__name__)
    check_keys(path, WHAT, data, ("version", "config"), data.keys())
    if not isinstance(data["config"], dict):
        raise _fault(path, "config", "an object", data["config"])
    if not isinstance(data["config"].get("settings", {}), dict):
        raise _fault(path, "config.settings", "an object", data["config"]["settings"])
    return data


def check_swarm(path: Path, data: dict[str, Any], particles: int, dims: int) -> None:
    """A PSO checkpoint of `particles` particles of `dims` weights."""
    check_keys(path, WHAT, data, _SWARM_KEYS, _SWARM_KEYS)
    for key in ("positions", "velocities", "best_positions"):
        _matrix(path, key, data[key], particles, dims)
    _vector(path, "best_fitness", data["best_fitness"], particles, null=True)
    _vector(path, "global_best", data["global_best"], dims)
    _number(path, "global_fitness", data["global_fitness"], null=True)
    for key in ("iteration", "stagnant", "restarts"):
        _whole(path, key, data[key])
    _history(path, data["history"], data["iteration"])
    if not isinstance(data["rng"], dict):
        raise _fault(path, "rng", "a random generator's state (an object)", data["rng"])


def check_cma(path: Path, data: dict[str, Any], dims: int) -> None:
    """A CMA-ES checkpoint of candidates of `dims` weights (its strategy's own arrays are
    checked as they are loaded, nesbot.lab.cmaes)."""
    check_keys(path, WHAT, data, _CMA_KEYS, _CMA_KEYS)
    if not isinstance(data["strategy"], dict):
        raise _fault(path, "strategy", "an object", data["strategy"])
    random = data["numpy_random"]
    if not isinstance(random, list) or len(random) != 5:
        raise _fault(path, "numpy_random", "a random generator's state (5 items)", random)
    _whole(path, "iteration", data["iteration"])
    best = data["best"]
    _vector(path, "best", best, dims if isinstance(best, list) and best else 0)
    _number(path, "best_fitness", data["best_fitness"], null=True)
    _number(path, "best_se", data["best_se"])
    _history(path, data["history"], data["iteration"])
