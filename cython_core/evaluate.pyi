"""Type stubs for nesbot._core.evaluate (a Cython extension module): it has no Python API; its C
functions are cimported (evaluate.pxd)."""
