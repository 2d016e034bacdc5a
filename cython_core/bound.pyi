"""Type stubs for nesbot._core.bound (a Cython extension module): it has no Python API; its C
functions are cimported (bound.pxd)."""
