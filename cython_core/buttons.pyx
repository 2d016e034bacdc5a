"""Controller button bits (nes-py order), shared by the core and the Python package."""

A = BTN_A
B = BTN_B
SELECT = BTN_SELECT
START = BTN_START
UP = BTN_UP
DOWN = BTN_DOWN
LEFT = BTN_LEFT
RIGHT = BTN_RIGHT

# FCEUX .fm2 writes the pad as "RLDUTSBA": character i stands for bit 7 - i.
FM2_LETTERS = "RLDUTSBA"


def pad_to_nes(int pad) -> int:
    """Return the game's RAM encoding ($F5/$F7, A = 0x80) of a nes-py button byte."""
    return reverse_bits(<unsigned char>pad)


def nes_to_pad(int value) -> int:
    """Return the nes-py button byte of a game RAM button byte ($F5/$F7)."""
    return reverse_bits(<unsigned char>value)


def describe(int pad) -> str:
    """Return a button byte as the FCEUX letters, '.' for released (e.g. 'R......A')."""
    return "".join(
        FM2_LETTERS[i] if pad & (0x80 >> i) else "." for i in range(8)
    )
