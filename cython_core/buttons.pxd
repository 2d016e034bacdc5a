# Controller byte, in nes-py's (and FCEUX's) bit order. One plan = one such byte per frame.
# The game's own RAM bytes ($F5 newly pressed, $F7 held) use the reverse bit order;
# convert with nes_to_pad/pad_to_nes, never by hand.
cdef enum:
    BTN_A = 0x01
    BTN_B = 0x02
    BTN_SELECT = 0x04
    BTN_START = 0x08
    BTN_UP = 0x10
    BTN_DOWN = 0x20
    BTN_LEFT = 0x40
    BTN_RIGHT = 0x80
    BTN_DPAD = 0xF0          # Up | Down | Left | Right

cdef inline unsigned char reverse_bits(unsigned char b) noexcept nogil:
    # nes-py order <-> the game's RAM order is a bit reversal.
    b = ((b & 0xF0) >> 4) | ((b & 0x0F) << 4)
    b = ((b & 0xCC) >> 2) | ((b & 0x33) << 2)
    return ((b & 0xAA) >> 1) | ((b & 0x55) << 1)
