"""Type stubs for nesbot._core.buttons (a Cython extension module)."""

A: int
B: int
SELECT: int
START: int
UP: int
DOWN: int
LEFT: int
RIGHT: int
FM2_LETTERS: str

def pad_to_nes(pad: int) -> int: ...
def nes_to_pad(value: int) -> int: ...
def describe(pad: int) -> str: ...
