"""Reading a game from a video of the screen: the picture found at any capture scale, the
cells and counters read in every palette, spawns and placements read from a recording of
the bot's game (clean, and degraded as captures are), and no placement ever invented."""

import itertools
import json
from fractions import Fraction

import av
import cv2
import numpy as np
import pytest

from nesbot._core.pieces import ORIENTATION_CELLS
from nesbot.bot.planning import PlannerSettings
from nesbot.bot.policy import Bot
from nesbot.bot.session import play_game
from nesbot.cli import main
from nesbot.evaluation.evaluators import get_evaluator
from nesbot.nes import ram
from nesbot.nes.fm2 import Fm2Writer, fceux_rom_md5, read_fm2
from nesbot.nes.menus import GameSetup, start_game
from nesbot.nes.polls import FrameRecorder
from nesbot.rating.geometry import Geometry, Landmarks, find_geometry
from nesbot.rating.positions import LoggedPiece, Position, logged_pieces
from nesbot.rating.reading import FrameReader, rom_pictures, rom_tiles
from nesbot.rating.screen import (
    Picture,
    ScreenState,
    Spawn,
    pieces_from_spawns,
    read_states,
    spawns,
    video_game,
    video_pieces,
)

NES_RATE = Fraction(39375000, 655171)


def _picture(rgb: np.ndarray) -> Picture:
    return Picture(av.VideoFrame.from_ndarray(np.ascontiguousarray(rgb), format="rgb24"))


@pytest.fixture(scope="module")
def pictures(rom):
    return rom_pictures(rom)


@pytest.fixture(scope="module")
def screen(pictures):
    return pictures.screen


@pytest.fixture(scope="module")
def game_screens(rom, emulator):
    """nes-py's screens and RAM of a short level-15 game of the bot's, from power-on."""
    emulator.power_on()
    emulator.observers.clear()
    setup = GameSetup(level=15, seed=4)
    start_game(emulator, setup, align=False)
    shots = []

    def keep(_pad, emu):
        shots.append((emu.screen.copy(), ram.decode(emu.ram)))

    emulator.observers[:] = [keep]
    with pytest.warns(UserWarning):
        play_game(emulator, setup, rom, policy=Bot(get_evaluator("nesbot-trained")), max_frames=900)
    emulator.observers.clear()
    return shots


def test_digits_are_the_roms_tiles_where_the_rom_writes_its_counters(rom, pictures, game_screens):
    glyphs = rom_tiles(rom)
    assert glyphs.shape == (16, 8, 8) and len({g.tobytes() for g in glyphs}) == 16
    reader = FrameReader(Geometry(0, 0, 1, 1), pictures)
    for rgb, state in game_screens[10::50]:  # the counters show from the second frame
        picture = _picture(rgb)
        # The screen shows RAM's counters a frame late at most.
        assert reader.level(picture)[0] in (state.level, state.level - 1)
        assert abs(reader.lines(picture)[0] - state.lines) <= 4
        assert reader.score(picture)[0] <= state.score


def test_the_picture_is_found_at_capture_scales(screen, game_screens):
    landmarks = Landmarks.of_screen(screen)
    rgb = game_screens[200][0]
    for sx, sy, left, top in ((3, 3, 0, 0), (2.5, 2, 40, 0), (2, 2, 17, 12)):
        size = (round(256 * sx), round(240 * sy))
        scaled = cv2.resize(rgb, size, interpolation=cv2.INTER_AREA)
        frame = np.zeros((size[1] + 2 * top, size[0] + 2 * left, 3), np.uint8)
        frame[top : top + size[1], left : left + size[0]] = scaled
        found = find_geometry(_picture(frame).grey(), landmarks)
        assert found.match > 0.8  # the ROM's screen at another level and moment
        assert found.sx == pytest.approx(sx, rel=0.01) and found.sy == pytest.approx(sy, rel=0.01)
        assert abs(found.left - left) <= sx and abs(found.top - top) <= sy


def test_the_next_box_is_read_as_ram_holds_it(pictures, game_screens):
    reader = FrameReader(Geometry(0, 0, 1, 1), pictures)
    assert len({box.tobytes() for box in pictures.next_boxes.values()}) == 7
    read = 0
    for index in range(10, len(game_screens) - 1):
        around = {state.next for _rgb, state in game_screens[index - 3 : index + 2]}
        if len(around) == 1:  # not within the frames the screen takes to show a change
            assert reader.next_piece(_picture(game_screens[index][0]))[0] in around
            read += 1
    assert read > 700


def test_cells_are_read_in_the_games_palette(pictures, game_screens):
    reader = FrameReader(Geometry(0, 0, 1, 1), pictures)
    compared = 0
    for (rgb, shown), (_rgb, state) in itertools.pairwise(game_screens[10:]):
        if shown.play_state != ram.PLAY_ACTIVE or state.play_state != ram.PLAY_ACTIVE:
            continue  # the ROM redraws rows over several frames after a lock
        board = reader.board(_picture(rgb))
        stack = np.array([[row >> c & 1 for c in range(10)] for row in state.board], bool)
        # The screen shows RAM a frame late; RAM's playfield lacks the falling piece.
        assert not (stack & ~board).any() and (board & ~stack).sum() <= 4
        compared += 1
    assert compared > 500


def _encode(path, pictures, rate=NES_RATE, bit_rate=None):
    with av.open(str(path), "w") as out:
        stream = out.add_stream("libx264", rate=rate)
        stream.height, stream.width = pictures[0].shape[:2]
        stream.pix_fmt = "yuv420p"
        if bit_rate:
            stream.bit_rate = bit_rate
        for rgb in pictures:
            for packet in stream.encode(av.VideoFrame.from_ndarray(rgb, format="rgb24")):
                out.mux(packet)
        for packet in stream.encode():
            out.mux(packet)


# One recording for this module's tests and tests/test_report.py's: each test that reads it
# is in this xdist group, so that a parallel run makes it once, on one worker.
RECORDED_GAME = pytest.mark.xdist_group("recorded_game")


@pytest.fixture(scope="session")
def recorded(rom, emulator, tmp_path_factory):
    """A level-19 game of the bot's as a log and a video (720 lines), from power-on."""
    folder = tmp_path_factory.mktemp("screen")
    log_path, pictures = folder / "game.fm2", []
    with Fm2Writer(log_path, fceux_rom_md5(rom.data)) as log:
        emulator.power_on()
        recorder = FrameRecorder(log)

        def keep(pad, emu):
            if emu.ram[ram.GAME_MODE] == ram.MODE_PLAY:
                pictures.append(cv2.resize(emu.screen, (768, 720), interpolation=cv2.INTER_NEAREST))

        emulator.observers[:] = [recorder, keep]
        setup = GameSetup(level=19, seed=9)
        start_game(emulator, setup, align=False)
        with pytest.warns(UserWarning):
            play_game(emulator, setup, rom, Bot(settings=PlannerSettings()), max_frames=1500)
        recorder.close()
    emulator.observers.clear()
    truth = list(logged_pieces(rom, read_fm2(log_path)))
    return folder, pictures, truth


def _right_and_invented(read, truth):
    placed = {(p.position.rows, p.position.piece, p.place) for p in truth if p.place}
    right = [p for p in read if p.place and (p.position.rows, p.position.piece, p.place) in placed]
    return len(right), sum(p.place is not None for p in read) - len(right)


@RECORDED_GAME
def test_every_placement_of_a_clean_recording_is_read(rom, recorded):
    folder, pictures, truth = recorded
    _encode(folder / "clean.mp4", pictures)
    read = video_pieces(folder / "clean.mp4", rom)
    right, invented = _right_and_invented(read, truth)
    shown = len([p for p in truth if p.place]) - 1  # the last lock's next spawn may be cut
    assert invented == 0 and right >= shown
    # --crop: the picture where the user says it is (the whole 768x720 frame holds the
    # NES picture's 240 lines, so lines 8-231 are 24-693) reads the same game.
    cropped = video_pieces(folder / "clean.mp4", rom, crop=Geometry.of_crop(0, 24, 768, 672))
    assert [(p.position, p.place) for p in cropped] == [(p.position, p.place) for p in read]


@RECORDED_GAME
def test_a_degraded_capture_is_read_without_inventing(rom, recorded):
    """480 lines, colour-shifted, interlaced (two game frames a picture), 1 Mbit/s."""
    folder, pictures, truth = recorded
    woven = []
    for early, late in zip(pictures[::2], pictures[1::2], strict=False):
        frames = []
        for rgb in (early, late):
            small = cv2.resize(rgb, (512, 480), interpolation=cv2.INTER_AREA).astype(np.float32)
            shifted = (small / 255) ** 0.85 * [0.9, 1.08, 0.82] + [0.03, -0.02, 0.05]
            frames.append(np.clip(shifted * 255, 0, 255).astype(np.uint8))
        picture = frames[0].copy()
        picture[1::2] = frames[1][1::2]
        woven.append(picture)
    _encode(folder / "captured.mp4", woven, NES_RATE / 2, 1_000_000)
    geometry, states = read_states(folder / "captured.mp4", rom)
    assert geometry.sy == pytest.approx(2, rel=0.01)
    read = pieces_from_spawns(spawns(states))
    right, invented = _right_and_invented(read, truth)
    placed = len([p for p in truth if p.place])
    assert invented == 0 and right >= 0.95 * (placed - 1)


def test_a_misread_stack_leaves_the_placement_unrated():
    empty = tuple([0] * 20)
    o_piece, t_piece = 0x0A, 0x02
    locked = tuple([0] * 18 + [0b110000, 0b110000])  # the O at columns 4-5
    spawn = Spawn(0, (o_piece,), empty, 0, 0, 18)
    right = Spawn(40, (t_piece,), locked, 0, 0, 18)
    (piece,) = pieces_from_spawns([spawn, right])
    assert piece.place == (5, 18, o_piece) and piece.position == Position(
        empty, o_piece, t_piece, 18
    )
    misread = Spawn(40, (t_piece,), tuple([0] * 18 + [0b110000, 0b110001]), 0, 0, 18)
    (piece,) = pieces_from_spawns([spawn, misread])
    assert piece.place is None and isinstance(piece, LoggedPiece)


def test_spawns_need_a_whole_new_piece_at_the_top():
    board = np.zeros((20, 10), bool)
    states = [ScreenState(0, board, 0, 0, 18)]
    t_piece = board.copy()
    t_piece[0, 4:7] = t_piece[1, 5] = True
    states.append(ScreenState(1, t_piece, 0, 0, 18))
    lower = np.roll(t_piece, 5, axis=0)  # the same piece further down: no spawn
    states.append(ScreenState(2, lower, 0, 0, 18))
    found = spawns(states)
    assert [(s.frame, s.pieces) for s in found] == [(1, (0x02,))]


def test_a_piece_first_shown_turned_is_told_by_where_it_locks():
    """Turned on its first frame, a T, J or L pointing up shows three cells in a row: which
    piece it was, only its lock tells."""
    board = np.zeros((20, 10), bool)
    up = board.copy()
    up[0, 4:7] = True
    (first,) = spawns([ScreenState(0, board, 0, 0, 18), ScreenState(1, up, 0, 0, 18)])
    assert sorted(first.pieces) == sorted((0x02, 0x07, 0x0E))  # T, J or L
    t_down_on_the_floor = tuple([0] * 18 + [0b1110000, 0b0100000])
    following = Spawn(40, (0x0A,), t_down_on_the_floor, 0, 0, 18)
    (piece,) = pieces_from_spawns([first, following])
    assert piece.position.piece == 0x02 and piece.place == (5, 18, 0x02)


def _states(*cell_sets: list[tuple[int, int]]) -> list[ScreenState]:
    states = []
    for frame, cells in enumerate(cell_sets):
        board = np.zeros((20, 10), bool)
        for row, column in cells:
            board[row, column] = True
        states.append(ScreenState(frame, board, 0, 0, 18))
    return states


def test_a_piece_first_shown_with_two_cells_is_one_new_piece():
    """An L turned on its first frame shows two cells, the rest hidden; turned again, then
    falling, it is still the same piece (a recorded game's first piece did this)."""
    column = [(0, 4), (1, 4)]
    up = [(0, 2), (0, 3), (0, 4)]
    falling = [[(row, 4), (row + 1, 2), (row + 1, 3), (row + 1, 4)] for row in range(19)]
    found = spawns(_states([], column, up, *falling))
    assert [spawn.frame for spawn in found] == [1] and 0x0E in found[0].pieces
    l_on_the_floor = tuple([0] * 18 + [0b10000, 0b11100])
    following = Spawn(40, (0x0A,), l_on_the_floor, 0, 0, 18)
    (piece,) = pieces_from_spawns([found[0], following])
    assert piece.position.piece == 0x0E and piece.place is not None


def test_a_vertical_i_entering_from_the_hidden_rows_is_one_new_piece():
    entering = [
        [(row, 5) for row in range(max(0, bottom - 3), bottom + 1)] for bottom in range(1, 8)
    ]
    found = spawns(_states([], *entering))
    assert [spawn.frame for spawn in found] == [1]


def test_a_spawn_may_show_with_the_stacks_last_redrawn_cells():
    """After a line clear the ROM redraws the stack a few rows a frame; an interlaced
    field can show the last of them only with the new piece. The stack is the spawn
    picture's, without the piece."""
    stack = [(19, column) for column in range(9)]
    partly = stack[:5]
    t_piece = [(0, 4), (0, 5), (0, 6), (1, 5)]
    (found,) = spawns(_states(partly, stack[:5] + stack[5:] + t_piece))
    assert found.pieces == (0x02,) and found.stack == tuple([0] * 19 + [0b111111111])
    shifted = _states([(18, 0), *partly], stack + t_piece)  # a cell gone: not a spawn
    assert spawns(shifted) == []


def test_of_two_locks_that_leave_the_same_stack_the_one_shown_is_taken():
    """A T pointing up at y 11 and one pointing down at y 10 leave this stack alike (a
    recorded game's piece); the screen showed the one that fell there."""
    stack = tuple([0] * 9 + [48, 1016, 1016] + [1019] * 8)
    position = Position(stack, 0x02, 0x0B, 17, 26)
    up, down = (1, 11, 0x00), (1, 10, 0x02)
    after = position.after(down).state()["rows"][2:]
    assert position.after(up).state()["rows"][2:] == after
    following = Spawn(60, (0x0B,), tuple(after), None, None, None)
    for x, y, orientation in (up, down):
        cells = frozenset((y + dy, x + dx) for dx, dy in ORIENTATION_CELLS[orientation])
        spawn = Spawn(0, (0x02,), stack, 26, 0, 17, shown=frozenset({cells}))
        (piece,) = pieces_from_spawns([spawn, following])
        assert piece.place == (x, y, orientation)
    unseen = Spawn(0, (0x02,), stack, 26, 0, 17)
    assert pieces_from_spawns([unseen, following])[0].place is None


@RECORDED_GAME
def test_rate_command_reads_a_video(rom, recorded, capsys):
    folder, pictures, _truth = recorded
    video = folder / "short.mp4"
    _encode(video, pictures[:600])
    assert main(["rate", str(video), "--json", "--playouts", "2", "--horizon", "4"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["summary"]["speed"]["measured"] is False and out["placements"]
    assert out["summary"]["complete"] is False  # cut off mid-game: said, not rated as whole
    assert main(["rate", str(video), "--playouts", "2", "--horizon", "4"]) == 0
    assert "the video ends before the game does" in capsys.readouterr().out
    assert main(["rate", str(video), "--video", str(folder / "x.mp4")]) == 2
    assert "no log to replay" in capsys.readouterr().err


def test_a_video_says_whether_it_shows_the_games_end(rom, emulator, tmp_path):
    """A game left to top out (no input from level 19) ends under the ROM's curtain, a
    full board after the last piece: the whole video shows the end, its first 500 frames
    (before the curtain) do not."""
    emulator.power_on()
    start_game(emulator, GameSetup(level=19, seed=9), align=False)
    pictures = []
    for _ in range(1500):
        emulator.step(0)
        pictures.append(emulator.screen.copy())  # the NES picture as it is: quick to read
    assert ram.decode(emulator.ram).topped_out
    _encode(tmp_path / "whole.mp4", pictures)
    _encode(tmp_path / "cut.mp4", pictures[:500])
    assert video_game(tmp_path / "whole.mp4", rom).complete
    assert not video_game(tmp_path / "cut.mp4", rom).complete
