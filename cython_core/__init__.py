"""NES-exact Tetris core: board, piece tables, frame rules, search, evaluation, simulator.

Pure computation: no I/O and no emulator. Hot paths are C-level Cython.
"""
