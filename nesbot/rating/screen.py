"""Reading a game from a video of the screen: a console capture or another emulator's
recording, at any size, compressed, interlaced or colour-shifted.

The picture is found once, over frames spread through the video
(nesbot.rating.geometry), or given by the user (`--crop`); each picture is then read by
nesbot.rating.reading: the 200 cells by the brightness at their middles, the counters
against the ROM's own tiles. An interlaced frame is two pictures a field apart: its two
fields are read apart and put in the order that makes the game move forward.

A piece spawns where one piece's cells appear at the top and nothing disappears (at its
spawn place, or already turned or moved by its first input; the stack's last rows redrawn
after a clear may appear with it). That picture without the piece is the stack it falls
on; the next spawn's stack must be exactly what the
simulator leaves after locking the piece at one of its resting places (the lock, the line
clears and their rules are the ROM's), or the placement is not accepted: a misread cannot
invent a placement, it can only leave one unrated.
"""

import itertools
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import av
import numpy as np

from nesbot._core.pieces import ORIENTATION_CELLS, PIECE_TYPE, SPAWN_TABLE
from nesbot.errors import NesbotError
from nesbot.nes import ram
from nesbot.nes.rom import Rom
from nesbot.nes.screen_layout import COLUMNS, ROWS
from nesbot.rating.geometry import (
    FINDING_SPAN,
    Geometry,
    Landmarks,
    check_found,
    find_in_frames,
    is_finding_frame,
    match_at,
)
from nesbot.rating.positions import LoggedPiece, Position, places_between
from nesbot.rating.reading import FrameReader, rom_pictures
from nesbot.rating.stills import frame_still
from nesbot.show.video.decoding import decoded, open_input

GHOST = 0.6  # a field's cell under this share of the other field's is the other's ghost


class Picture:
    """A decoded frame's samples: the brightest of red, green and blue at given pixels,
    computed from its YUV planes at those pixels alone (converting whole frames to RGB
    would cost 200 times more)."""

    def __init__(self, frame: av.VideoFrame) -> None:
        if frame.format.name not in ("yuv420p", "yuvj420p"):
            frame = frame.reformat(format="yuv420p")
        self.frame = frame
        self.full_range = frame.format.name == "yuvj420p"
        self.planes = [
            np.frombuffer(plane, np.uint8).reshape(-1, plane.line_size)
            for plane in frame.planes[:3]
        ]
        self.height, self.width = frame.height, frame.width

    def bright(self, ys: np.ndarray, xs: np.ndarray) -> np.ndarray:
        """max(R, G, B), 0-255, at pixels (ys, xs) (broadcast; clipped to the picture)."""
        ys = np.clip(ys, 0, self.height - 1)
        xs = np.clip(xs, 0, self.width - 1)
        luma, u_plane, v_plane = self.planes
        y = luma[ys, xs].astype(np.float32)
        u = u_plane[ys // 2, xs // 2].astype(np.float32) - 128
        v = v_plane[ys // 2, xs // 2].astype(np.float32) - 128
        if not self.full_range:  # BT.601 studio range: Y 16-235, U and V 16-240
            y, u, v = (y - 16) * (255 / 219), u * (255 / 224), v * (255 / 224)
        red = y + 1.402 * v
        green = y - 0.344 * u - 0.714 * v
        blue = y + 1.772 * u
        return np.maximum(np.maximum(red, green), blue)

    def grey(self) -> np.ndarray:
        """The whole picture's brightest channel (to find the game screen in it)."""
        ys, xs = np.mgrid[0 : self.height, 0 : self.width]
        return np.clip(self.bright(ys, xs), 0, 255).astype(np.uint8)


@dataclass(frozen=True)
class ScreenState:
    """One picture of the game: its frame (and field) in the video, the board, counters."""

    frame: int
    board: np.ndarray
    lines: int | None
    score: int | None
    level: int | None
    next: int | None = None


def video_frames(path: str | os.PathLike[str]) -> int | None:
    """The frame count the video's container states (None if it states none)."""
    with open_input(Path(path)) as container:
        return container.streams.video[0].frames or None


def pal_note(path: str | os.PathLike[str]) -> str | None:
    """One line saying that a PAL capture (25 or 50 frames a second) is rated under the
    NTSC game's rules, which nesbot models (PAL's gravity, DAS and frame rate differ);
    None for any other video."""
    with open_input(Path(path)) as container:
        rate = container.streams.video[0].average_rate
    if rate is None or not any(abs(float(rate) - pal) < 1 for pal in (25, 50)):
        return None
    return (
        f"{Path(path).name} is a PAL capture ({float(rate):g} frames a second): its placements "
        "are rated under NTSC rules, not the PAL game's"
    )


def _pictures(path: Path) -> Iterator[Picture]:
    with open_input(path) as container:
        container.streams.video[0].thread_type = "AUTO"
        for frame in decoded(container, path):
            yield Picture(frame)


# The longest video read: two hours at 60 frames a second, whose readings (each picture's
# boards and counters, ~1 KB) stay under half a gigabyte; a game to the kill screen and far
# past it is under an hour.
MAX_VIDEO_FRAMES = 2 * 60 * 60 * 60


def read_states(
    path: str | os.PathLike[str],
    rom: Rom,
    on_frame: Callable[[int], None] | None = None,
    crop: Geometry | None = None,
    stills: dict[int, str] | None = None,
) -> tuple[Geometry, list[ScreenState]]:
    """Every picture of the video as a ScreenState, in time order (an interlaced frame's
    two fields apart, when they show different boards); `on_frame(frames read)` after
    each frame. The picture is found over frames spread through the video, unless `crop`
    says where it is. With `stills`, each frame where a piece may have spawned (in either
    order of its fields) is kept there as a still (frame: a data URL)."""
    path = Path(path)
    stated = video_frames(path)
    if stated is not None and stated > MAX_VIDEO_FRAMES:  # before decoding any of them
        raise _too_long(path)
    pictures = rom_pictures(rom)
    sample, landmarks = _finding_sample(path), Landmarks.of_screen(pictures.screen)
    if crop is None:
        geometry = check_found(find_in_frames(sample, landmarks), "the video")
    else:
        crop.check_inside(sample[0].shape[1], sample[0].shape[0])
        geometry = check_found(match_at(sample, landmarks, crop), "the video at --crop")
    whole = FrameReader(geometry, pictures)
    fields = [FrameReader(geometry, pictures, parity) for parity in (0, 1)]
    read = []
    before = [np.zeros((ROWS, COLUMNS), bool)]  # as spawns() reads the first picture
    for index, picture in enumerate(_pictures(path)):
        if index == MAX_VIDEO_FRAMES:  # a stream that states no count, or too few
            raise _too_long(path)
        top, bottom = (reader.cell_values(picture) for reader in fields)
        lines, score, level, next_piece, threshold = whole.counters(picture)
        boards = _field_boards(top, bottom, threshold)
        read.append((index, (lines, score, level, next_piece), boards))
        if stills is not None and _may_spawn(before, boards):
            stills[index] = frame_still(picture.frame)
        before = boards
        if on_frame:
            on_frame(index + 1)
    if not read:
        raise NesbotError(f"cannot read video {path}: it has no frames")
    order = _field_order([boards for _index, _counters, boards in read])
    states = []
    for index, (lines, score, level, next_piece), boards in read:
        first, second = boards[order], boards[1 - order]
        if not np.array_equal(first, second):
            states.append(ScreenState(index, first, lines, score, level, next_piece))
        states.append(ScreenState(index, second, lines, score, level, next_piece))
    return geometry, states


def _too_long(path: Path) -> NesbotError:
    return NesbotError(
        f"cannot read video {path}: longer than {MAX_VIDEO_FRAMES:,} frames (two hours at 60 "
        "a second); cut it to the game"
    )


def _may_spawn(before: list[np.ndarray], boards: list[np.ndarray]) -> bool:
    """Whether a new piece shows in a frame's fields (`boards`) after the last frame's
    (`before`), in whichever order the fields are read."""
    pairs = [(old, new) for old in before for new in boards]
    pairs += [(boards[0], boards[1]), (boards[1], boards[0])]
    return any(_new_piece(old, new) is not None for old, new in pairs)


def _finding_sample(path: Path) -> list[np.ndarray]:
    """The brightest channel of the video's frames the picture is looked for in (only
    those frames are decoded to it)."""
    frames = itertools.islice(_pictures(path), FINDING_SPAN)
    sample = [picture.grey() for index, picture in enumerate(frames) if is_finding_frame(index)]
    if not sample:
        raise NesbotError(f"cannot read video {path}: it has no frames")
    return sample


def _field_boards(top: np.ndarray, bottom: np.ndarray, threshold: float) -> list[np.ndarray]:
    """The two fields' boards from their cells' values. A compressed interlaced picture
    bleeds each field into the other: a cell far dimmer than in the other field is that
    field's ghost, not a block."""
    return [
        (mine > threshold) & (mine >= GHOST * theirs)
        for mine, theirs in ((top, bottom), (bottom, top))
    ]


def _field_order(boards: list[list[np.ndarray]]) -> int:
    """0 if the top field comes first: the order in which the boards change less often
    (the other order shows each move made, undone and made again)."""
    changes = [0, 0]
    for order in (0, 1):
        previous = None
        for pair in boards:
            for board in (pair[order], pair[1 - order]):
                if previous is not None and not np.array_equal(board, previous):
                    changes[order] += 1
                previous = board
    return 0 if changes[0] <= changes[1] else 1


def _visible_cells(orientation: int, x: int, y: int) -> frozenset[tuple[int, int]] | None:
    """The (row, column) cells of a piece at (x, y) that show (row 0 and below); None if
    it does not fit across the columns."""
    cells = [(y + dy, x + dx) for dx, dy in ORIENTATION_CELLS[orientation]]
    if any(not 0 <= c < COLUMNS for _r, c in cells):
        return None
    return frozenset((r, c) for r, c in cells if r >= 0)


# Where a new piece can first show: its spawn row, or one lower (gravity of 1 frame a row),
# turned or moved by its first input: every visible cell set, to the spawn orientations of
# the pieces it can be (three cells in a row at the top: a T, J or L pointing up; two cells,
# the rest in the hidden rows: a turned I, J or L, and more). A piece falling in from the
# hidden rows never adds such a set with nothing leaving: its new cells are one, or apart.
_NEW_PIECE_CELLS: dict[frozenset[tuple[int, int]], tuple[int, ...]] = {}
for _orientation in range(len(ORIENTATION_CELLS)):
    for _x in range(-2, COLUMNS + 2):
        for _y in (0, 1):
            _cells = _visible_cells(_orientation, _x, _y)
            _spawn = SPAWN_TABLE[PIECE_TYPE[_orientation]]
            if _cells and len(_cells) >= 2 and _spawn not in _NEW_PIECE_CELLS.get(_cells, ()):
                _NEW_PIECE_CELLS[_cells] = (*_NEW_PIECE_CELLS.get(_cells, ()), _spawn)


_NEW_PIECE_ROWS = 1 + max(row for cells in _NEW_PIECE_CELLS for row, _column in cells)


def _rows(board: np.ndarray) -> tuple[int, ...]:
    return tuple(int(sum(1 << c for c in range(COLUMNS) if row[c])) for row in board)


@dataclass(frozen=True)
class Spawn:
    """A piece's first picture: where in the video, the spawn orientations of the pieces
    it can be (one, unless it first shows two or three cells), the stack it falls on (that
    picture without the piece), and the counters read there."""

    frame: int
    pieces: tuple[int, ...]
    stack: tuple[int, ...]
    lines: int | None
    score: int | None
    level: int | None
    next: int | None = None  # the next box, read a few pictures on (it shows the new next)
    # The cells seen over the stack in each picture up to the next spawn: where the piece
    # fell, and locked (two places can leave the same stack; the screen showed one).
    shown: frozenset[frozenset[tuple[int, int]]] = frozenset()


def spawns(states: list[ScreenState]) -> list[Spawn]:
    """The pictures where a new piece appears at the top: the cells of one piece where it
    can first show (its spawn place, turned or moved by its first input: a piece shows on
    the screen a frame after it spawns, and a turned one may show two or three cells) filled
    now and not before in the top rows, and nothing gone. Cells may appear lower down in
    the same picture: the stack's last rows redrawn after a line clear, which an interlaced
    field can show late. The stack the piece falls on is the picture's, without the piece."""
    found = []
    starts = []  # each spawn's index in states, and the stack under it
    empty = ScreenState(-1, np.zeros((ROWS, COLUMNS), bool), None, None, None)
    for index, (before, now) in enumerate(itertools.pairwise([empty, *states])):
        pieces = _new_piece(before.board, now.board)
        if pieces is not None:
            shown = _most_shown([state.next for state in states[index + 2 : index + 8]])
            stack = now.board & ~_top_rows(now.board & ~before.board)
            starts.append((index, stack))
            found.append(
                Spawn(now.frame, pieces, _rows(stack), now.lines, now.score, now.level, shown)
            )
    ends = [index for index, _stack in starts[1:]] + [len(states)] if starts else []
    return [
        replace(spawn, shown=frozenset(_cell_set(state.board & ~stack) for state in states[i:end]))
        for spawn, (i, stack), end in zip(found, starts, ends, strict=True)
    ]


def _top_rows(cells: np.ndarray) -> np.ndarray:
    """The cells of a board in the rows a new piece can first show in."""
    top = cells.copy()
    top[_NEW_PIECE_ROWS:] = False
    return top


def _new_piece(before: np.ndarray, now: np.ndarray) -> tuple[int, ...] | None:
    """The spawn orientations of the pieces whose cells appear at the top from board
    `before` to `now`, with nothing gone; None if no new piece shows."""
    if (before & ~now).any():
        return None
    piece = _top_rows(now & ~before)
    if not 2 <= piece.sum() <= 4:
        return None
    return _NEW_PIECE_CELLS.get(_cell_set(piece))


def _cell_set(board: np.ndarray) -> frozenset[tuple[int, int]]:
    rows, columns = np.nonzero(board)
    return frozenset(zip(rows.tolist(), columns.tolist(), strict=True))


def _most_shown(pieces: list[int | None]) -> int | None:
    """The piece the next box showed most often (a frame or two after a spawn it still
    shows the piece that just spawned), None if none was read."""
    read = [piece for piece in pieces if piece is not None]
    return max(set(read), key=read.count) if read else None


def pieces_from_spawns(found: list[Spawn]) -> list[LoggedPiece]:
    """The pieces of a game read from a video, each with its place when one lock, and only
    one, of the one piece it can be leads to the next spawn's stack (of two that do, the
    one whose cells the screen showed). Level, lines and
    score come from the screen at the first piece (and again after a piece left unrated),
    then from the simulator. A piece whose kind, or whose next piece's kind, stays unsure
    is left unrated."""
    pieces: list[LoggedPiece] = []
    known: tuple[int, int, int] | None = None  # level, lines, score from the simulator
    kinds = [
        _kind(spawn, following, previous.next if previous else None)
        for previous, spawn, following in zip([None, *found], found, found[1:], strict=False)
    ]
    for number, (spawn, following) in enumerate(itertools.pairwise(found), 1):
        counters = known or _read_counters(spawn)
        piece = kinds[number - 1]
        next_piece = kinds[number] if number < len(kinds) else None
        next_piece = next_piece or spawn.next or _only(following.pieces)
        known = None
        if counters is None or piece is None or next_piece is None:
            continue
        level, lines, score = counters
        position = Position(spawn.stack, piece, next_piece, level, lines, score)
        places = places_between(position, following.stack)
        if len(places) > 1:
            places = [p for p in places if _visible_cells(p[2], p[0], p[1]) in spawn.shown]
        place = places[0] if len(places) == 1 else None
        if place is not None:
            after = position.after(place).state()
            known = (
                int(after["level"]),
                ram.bcd_value(*after["lines"]),
                ram.bcd_value(*after["score"]),
            )
        pieces.append(LoggedPiece(number, spawn.frame, position, place, b""))
    return pieces


def _only(pieces: tuple[int, ...]) -> int | None:
    return pieces[0] if len(pieces) == 1 else None


def _kind(spawn: Spawn, following: Spawn, announced: int | None) -> int | None:
    """The piece a spawn is: the one it can be; else the one the next box announced a piece
    before, or the one whose lock alone leads to the next stack."""
    if len(spawn.pieces) == 1:
        return spawn.pieces[0]
    if announced in spawn.pieces:
        return announced
    fitting = [
        piece
        for piece in spawn.pieces
        if places_between(Position(spawn.stack, piece, piece, 0), following.stack)
    ]
    return _only(tuple(fitting))


def _read_counters(spawn: Spawn) -> tuple[int, int, int] | None:
    if spawn.level is None or spawn.lines is None or spawn.score is None:
        return None
    return spawn.level, spawn.lines, spawn.score


def video_pieces(
    path: str | os.PathLike[str],
    rom: Rom,
    on_frame: Callable[[int], None] | None = None,
    crop: Geometry | None = None,
) -> list[LoggedPiece]:
    """The pieces of the first game a video shows (nesbot rate GAME.mp4)."""
    return video_game(path, rom, on_frame, crop).pieces


@dataclass(frozen=True)
class VideoGame:
    """The first game a video shows: its pieces; whether it shows the game's end (the
    curtain the ROM draws over the whole playfield when a game is over: a full board,
    after the last piece; a video cut off mid-game shows none); and the picture where
    each piece spawned (its frame: a still's data URL)."""

    pieces: list[LoggedPiece]
    complete: bool
    spawn_pictures: dict[int, str]


def video_game(
    path: str | os.PathLike[str],
    rom: Rom,
    on_frame: Callable[[int], None] | None = None,
    crop: Geometry | None = None,
) -> VideoGame:
    """The first game a video shows, read in one decode of it."""
    stills: dict[int, str] = {}
    _geometry, states = read_states(path, rom, on_frame, crop, stills)
    found = spawns(states)
    if len(found) < 2:
        raise NesbotError(f"{path}: no game found on the screen (fewer than two pieces)")
    after_last = [state for state in states if state.frame > found[-1].frame]
    pieces = pieces_from_spawns(found)
    return VideoGame(
        pieces,
        any(state.board.all() for state in after_last),
        {piece.step: stills[piece.step] for piece in pieces if piece.step in stills},
    )
