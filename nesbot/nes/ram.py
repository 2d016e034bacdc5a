"""The NES Tetris RAM map, and decoding of RAM into a frozen GameState.

Every address the project reads or writes is named here once (docs/mechanics.md#ram-map). Player
variables are read from the persistent copy at $60-$7F: between frames it equals the
working copy at $40-$5F, and writes to the working copy are lost at the next frame.
"""

from dataclasses import dataclass, fields

import numpy as np

from nesbot._core.buttons import nes_to_pad, pad_to_nes
from nesbot._core.game import SCORE_CAP as CORE_SCORE_CAP
from nesbot._core.game import Game

RAM_SIZE = 0x800

# --- RNG and piece selection -------------------------------------------------------------
RNG_SEED_HI = 0x17  # 16-bit RNG state, high byte first (R = $17 << 8 | $18)
RNG_SEED_LO = 0x18
SPAWN_ID = 0x19  # orientation ID of the last piece the randomizer chose
SPAWN_COUNT = 0x1A  # +1 per randomizer call; zeroed only at power-on

# --- player 1, persistent copy ($60-$7F) -------------------------------------------------
TETRIMINO_X = 0x60  # column of the piece origin, 0-9
TETRIMINO_Y = 0x61  # row of the piece origin, 0 = top
CURRENT_PIECE = 0x62  # orientation ID $00-$12; $13 = hidden (line clear, curtain)
LEVEL_NUMBER = 0x64  # binary
FALL_TIMER = 0x65  # gravity counter, +1 every frame
AUTOREPEAT_X = 0x66  # DAS counter 0-16; carries over between pieces and games
START_LEVEL = 0x67  # menu start level (+10 when A was held)
PLAY_STATE = 0x68  # gameplay state machine (docs/mechanics.md#the-play-states)
VRAM_ROW = 0x69  # next playfield row the NMI copies; $20 = copy done
COMPLETED_ROW = 0x6A  # 4 bytes: rows cleared by this lock, 0 = none
AUTOREPEAT_Y = 0x6E  # soft-drop counter; $A0 at game start = first-piece hold
HOLD_DOWN_POINTS = 0x6F  # soft-drop steps, for points
LINES = 0x70  # 2-byte BCD, little-endian
ROW_Y = 0x72  # line-clear animation step 0-5
SCORE = 0x73  # 3-byte BCD, little-endian
SCORE_CAP = CORE_SCORE_CAP  # the ROM stops adding points here (docs/mechanics.md#scoring)
COMPLETED_LINES = 0x76  # rows cleared by this lock, 0-4
LINE_INDEX = 0x77  # row being checked in play state 3
CURTAIN_ROW = 0x78  # game-over curtain; not reset at game start

# --- game-wide ---------------------------------------------------------------------------
# The NMI sets it to 1 (just before the pad poll); the main loop clears it once the frame's
# logic is done and it waits for the next NMI: 1 at a step's end = that logic still to run.
NMI_WAITING = 0x33
GAME_MODE_STATE = 0xA7  # reads 2 between frames during play
FRAME_COUNTER = 0xB1  # 16-bit, little-endian, +1 every NMI
RENDER_MODE = 0xBD
NEXT_PIECE = 0xBF  # orientation ID (a spawn orientation) of the next piece
GAME_MODE = 0xC0  # 0 legal, 1 title, 2 type menu, 3 level menu, 4 play, 5 demo, 6 start demo
GAME_TYPE = 0xC1  # 0 = A-TYPE
MUSIC_TYPE = 0xC2  # 0-2 music 1-3, 3 = off
SLEEP_COUNTER = 0xC3  # NMI-decremented delay (legal screen)
LINE_CLEAR_STATS = 0xD8  # 4 BCD bytes: singles, doubles, triples, tetrises
DISPLAY_NEXT_PIECE = 0xDF  # 0 = preview shown
NEWLY_PRESSED = 0xF5  # game bit order (A = $80); polled in the NMI
HELD_BUTTONS = 0xF7
PIECE_STATS = 0x3F0  # 7 x 2-byte BCD piece counts, T J Z O S L I
PLAYFIELD = 0x400  # 20 rows x 10 cells, row-major, row 0 on top; $EF = empty
HIDDEN_ROWS = 0x4EC  # rows -2 and -1: where the 8-bit cell address of cells above row 0 lands

EMPTY_TILE = 0xEF

# Values of GAME_MODE and PLAY_STATE the package acts on.
MODE_LEGAL, MODE_TITLE, MODE_GAME_TYPE, MODE_LEVEL_MENU, MODE_PLAY = 0, 1, 2, 3, 4
PLAY_ACTIVE = 1
PLAY_TOPPED_OUT = 0x0A
PIECE_HIDDEN = 0x13


def bcd_value(*bytes_low_first: int) -> int:
    """Return the decimal value of little-endian BCD bytes (nibbles above 9 count as-is)."""
    value = 0
    for byte in reversed(bytes_low_first):
        value = value * 100 + (byte >> 4) * 10 + (byte & 0x0F)
    return value


def piece_active(ram: np.ndarray) -> bool:
    """A piece is under the player's control (read straight from RAM, no decoding)."""
    return ram[GAME_MODE] == MODE_PLAY and ram[PLAY_STATE] == PLAY_ACTIVE


def signed_byte(byte: int) -> int:
    """A RAM byte as the int8 the ROM keeps there (the piece's x and y: -1 is 255)."""
    return int(byte) - 256 if byte >= 128 else int(byte)


def piece_position(ram: np.ndarray) -> tuple[int, int, int]:
    """The falling piece as (x, y, orientation), x and y signed."""
    return signed_byte(ram[TETRIMINO_X]), signed_byte(ram[TETRIMINO_Y]), int(ram[CURRENT_PIECE])


def row_mask(ram: np.ndarray, address: int) -> int:
    """Return the 10 cells at address as a bit mask (bit c = column c filled)."""
    cells = ram[address : address + 10]
    return int(np.dot(cells != EMPTY_TILE, 1 << np.arange(10)))


@dataclass(frozen=True, slots=True)
class GameState:
    """Everything the game shows in RAM between two frames, decoded.

    `board` holds rows 0-19 (top first) and `hidden` rows -2 and -1, each a 10-bit mask
    with bit c = column c. Buttons are in nes-py bit order.
    """

    game_mode: int
    play_state: int
    board: tuple[int, ...]
    hidden: tuple[int, int]
    piece: int
    next: int
    x: int
    y: int
    level: int
    start_level: int
    lines: int
    score: int
    fall_timer: int
    das: int
    soft_drop: int
    hold_down_points: int
    vram_row: int
    row_y: int
    completed_lines: int
    line_index: int
    rng: int
    spawn_count: int
    spawn_id: int
    frame_counter: int
    newly: int
    held: int
    tetrises: int

    @property
    def topped_out(self) -> bool:
        return self.play_state == PLAY_TOPPED_OUT

    @property
    def active(self) -> bool:
        """True while a piece is under the player's control."""
        return self.game_mode == MODE_PLAY and self.play_state == PLAY_ACTIVE

    def board_rows(self) -> list[str]:
        """Return the 20 rows as strings of '#' (filled) and '.' (empty), top row first."""
        return ["".join("#" if mask >> c & 1 else "." for c in range(10)) for mask in self.board]

    def differences(self, other: "GameState") -> list[tuple[str, object, object]]:
        """Return (field, self value, other value) for every field that differs."""
        return [
            (f.name, getattr(self, f.name), getattr(other, f.name))
            for f in fields(self)
            if getattr(self, f.name) != getattr(other, f.name)
        ]


def decode(ram: np.ndarray) -> GameState:
    """Decode a 2 KiB RAM array (as read between frames) into a GameState."""
    r = [int(v) for v in ram[:0x100]]
    return GameState(
        game_mode=r[GAME_MODE],
        play_state=r[PLAY_STATE],
        board=tuple(row_mask(ram, PLAYFIELD + 10 * row) for row in range(20)),
        hidden=(row_mask(ram, HIDDEN_ROWS), row_mask(ram, HIDDEN_ROWS + 10)),
        piece=r[CURRENT_PIECE],
        next=r[NEXT_PIECE],
        x=r[TETRIMINO_X],
        y=r[TETRIMINO_Y],
        level=r[LEVEL_NUMBER],
        start_level=r[START_LEVEL],
        lines=bcd_value(r[LINES], r[LINES + 1]),
        score=bcd_value(r[SCORE], r[SCORE + 1], r[SCORE + 2]),
        fall_timer=r[FALL_TIMER],
        das=r[AUTOREPEAT_X],
        soft_drop=r[AUTOREPEAT_Y],
        hold_down_points=r[HOLD_DOWN_POINTS],
        vram_row=r[VRAM_ROW],
        row_y=r[ROW_Y],
        completed_lines=r[COMPLETED_LINES],
        line_index=r[LINE_INDEX],
        rng=r[RNG_SEED_HI] << 8 | r[RNG_SEED_LO],
        spawn_count=r[SPAWN_COUNT],
        spawn_id=r[SPAWN_ID],
        frame_counter=r[FRAME_COUNTER] | r[FRAME_COUNTER + 1] << 8,
        newly=nes_to_pad(r[NEWLY_PRESSED]),
        held=nes_to_pad(r[HELD_BUTTONS]),
        tetrises=bcd_value(r[LINE_CLEAR_STATS + 3]),
    )


# --- the simulator's view of RAM ---------------------------------------------------------
# Game fields and where the ROM keeps them; what game_from_ram reads and game_to_ram writes.
_BYTE_FIELDS = {
    "x": TETRIMINO_X,
    "y": TETRIMINO_Y,
    "orientation": CURRENT_PIECE,
    "fall_timer": FALL_TIMER,
    "das": AUTOREPEAT_X,
    "soft": AUTOREPEAT_Y,
    "hold_down_points": HOLD_DOWN_POINTS,
    "next_piece": NEXT_PIECE,
    "level": LEVEL_NUMBER,
    "play_state": PLAY_STATE,
    "vram_row": VRAM_ROW,
    "row_y": ROW_Y,
    "completed_lines": COMPLETED_LINES,
    "line_index": LINE_INDEX,
    "curtain_row": CURTAIN_ROW,
    "spawn_count": SPAWN_COUNT,
    "spawn_id": SPAWN_ID,
}
_ARRAY_FIELDS = {
    "completed_row": (COMPLETED_ROW, 4),
    "lines": (LINES, 2),
    "score": (SCORE, 3),
    "line_clear_stats": (LINE_CLEAR_STATS, 4),
    "piece_stats": (PIECE_STATS, 14),
}
_SIGNED_FIELDS = ("x", "y")  # int8 in the core


def _row_addresses() -> list[int]:
    # rows -2, -1 (hidden), then 0..19
    return [HIDDEN_ROWS, HIDDEN_ROWS + 10] + [PLAYFIELD + 10 * row for row in range(20)]


def modelled_addresses() -> list[int]:
    """Every RAM address the simulator models, for byte-level comparison with the ROM."""
    addresses = set(_BYTE_FIELDS.values())
    for start, size in _ARRAY_FIELDS.values():
        addresses.update(range(start, start + size))
    for row in _row_addresses():
        addresses.update(range(row, row + 10))
    addresses.update((RNG_SEED_HI, RNG_SEED_LO, FRAME_COUNTER, FRAME_COUNTER + 1))
    addresses.update((NEWLY_PRESSED, HELD_BUTTONS))
    return sorted(addresses)


def game_from_ram(ram: np.ndarray) -> Game:
    """Build a simulator Game from RAM read between two frames of an A-TYPE game."""
    r = [int(v) for v in ram[:0x800]]
    state: dict[str, object] = {name: r[addr] for name, addr in _BYTE_FIELDS.items()}
    for name in _SIGNED_FIELDS:
        state[name] = signed_byte(r[_BYTE_FIELDS[name]])
    for name, (start, size) in _ARRAY_FIELDS.items():
        state[name] = r[start : start + size]
    state["rows"] = [row_mask(ram, address) for address in _row_addresses()]
    state["rng"] = r[RNG_SEED_HI] << 8 | r[RNG_SEED_LO]
    state["frame_counter"] = r[FRAME_COUNTER] | r[FRAME_COUNTER + 1] << 8
    state["newly"] = nes_to_pad(r[NEWLY_PRESSED])
    state["held"] = nes_to_pad(r[HELD_BUTTONS])
    return Game.from_state(state)


def game_to_ram(game: Game, base: np.ndarray) -> np.ndarray:
    """Return a copy of `base` with every modelled address set from `game`.

    Filled cells are written as tile $7B: the ROM's tiles differ by piece, but every
    rule reads only "empty ($EF) or not", and so do decode() and the comparisons.
    """
    ram = np.array(base[:RAM_SIZE], dtype=np.uint8, copy=True)
    state = game.state()
    for name, address in _BYTE_FIELDS.items():
        ram[address] = state[name] & 0xFF
    for name, (start, size) in _ARRAY_FIELDS.items():
        ram[start : start + size] = state[name]
    for mask, address in zip(state["rows"], _row_addresses(), strict=True):
        cells = ram[address : address + 10]
        filled = (mask >> np.arange(10)) & 1 == 1
        # keep the ROM's own tile where both agree a cell is filled
        cells[~filled] = EMPTY_TILE
        cells[filled & (cells == EMPTY_TILE)] = 0x7B
    ram[RNG_SEED_HI], ram[RNG_SEED_LO] = state["rng"] >> 8, state["rng"] & 0xFF
    ram[FRAME_COUNTER], ram[FRAME_COUNTER + 1] = (
        state["frame_counter"] & 0xFF,
        state["frame_counter"] >> 8,
    )
    ram[NEWLY_PRESSED] = pad_to_nes(state["newly"])
    ram[HELD_BUTTONS] = pad_to_nes(state["held"])
    return ram
