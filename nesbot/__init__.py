"""nesbot: plays the real NES Tetris ROM in nes-py through the gamepad."""

__version__ = "0.1.0"
