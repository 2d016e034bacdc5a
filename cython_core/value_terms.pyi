"""Type stubs for nesbot._core.value_terms (a Cython extension module)."""

from typing import Any

_Trace = list[tuple[str, float, float, float]]

def all_features_py(rows: Any, level: int = 19, tap_interval: int = 2) -> list[float]: ...
def evaluate_trace(
    rows: Any,
    lines_cleared: int,
    lock_height_total: int,
    weights: Any,
    landing_height_total: float = 0.0,
    burned: int = 0,
    level: int = 19,
    tap_interval: int = 2,
) -> _Trace: ...
def format_trace(trace: _Trace) -> str: ...
