"""Type stubs for nesbot._core.probes (a Cython extension module)."""

from typing import Any

_bench_sink: float

def board_features_py(rows: Any) -> list[float]: ...
def ready_rows_py(rows: Any) -> int: ...
def ceiling_penalty_py(rows: Any, ceiling_weight: float = ...) -> float: ...
def evaluate_py(
    rows: Any,
    lines_cleared: int,
    lock_height_total: int,
    weights: Any,
    landing_height_total: float = 0.0,
    burned: int = 0,
    level: int = 19,
    tap_interval: int = 2,
) -> float: ...
def value_bound_py(
    rows: Any,
    orientation: int,
    x: int,
    y: int,
    weights: Any,
    lines_cleared: int = 0,
    lock_height_total: int = 0,
    landing_height_total: float = 0.0,
    burned: int = 0,
    level: int = 19,
    tap_interval: int = 2,
) -> float | None: ...
def blocks_spawn_py(rows: Any) -> bool: ...
def next_spawn_blocked_py(rows: Any, next_orientation: int, weights: Any) -> bool: ...
def touches_ceiling_py(rows: Any) -> bool: ...
def has_tuck_spot_py(rows: Any) -> bool: ...
def field_split_py(rows: Any) -> bool: ...
def bench_evaluate(rows: Any, n: int, weights: Any = None) -> float: ...
