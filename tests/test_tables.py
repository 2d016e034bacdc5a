"""The core's piece and gravity tables equal the bytes in the ROM itself."""

from nesbot._core import pieces

HEADER = 16
PRG_BASE = 0x8000


def _rom_bytes(rom_bytes: bytes, cpu_address: int, count: int) -> bytes:
    start = HEADER + cpu_address - PRG_BASE
    return rom_bytes[start : start + count]


def _signed(byte: int) -> int:
    return byte - 256 if byte >= 128 else byte


def test_orientation_cells_match_orientation_table(rom_bytes):
    # orientationTable at $8A9C: 4 cells of (dy, tile, dx) per orientation ID
    table = _rom_bytes(rom_bytes, 0x8A9C, 19 * 12)
    for orientation in range(19):
        cells = []
        for cell in range(4):
            dy, _tile, dx = table[orientation * 12 + cell * 3 : orientation * 12 + cell * 3 + 3]
            cells.append((_signed(dx), _signed(dy)))
        assert tuple(cells) == pieces.ORIENTATION_CELLS[orientation], hex(orientation)


def test_rotation_table(rom_bytes):
    # rotationTable at $88EE: [B result, A result] per orientation ID
    table = _rom_bytes(rom_bytes, 0x88EE, 38)
    assert tuple(table[1::2]) == pieces.ROTATE_A
    assert tuple(table[0::2]) == pieces.ROTATE_B


def test_gravity_table(rom_bytes):
    assert tuple(_rom_bytes(rom_bytes, 0x898E, 29)) == pieces.FRAMES_PER_ROW
    assert pieces.frames_per_row(29) == 1
    assert pieces.frames_per_row(200) == 1


def test_spawn_table(rom_bytes):
    # spawnTable sits 19 bytes after tetriminoTypeFromOrientation; find it by content
    assert bytes(pieces.SPAWN_TABLE) in rom_bytes
    assert bytes(pieces.PIECE_TYPE) + bytes(pieces.SPAWN_TABLE) in rom_bytes
