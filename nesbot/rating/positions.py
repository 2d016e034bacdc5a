"""The positions of a played game: what the player faced at each piece and where it went.

A position is the board, the piece just spawned, the next piece, level, lines, score and the
buttons the player held into it; a placement is where the piece locked (x, y, orientation).
A placement is accepted only when the simulator, locking the piece there by the ROM's own
rules (Game.lock_at), leaves the board and lines that the game showed at the next piece:
so whatever read the game (RAM here, a screen later), no placement is invented.
"""

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from nesbot._core.game import Game
from nesbot._core.pieces import SPAWN_TABLE
from nesbot.bot.explain import parse_board, spawn_orientation
from nesbot.errors import NesbotError
from nesbot.nes import ram
from nesbot.nes.emulator import Emulator
from nesbot.nes.fm2 import InputLog
from nesbot.nes.movie_steps import log_steps
from nesbot.nes.replay import OnConflict, step_log, stop_at_conflicts
from nesbot.nes.rom import Rom

SPAWN_X = 5  # as cython_core/rules.pxd

Place = tuple[int, int, int]  # x, y, orientation ID where the piece locked


def _bcd_bytes(value: int, count: int) -> list[int]:
    """`value` as `count` little-endian BCD bytes."""
    out = []
    for _ in range(count):
        value, two_digits = divmod(value, 100)
        out.append((two_digits // 10) << 4 | two_digits % 10)
    return out


@dataclass(frozen=True)
class Position:
    """What a player faces when a piece spawns. `rows`: the 20 row masks (bit c = column
    c, top row first); `piece` and `next`: orientation IDs (spawn orientations, as RAM
    holds them; Position.of takes letters); `das`: the shift counter carried over; `held`:
    buttons held (nes-py order) on the frame before, so that holding one through the spawn
    is no new press; `soft`: the ROM's Down counter (a game's first piece waits on it)."""

    rows: tuple[int, ...]
    piece: int
    next: int
    level: int
    lines: int = 0
    score: int = 0
    das: int = 0
    held: int = 0
    soft: int = 0  # the ROM's Down counter: $A0 holds a game's first piece still a while

    def __post_init__(self) -> None:
        object.__setattr__(self, "rows", tuple(self.rows))
        if len(self.rows) != 20 or any(not 0 <= row < 1 << 10 for row in self.rows):
            raise NesbotError("a position's board needs 20 rows of 10 cells")
        for name in ("piece", "next"):
            if getattr(self, name) not in SPAWN_TABLE:
                raise NesbotError(f"a position's {name} must be a spawn orientation ID")
        if not 0 <= self.level <= 255 or not 0 <= self.lines <= 9999:
            raise NesbotError("a position's level must be 0-255 and its lines 0-9999")
        if not 0 <= self.score <= 999_999 or not 0 <= self.das <= 16:
            raise NesbotError("a position's score must be 0-999,999 and its DAS 0-16")

    @classmethod
    def of(
        cls,
        board: str | Sequence[int],
        piece: str,
        next: str,
        level: int,
        lines: int = 0,
        score: int = 0,
    ) -> "Position":
        """A position from a board (20 row masks, or 20 lines of 10 cells top first, '.'
        empty and anything else filled, as `nesbot explain` reads) and piece letters."""
        if isinstance(board, str):
            board = parse_board(board)
        return cls(
            tuple(board), spawn_orientation(piece), spawn_orientation(next), level, lines, score
        )

    def game(self) -> Game:
        """The simulator's game on the position's first active frame."""
        state = Game.spawned(self.rows, self.piece, self.next, self.level).state()
        state.update(
            lines=_bcd_bytes(self.lines, 2),
            score=_bcd_bytes(self.score, 3),
            das=self.das,
            held=self.held,
            soft=self.soft,
            newly=0,
        )
        return Game.from_state(state)

    def after(self, place: Place) -> Game:
        """The game at the next piece's first active frame after locking at `place`
        (NesbotError if the piece cannot rest there)."""
        game = self.game()
        try:
            game.lock_at(*place)
        except ValueError:
            raise NesbotError(
                f"the piece cannot lock at x={place[0]} y={place[1]} orientation "
                f"${place[2]:02X} on this board"
            ) from None
        return game


def _field_rows(game: Game) -> tuple[int, ...]:
    return tuple(game.state()["rows"][2:])


def places_between(position: Position, rows_after: tuple[int, ...]) -> list[Place]:
    """Every resting place where locking the position's piece leaves the board `rows_after`
    (the board alone: a screen reader checks that one place, and only one, does)."""
    return [
        place
        for place in position.game().resting_places()
        if _field_rows(position.after(place)) == tuple(rows_after)
    ]


def placement_between(
    position: Position, rows_after: tuple[int, ...], lines_after: int, hint: Place | None = None
) -> Place | None:
    """The one place where locking the position's piece leaves `rows_after` and
    `lines_after` (the game as seen when the next piece spawned), tried first at `hint`;
    None if no legal lock does (the two states are not one placement apart)."""

    def leads_there(place: Place) -> bool:
        after = position.after(place)
        state = after.state()
        lines = ram.bcd_value(*state["lines"])
        return _field_rows(after) == tuple(rows_after) and lines == lines_after

    game = position.game()
    places = game.resting_places()
    if hint in places and leads_there(hint):
        return hint
    for place in places:
        if place != hint and leads_there(place):
            return place
    return None


@dataclass(frozen=True)
class LoggedPiece:
    """One piece of a replayed log: its position, where it locked (None for the piece the
    game ended on, or where no legal lock explains the next board), the buttons of the
    frames it moved on (from the one after its spawn to its lock), and the step (since
    power-on) it spawned on."""

    number: int
    step: int
    position: Position
    place: Place | None
    pads: bytes
    late: bytes = b""  # the LATE_FRAMES frames after the lock: a press there came too late
    lead: bytes = b"\0\0"  # the buttons of the step before the spawn's and of the spawn's
    path: tuple[Place, ...] = ()  # (x, y, orientation) in RAM after each step of `pads`


LATE_FRAMES = 3


@dataclass
class _Falling:
    """The piece under way while the log replays."""

    number: int
    step: int
    position: Position
    pads: bytearray
    late: bytearray
    lead: bytes
    path: list[Place]
    locked: bool = False
    seen_lock: Place | None = None  # (x, y, orientation) in RAM right after the lock

    def logged(self, next_spawn: ram.GameState | None) -> LoggedPiece:
        place = None
        if next_spawn is not None:
            place = placement_between(
                self.position, next_spawn.board, next_spawn.lines, self.seen_lock
            )
        return LoggedPiece(
            self.number,
            self.step,
            self.position,
            place,
            bytes(self.pads),
            bytes(self.late),
            self.lead,
            tuple(self.path),
        )


def _position_from(state: ram.GameState) -> Position:
    return Position(
        rows=state.board,
        piece=state.piece,
        next=state.next,
        level=state.level,
        lines=state.lines,
        score=state.score,
        das=state.das,
        held=state.held,
        soft=state.soft_drop,
    )


def logged_pieces(
    rom: Rom,
    log: InputLog,
    observers: tuple[Callable[[int, Emulator], None], ...] = (),
    on_conflict: OnConflict | None = None,
) -> Iterator[LoggedPiece]:
    """Replay the log's first game on the emulator and yield its pieces in order, each once
    the next has spawned (so its placement is known) or the game has ended. A frame nes-py
    cannot give its buttons goes to `on_conflict` (nesbot.nes.replay; by default it stops)."""
    falling: _Falling | None = None
    spawn: tuple[int, bytes] | None = None  # a spawn whose position is still to be read
    was_active = False
    previous = 0
    plan = log_steps(log, on_conflict or stop_at_conflicts(log))
    with Emulator(rom.path) as emu:
        emu.observers.extend(observers)
        for pad in step_log(emu, plan):
            memory = emu.ram
            active = ram.piece_active(memory)
            if active and not was_active:
                spawn = (emu.frame, bytes([previous, pad]))
            elif falling is not None and falling.locked and len(falling.late) < LATE_FRAMES:
                falling.late.append(pad)
            if spawn is not None and active and _shows_spawn(memory):
                if falling is None and memory[ram.GAME_TYPE] != 0:
                    # B-TYPE's garbage rows and its 25 lines change what a placement is
                    # worth; the playouts and the evaluation know A-TYPE's game alone.
                    raise NesbotError("the game is B-TYPE: nesbot rates A-TYPE games")
                state = ram.decode(memory)
                number = 1
                if falling is not None:
                    yield falling.logged(state)
                    number = falling.number + 1
                step, lead = spawn
                falling = _Falling(
                    number, step, _position_from(state), bytearray(), bytearray(), lead, []
                )
                spawn = None
            if falling is not None and was_active and spawn is None:
                falling.pads.append(pad)  # the buttons that moved the piece this frame
                falling.locked = not active
                seen = ram.piece_position(memory)
                falling.path.append(seen)
                if not active and seen[2] != ram.PIECE_HIDDEN:
                    falling.seen_lock = seen
            was_active = active
            previous = pad
            if memory[ram.PLAY_STATE] == ram.PLAY_TOPPED_OUT:
                break
    if falling is not None:
        yield falling.logged(None)


def _shows_spawn(memory: np.ndarray) -> bool:
    """RAM shows the new piece where it spawns. Where nes-py's step ends inside the game
    logic (early in a session, as in a log that starts its game soon after power-on), it
    can end while the ROM copies the player's state back to $60-$7F, top down: the play
    state already reads active, the piece is still the last one (or hidden). The rest
    shows a step later, before the piece's first input has acted; its buttons still count
    from the step that first showed it active."""
    return (
        memory[ram.TETRIMINO_X] == SPAWN_X
        and memory[ram.TETRIMINO_Y] == 0
        and memory[ram.CURRENT_PIECE] in SPAWN_TABLE
    )
