"""Type stubs for nesbot._core.weight_sets (a Cython extension module)."""

DEFAULT_CEILING_WEIGHT: float
DEFAULT_SAFE_STACK_HEIGHT: float
