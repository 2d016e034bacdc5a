"""Type stubs for nesbot._core.calming (a Cython extension module): it has no Python API; its C
functions are cimported (calming.pxd)."""
