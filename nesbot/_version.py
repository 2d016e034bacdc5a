"""nesbot's version (pyproject.toml's), in a module of its own: the core and the log writers
read it without importing the package's public names."""

__version__ = "0.1.0"
