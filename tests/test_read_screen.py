"""Reading one picture as captures show it: the game found at any place, scale and stretch
(borders, overscan, 1x-5x, 4:3 and 16:9, PAL's 576 lines, composite blur), and its board,
counters and next piece read right, with the ROM's own drawing of levels past 29 and of
lines past 999; `nesbot read-screen` and `nesbot.read_screen` on images, arrays and video
frames."""

import json
import math

import av
import cv2
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import nesbot
from nesbot.cli import main
from nesbot.errors import NesbotError
from nesbot.nes import ram
from nesbot.nes.emulator import Emulator
from nesbot.nes.menus import GameSetup, start_game
from nesbot.rating.capture_model import KINDS, Capture, capture, place
from nesbot.rating.geometry import Geometry, Landmarks, find_geometry
from nesbot.rating.reading import FrameReader, RgbPicture, level_texts, rom_pictures
from nesbot.rating.screen import pal_note

RENDER_FLAGS = 0xA3  # outOfDateRenderFlags: bit 0 lines, bit 1 level, bit 2 score
STACK = [0x000] * 12 + [0x201, 0x303, 0x307, 0x38F, 0x1FF, 0x3DF, 0x3BF, 0x37F]


@pytest.fixture(scope="module")
def pictures(rom):
    return rom_pictures(rom)


def _draw(emu: Emulator, level: int, lines: int, score: int, next_piece: int) -> None:
    """Set a stack, the counters and the next piece in RAM; the ROM draws them."""
    for row, mask in enumerate(STACK):
        for column in range(10):
            filled = mask >> column & 1
            emu.ram[ram.PLAYFIELD + 10 * row + column] = 0x7B if filled else ram.EMPTY_TILE
    emu.ram[ram.LEVEL_NUMBER] = level
    emu.ram[ram.LINES] = int(str(lines % 100), 16)
    emu.ram[ram.LINES + 1] = lines // 100  # the hundreds: 0-F, drawn 0-9 then A-F
    for i, pair in enumerate((score % 100, score // 100 % 100, score // 10_000)):
        emu.ram[ram.SCORE + i] = int(str(pair), 16)
    emu.ram[ram.NEXT_PIECE] = next_piece
    emu.ram[ram.VRAM_ROW] = 0  # the NMI copies the playfield again, 4 rows a frame
    emu.ram[RENDER_FLAGS] |= 0x07
    for _ in range(6):
        emu.step(0)


@pytest.fixture(scope="module")
def screen(rom):
    """A level-18 screen the ROM drew: a known stack, 123 lines, 654,321 points, next Z."""
    with Emulator(rom.path) as emu:
        start_game(emu, GameSetup(level=18), align=False)
        _draw(emu, 18, 123, 654_321, 0x08)
        return emu.screen.copy()


SHOWN = (123, 654_321, 18, "Z")  # lines, score, level and next piece of `screen`


def _shown(reading) -> tuple:
    return reading.lines, reading.score, reading.level, reading.next


def _stack(board: np.ndarray) -> list[int]:
    return [sum(1 << c for c in range(10) if row[c]) for row in board[12:]]


def test_the_clean_screen_is_read_as_ram_says(pictures, screen):
    reading = FrameReader(Geometry(0, 0, 1, 1), pictures).read(RgbPicture(screen))
    assert _stack(reading.board) == STACK[12:]
    assert _shown(reading) == SHOWN
    assert min(reading.confidence.values()) > 0.9


CAPTURES = {
    "1x, overscan cut": Capture((256, 224), 1, 1, 0, -8),
    "4:3 of 640x480": Capture((640, 480), 2.24, 2, 38, 0, composite=True),
    "5x, square": Capture((1280, 1200), 5, 5, 0, 0),
    **{name: kind for name, kind in KINDS.items() if not kind.interlaced},
}


@pytest.mark.parametrize("name", CAPTURES)
def test_the_game_is_found_and_read_in_captures(pictures, screen, name):
    kind = CAPTURES[name]
    frame = capture(screen, kind, np.random.default_rng(1))
    found = find_geometry(frame.max(axis=2), Landmarks.of_screen(pictures.screen))
    assert found.match > 0.8
    assert found.sx == pytest.approx(kind.sx, rel=0.01)
    assert found.sy == pytest.approx(kind.sy, rel=0.01)
    assert abs(found.left - kind.left) < kind.sx / 2 and abs(found.top - kind.top) < kind.sy / 2
    reading = FrameReader(found, pictures).read(RgbPicture(frame))
    assert _stack(reading.board) == STACK[12:]
    assert _shown(reading) == SHOWN


def test_a_picture_without_the_game_is_refused(rom):
    noise = np.random.default_rng(1).integers(0, 255, (480, 640, 3), np.uint8)
    with pytest.raises(NesbotError, match="no NES Tetris game screen found"):
        nesbot.read_screen(noise, rom=rom)


def test_levels_and_lines_are_read_as_the_rom_draws_them(rom, pictures):
    """Past level 29 the ROM draws the bytes after its level table, past 999 lines its
    hundreds go on as A-F: the reader reads what is drawn, and the first level drawing it."""
    texts = level_texts(rom)
    assert texts[:30] == tuple(f"{level:02d}" for level in range(30))
    reader = FrameReader(Geometry(0, 0, 1, 1), pictures)
    with Emulator(rom.path) as emu:
        start_game(emu, GameSetup(level=18), align=False)
        for level, lines in ((29, 999), (30, 1000), (31, 1450), (144, 1599), (255, 0)):
            _draw(emu, level, lines, 999_999, 0x12)
            reading = reader.read(RgbPicture(emu.screen))
            assert reading.level_text == texts[level]
            assert reading.level == texts.index(texts[level])
            assert (reading.lines, reading.score, reading.next) == (lines, 999_999, "I")


@pytest.fixture(scope="module")
def captured(screen, tmp_path_factory):
    """`screen` as a 720x480 capture card shows it: an image file and a five-frame video."""
    folder = tmp_path_factory.mktemp("capture")
    frame = place(screen, (720, 480), 2.5, 2, 42, -6)
    cv2.imwrite(str(folder / "capture.png"), cv2.cvtColor(frame, cv2.COLOR_RGB2BGR))
    with av.open(str(folder / "capture.mp4"), "w") as out:
        stream = out.add_stream("libx264", rate=30)
        stream.width, stream.height, stream.pix_fmt = 720, 480, "yuv420p"
        for _ in range(5):
            for packet in stream.encode(av.VideoFrame.from_ndarray(frame, format="rgb24")):
                out.mux(packet)
        for packet in stream.encode():
            out.mux(packet)
    return frame, folder


def test_read_screen_takes_a_file_an_array_and_a_video_frame(rom, captured):
    frame, folder = captured
    image = folder / "capture.png"
    for picture in (image, str(image), frame, av.VideoFrame.from_ndarray(frame, format="rgb24")):
        assert _shown(nesbot.read_screen(picture, rom=rom)) == SHOWN
    assert _shown(nesbot.read_screen(folder / "capture.mp4", frame=4, rom=rom)) == SHOWN
    cropped = nesbot.read_screen(frame, crop=(42, 10, 640, 448), rom=rom)
    assert cropped.geometry.sx == 2.5 and _shown(cropped) == SHOWN


def test_read_screen_command(rom, captured, capsys):
    image = str(captured[1] / "capture.png")
    assert main(["read-screen", image, "--json", "--rom", str(rom.path)]) == 0
    data = json.loads(capsys.readouterr().out)
    keys = {"board", "lines", "score", "level", "level_text", "next", "geometry", "confidence"}
    assert set(data) == keys
    assert len(data["board"]) == 20 and all(len(row) == 10 for row in data["board"])
    assert (data["lines"], data["score"], data["level"], data["next"]) == SHOWN
    assert set(data["confidence"]) == {"geometry", "board", "lines", "score", "level", "next"}
    assert main(["read-screen", image, "--frame", "0", "--rom", str(rom.path)]) == 0
    text = capsys.readouterr().out
    assert "score  654321" in text and "next   Z" in text


@pytest.mark.parametrize(
    ("name", "frame", "message"),
    [
        ("missing.png", 0, "no such file"),
        ("notes.txt", 0, "not an image"),
        ("capture.mp4", 5, "has no frame 5: its frames are 0-4"),
        ("capture.png", 5, "a picture has no frame 5: it is one frame, 0"),
        ("folder.png", 0, "folder.png: it is a directory"),
        ("endless.png", 0, "endless.png: it is not a regular file"),
    ],
)
def test_read_screen_errors_are_one_line(rom, captured, capsys, name, frame, message):
    folder = captured[1]
    (folder / "notes.txt").write_text("not a picture")
    (folder / "folder.png").mkdir(exist_ok=True)
    if not (folder / "endless.png").is_symlink():
        (folder / "endless.png").symlink_to("/dev/zero")
    args = ["read-screen", str(folder / name), "--frame", str(frame), "--rom", str(rom.path)]
    assert main(args) == 2
    error = capsys.readouterr().err.splitlines()[-1]
    assert error.startswith("nesbot: error: ") and message in error


@pytest.mark.parametrize(
    ("crop", "message"),
    [
        ("1,2,3", "X,Y,W,H"),
        ("0,0,0,10", "above 0"),
        ("nan,0,640,448", "four finite numbers"),
        ("0,0,inf,448", "four finite numbers"),
        ("0,-inf,640,448", "four finite numbers"),
    ],
)
def test_a_bad_crop_is_refused(crop, message, capsys):
    with pytest.raises(SystemExit):
        main(["read-screen", "capture.png", "--crop", crop])
    assert message in capsys.readouterr().err


def test_a_crop_where_no_game_screen_is_is_refused(rom, captured):
    """A --crop says where the picture is; the landmarks must still match there (the
    hostile run's 1x1 crop, black picture and level menu were read at confidence 1)."""
    frame = captured[0]
    right = nesbot.read_screen(frame, crop=(42, 10, 640, 448), rom=rom)
    assert right.confidence["geometry"] > 0.9
    for picture, crop in (
        (frame, (0, 0, 1, 1)),
        (frame, (60, 30, 600, 420)),  # off by a few NES pixels and the wrong scale
        (np.zeros_like(frame), (42, 10, 640, 448)),
    ):
        with pytest.raises(NesbotError, match=r"no NES Tetris game screen found .* --crop"):
            nesbot.read_screen(picture, crop=crop, rom=rom)


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    crop=st.tuples(
        st.floats(-1e4, 1e4) | st.just(math.nan),
        st.floats(-1e4, 1e4) | st.just(math.inf),
        st.floats(-1e4, 1e4),
        st.floats(-1e4, 1e4) | st.just(-math.inf),
    )
)
def test_a_crop_is_read_only_finite_and_inside_the_picture(rom, captured, crop):
    """Any --crop: a reading whose rectangle lies in the picture, or one NesbotError;
    never the border read as an empty board."""
    captured_frame = captured[0]
    try:
        reading = nesbot.read_screen(captured_frame, crop=crop, rom=rom)
    except NesbotError as error:
        assert "\n" not in str(error) and "--crop" in str(error)
        return
    x, y, width, height = crop
    assert all(math.isfinite(v) for v in crop) and width > 0 and height > 0
    assert x >= 0 and y >= 0
    assert x + width <= captured_frame.shape[1] and y + height <= captured_frame.shape[0]
    assert json.loads(json.dumps(reading.as_json(), allow_nan=False))


def test_a_pal_capture_is_said_to_be_rated_under_ntsc_rules(captured):
    frame, folder = captured
    path = folder / "pal.mp4"
    with av.open(str(path), "w") as out:
        stream = out.add_stream("libx264", rate=25)
        stream.width, stream.height, stream.pix_fmt = 720, 480, "yuv420p"
        for packet in stream.encode(av.VideoFrame.from_ndarray(frame, format="rgb24")):
            out.mux(packet)
        for packet in stream.encode():
            out.mux(packet)
    note = pal_note(path)
    assert note is not None and "PAL capture (25 frames a second)" in note
    assert "rated under NTSC rules" in note and "\n" not in note
    assert pal_note(folder / "capture.mp4") is None


def test_rate_takes_the_crop(rom, captured):
    """nesbot.rate reads a video where `crop` says: five frames of one picture are read,
    and hold no game (a game needs two pieces)."""
    with pytest.raises(NesbotError, match="fewer than two pieces"):
        nesbot.rate(captured[1] / "capture.mp4", crop=(42, 10, 640, 448), rom=rom)
    with pytest.raises(NesbotError, match="not inside the 720 x 480 picture"):
        nesbot.rate(captured[1] / "capture.mp4", crop=(100, 40, 640, 448), rom=rom)
