"""The Python-visible game: build it from fields, step it, copy it, run many frames in C.

The RAM layout is not known here: nesbot.nes.ram maps RAM to `state()`/`from_state()` fields.
"""

from libc.stdint cimport uint8_t, uint64_t
from libc.string cimport memcpy

from nesbot._core.board cimport BOARD_HIDDEN, BOARD_ROWS, fits
from nesbot._core.pieces cimport NES_ORIENTATIONS, NES_PIECE_TYPE
from nesbot._core.rules cimport (
    PLAY_ACTIVE,
    PLAY_TOPPED_OUT,
    POWER_ON_RNG,
    SCORE_CAP as C_SCORE_CAP,
    VRAM_DONE,
    Game as GameC,
    game_logic,
    count_lines,
    game_start,
    game_step,
    spawn_piece,
)

SCORE_CAP = C_SCORE_CAP  # the score the ROM stops at: 999,999


def board_text(rows) -> str:
    """Row masks (bit c = column c), top row first, as `nesbot explain` reads a board:
    one line of 10 cells per row, '#' filled, '.' empty."""
    return "\n".join("".join("#" if m >> c & 1 else "." for c in range(10)) for m in rows)


# Fields of state(): scalar members of the C structs, by name.
_PIECE_FIELDS = ("x", "y", "orientation", "fall_timer", "das", "soft", "hold_down_points")
_GAME_FIELDS = (
    "next_piece", "level", "play_state", "vram_row", "row_y", "completed_lines",
    "line_index", "curtain_row", "rng", "spawn_count", "spawn_id", "frame_counter",
    "newly", "held",
)
_ARRAY_FIELDS = {
    "completed_row": 4, "lines": 2, "score": 3, "line_clear_stats": 4, "piece_stats": 14,
}


cdef class Game:
    """One NES-exact A-TYPE game of Tetris, stepped one frame (one button byte) at a time."""

    def __init__(self):
        game_start(&self.g, 19, POWER_ON_RNG, 0, 0, 0)

    @staticmethod
    def start(int level, int rng, int spawn_count=0, int frame_counter=0, int das=0) -> Game:
        """A new game on its first active frame, as initGameState leaves it."""
        cdef Game game = Game.__new__(Game)
        game_start(&game.g, level, rng, spawn_count, frame_counter, das)
        return game

    @staticmethod
    def spawned(rows, int orientation, int next_piece, int level) -> Game:
        """A position: `orientation` just spawned (no buttons held, no first-piece hold) on
        a board of 20 row masks (rows 0-19) or 22 (rows -2..19)."""
        cdef Game game = Game.start(level, POWER_ON_RNG)
        cdef int r
        rows = list(rows)
        if len(rows) == BOARD_ROWS - BOARD_HIDDEN:
            rows = [0] * BOARD_HIDDEN + rows
        if len(rows) != BOARD_ROWS:
            raise ValueError(f"rows needs 20 or {BOARD_ROWS} masks, got {len(rows)}")
        for r in range(BOARD_ROWS):
            game.g.board.rows[r] = rows[r] & 0x3FF
        spawn_piece(&game.g.piece, orientation)
        game.g.next_piece = next_piece
        game.g.vram_row = VRAM_DONE
        return game

    @staticmethod
    def from_state(dict state) -> Game:
        """Build a game from a dict shaped like state() (all keys required)."""
        cdef Game game = Game.__new__(Game)
        cdef int r
        rows = state["rows"]
        if len(rows) != BOARD_ROWS:
            raise ValueError(f"rows needs {BOARD_ROWS} masks (rows -2..19), got {len(rows)}")
        for r in range(BOARD_ROWS):
            game.g.board.rows[r] = rows[r] & 0x3FF
        game.g.piece.x = state["x"]
        game.g.piece.y = state["y"]
        game.g.piece.orientation = state["orientation"]
        game.g.piece.fall_timer = state["fall_timer"]
        game.g.piece.das = state["das"]
        game.g.piece.soft = state["soft"]
        game.g.piece.hold_down_points = state["hold_down_points"]
        game.g.next_piece = state["next_piece"]
        game.g.level = state["level"]
        game.g.play_state = state["play_state"]
        game.g.vram_row = state["vram_row"]
        game.g.row_y = state["row_y"]
        game.g.completed_lines = state["completed_lines"]
        game.g.line_index = state["line_index"]
        game.g.curtain_row = state["curtain_row"]
        game.g.rng = state["rng"]
        game.g.spawn_count = state["spawn_count"]
        game.g.spawn_id = state["spawn_id"]
        game.g.frame_counter = state["frame_counter"]
        game.g.newly = state["newly"]
        game.g.held = state["held"]
        for name, size in _ARRAY_FIELDS.items():
            values = state[name]
            if len(values) != size:
                raise ValueError(f"{name} needs {size} bytes, got {len(values)}")
            for r in range(size):
                game._set_array(name, r, values[r])
        return game

    cdef void _set_array(self, str name, int index, int value):
        if name == "completed_row":
            self.g.completed_row[index] = value
        elif name == "lines":
            self.g.lines[index] = value
        elif name == "score":
            self.g.score[index] = value
        elif name == "line_clear_stats":
            self.g.line_clear_stats[index] = value
        else:
            self.g.piece_stats[index] = value

    def state(self) -> dict:
        """All fields as plain Python values (row masks for rows -2..19, byte lists)."""
        cdef GameC* g = &self.g
        return {
            "rows": [g.board.rows[r] for r in range(BOARD_ROWS)],
            "x": g.piece.x, "y": g.piece.y, "orientation": g.piece.orientation,
            "fall_timer": g.piece.fall_timer, "das": g.piece.das, "soft": g.piece.soft,
            "hold_down_points": g.piece.hold_down_points,
            "next_piece": g.next_piece, "level": g.level, "play_state": g.play_state,
            "vram_row": g.vram_row, "row_y": g.row_y, "completed_lines": g.completed_lines,
            "line_index": g.line_index, "curtain_row": g.curtain_row, "rng": g.rng,
            "spawn_count": g.spawn_count, "spawn_id": g.spawn_id,
            "frame_counter": g.frame_counter, "newly": g.newly, "held": g.held,
            "completed_row": [g.completed_row[i] for i in range(4)],
            "lines": [g.lines[i] for i in range(2)],
            "score": [g.score[i] for i in range(3)],
            "line_clear_stats": [g.line_clear_stats[i] for i in range(4)],
            "piece_stats": [g.piece_stats[i] for i in range(14)],
        }

    def __str__(self) -> str:
        """The playfield's rows 0-19 as `nesbot explain` reads a board (board_text); the
        falling piece is not drawn."""
        return board_text([self.g.board.rows[r] for r in range(BOARD_HIDDEN, BOARD_ROWS)])

    def copy(self) -> Game:
        """An independent copy (one memcpy)."""
        cdef Game other = Game.__new__(Game)
        memcpy(&other.g, &self.g, sizeof(GameC))
        return other

    def step(self, int pad) -> None:
        """Advance one frame with the controller byte `pad` (nes-py order)."""
        game_step(&self.g, <uint8_t>pad)

    def logic_only(self) -> None:
        """Run only the game logic of a frame, with the buttons already polled: for RAM read
        between a frame's controller poll and its logic (nesbot/nes/emulator.py)."""
        game_logic(&self.g)

    def run(self, const uint8_t[::1] pads not None) -> int:
        """Step through `pads`; stop early at top-out. Returns the number of frames stepped."""
        cdef Py_ssize_t i = 0, n = pads.shape[0]
        with nogil:
            while i < n and self.g.play_state != PLAY_TOPPED_OUT:
                game_step(&self.g, pads[i])
                i += 1
        return i

    def run_random(self, uint64_t frames, uint64_t seed, int start_level=19) -> tuple:
        """Benchmark loop: step `frames` random button bytes, restarting after each top-out.

        Returns (frames, pieces spawned, games finished). Buttons are drawn from presses a
        player makes (directions, rotations, soft drop, idle), never Start or Select.
        """
        cdef uint8_t choices[8]
        choices[:] = [0x00, 0x40, 0x80, 0x01, 0x02, 0x20, 0x41, 0x82]
        cdef uint64_t state = seed * 0x9E3779B97F4A7C15 + 1
        cdef uint64_t i, pieces = 0, games = 0
        cdef uint8_t pad = 0
        cdef bint was_active = True
        with nogil:
            for i in range(frames):
                if self.g.play_state == PLAY_TOPPED_OUT:
                    games += 1
                    game_start(&self.g, start_level, self.g.rng, self.g.spawn_count,
                               self.g.frame_counter, self.g.piece.das)
                # xorshift64: a new pad every 4 frames keeps holds and taps both common.
                if (i & 3) == 0:
                    state ^= state << 13
                    state ^= state >> 7
                    state ^= state << 17
                    pad = choices[state & 7]
                game_step(&self.g, pad)
                if self.g.play_state == PLAY_ACTIVE and not was_active:
                    pieces += 1
                was_active = self.g.play_state == PLAY_ACTIVE
        return frames, pieces, games

    def resting_places(self) -> list:
        """Every (x, y, orientation) where a piece of the active piece's type fits on the
        board and cannot fall a row further: where a lock can leave it, reachable or not."""
        cdef int o, x, y, kind = NES_PIECE_TYPE[self.g.piece.orientation]
        places = []
        for o in range(NES_ORIENTATIONS):
            if NES_PIECE_TYPE[o] != kind:
                continue
            for y in range(-BOARD_HIDDEN, BOARD_ROWS - BOARD_HIDDEN):
                for x in range(-2, 12):
                    if fits(&self.g.board, o, x, y) and not fits(&self.g.board, o, x, y + 1):
                        places.append((x, y, o))
        return places

    def lock_at(self, int x, int y, int orientation) -> None:
        """Move the active piece to a resting place of its type (resting_places) and play
        frames with no buttons until the next piece is active or the game is over: the lock,
        line clears, points and level-up of that placement by the ROM's own rules, however
        the player got there. ValueError if the place is not one."""
        if self.g.play_state != PLAY_ACTIVE:
            raise ValueError("no piece is active")
        if not (0 <= orientation < NES_ORIENTATIONS
                and NES_PIECE_TYPE[orientation] == NES_PIECE_TYPE[self.g.piece.orientation]
                and fits(&self.g.board, orientation, x, y)
                and not fits(&self.g.board, orientation, x, y + 1)):
            raise ValueError(f"({x}, {y}, ${orientation:02X}) is not a resting place of the piece")
        self.g.piece.x = x
        self.g.piece.y = y
        self.g.piece.orientation = orientation
        self.g.newly = self.g.held = 0
        with nogil:
            while self.g.play_state == PLAY_ACTIVE:
                game_step(&self.g, 0)
            while self.g.play_state != PLAY_ACTIVE and self.g.play_state != PLAY_TOPPED_OUT:
                game_step(&self.g, 0)

    def line_levels(self, int stop_level) -> list:
        """For each further line cleared while the level is below `stop_level`, the level
        after it (the level its points are counted at), by the ROM's level-up rule; at
        most 2,550 lines."""
        cdef uint8_t level = self.g.level
        cdef uint8_t lines[2]
        lines[0] = self.g.lines[0]
        lines[1] = self.g.lines[1]
        levels = []
        while level < stop_level and len(levels) < 2550:
            count_lines(&level, lines, 1)
            levels.append(level)
        return levels

    @property
    def play_state(self) -> int:
        return self.g.play_state

    @property
    def active(self) -> bool:
        return self.g.play_state == PLAY_ACTIVE

    @property
    def topped_out(self) -> bool:
        return self.g.play_state == PLAY_TOPPED_OUT

    @property
    def frame_counter(self) -> int:
        return self.g.frame_counter

    @property
    def position(self) -> tuple:
        """(x, y, orientation) of the piece."""
        return self.g.piece.x, self.g.piece.y, self.g.piece.orientation
