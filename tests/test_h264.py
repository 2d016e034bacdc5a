"""The .mp4's H.264 writer (nesbot.show.video.h264): every picture decodes, in FFmpeg's decoder
and in Cisco's OpenH264 (which shares no code with FFmpeg; tests/openh264.py), to exactly the
planes it was given, whichever kind of macroblock each block became."""

import itertools
from pathlib import Path

import av
import numpy as np
import openh264
import pytest

from nesbot.show.overlay import Renderer
from nesbot.show.pace import NTSC_RATE
from nesbot.show.video.h264 import H264Writer
from nesbot.show.video.muxing import Encoder
from nesbot.show.video.pictures import Yuv420Picture

RATE = float(NTSC_RATE)
CELL = 8  # a NES cell at scale 1: the motions the writer tries


def decode(path: Path) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Every picture's yuv420p planes, decoded by FFmpeg (PyAV)."""
    pictures = []
    with av.open(str(path)) as container:
        for frame in container.decode(video=0):
            assert frame.format.name == "yuv420p"
            planes = []
            for plane in frame.planes:
                rows = np.frombuffer(plane, np.uint8).reshape(-1, plane.line_size)
                planes.append(rows[: plane.height, : plane.width].copy())
            pictures.append(tuple(planes))
    return pictures


def require_openh264() -> None:
    """Skip without libopenh264 (under CI=true, tests/conftest.py makes that a failure)."""
    try:
        openh264.library()
    except openh264.OpenH264Unavailable as error:
        pytest.skip(f"{error}; only FFmpeg's decoder checks the streams")


def access_units(path: Path) -> list[bytes]:
    """The stream's Annex B access units: the .mp4's samples, or a raw stream split."""
    if path.suffix == ".mp4":
        return openh264.access_units_of_mp4(path)
    return openh264.access_units_of_annexb(path.read_bytes())


def decode_openh264(path: Path, delayed: bool = False):
    """Every picture's planes, decoded by OpenH264; OpenH264Error on any error state, warning,
    concealment, or picture missing."""
    require_openh264()
    return openh264.decode_annexb(access_units(path), delayed=delayed)


DECODERS = {
    "FFmpeg": decode,
    "OpenH264": decode_openh264,  # DecodeFrameNoDelay: each picture from its access unit
    "OpenH264 DecodeFrame2": lambda path: decode_openh264(path, delayed=True),
}


def assert_decodes_to(path: Path, given) -> None:
    """Each decoder gives exactly the pictures given, sample for sample. A test calls this
    last: without libopenh264 it is skipped here, after FFmpeg's check."""
    for name, decoder in DECODERS.items():
        decoded = decoder(path)
        assert len(decoded) == len(given), (name, len(decoded))
        for index, (got, expected) in enumerate(zip(decoded, given, strict=True)):
            for plane, (a, b) in enumerate(zip(got, expected, strict=True)):
                assert np.array_equal(a, b), (name, index, plane)


def write_stream(path: Path, writer: H264Writer, pictures, dirty_maps, idr_at=(0,)) -> list:
    """Write pictures as a raw Annex B stream; returns each picture's macroblock kinds."""
    kinds = []
    with open(path, "wb") as out:
        for index, (picture, dirty) in enumerate(zip(pictures, dirty_maps, strict=True)):
            out.write(writer.write(*picture, dirty, index in idr_at))
            kinds.append((writer.skipped, writer.moved, writer.predicted, writer.raw))
    return kinds


def planes_of(luma: np.ndarray, chroma_u: int = 128, chroma_v: int = 128):
    height, width = luma.shape
    u = np.full((height // 2, width // 2), chroma_u, np.uint8)
    v = np.full((height // 2, width // 2), chroma_v, np.uint8)
    return (np.ascontiguousarray(luma), u, v)


def test_each_kind_of_macroblock_decodes_exactly(tmp_path: Path) -> None:
    """A small scene in pictures that make the writer use each kind: a repeat (skips), a
    block that falls one cell (motion), a flash of the whole picture and its end (older
    references), noise (raw samples) on flat ground (predictions)."""
    rng = np.random.default_rng(3)
    height, width = 96, 128
    ground = np.full((height, width), 40, np.uint8)
    ground[:, 64:] = 200  # two flat halves: DC, vertical and horizontal predictions
    block = rng.integers(16, 236, (CELL * 2, CELL * 2), np.uint8)

    def scene(row: int) -> np.ndarray:
        picture = ground.copy()
        picture[row : row + block.shape[0], 16 : 16 + block.shape[1]] = block
        return picture

    flash = np.full((height, width), 235, np.uint8)
    lumas = [scene(16), scene(16), scene(16 + CELL), flash, scene(16 + CELL), scene(16 + CELL)]
    noise = rng.integers(16, 236, (16, 16), np.uint8)
    lumas[-1][64:80, 96:112] = noise
    pictures = [planes_of(luma) for luma in lumas]
    pictures[3] = planes_of(flash, 90, 160)  # the flash changes colour too
    everywhere = np.ones((height // 16, width // 16), np.uint8)
    path = tmp_path / "scene.h264"
    writer = H264Writer(width, height, CELL, RATE)
    kinds = write_stream(path, writer, pictures, [everywhere] * len(pictures))

    macroblocks = (height // 16) * (width // 16)
    skipped, moved, predicted, raw = zip(*kinds, strict=True)
    assert predicted[0] > 0 and raw[0] > 0 and skipped[0] == moved[0] == 0  # the IDR picture
    assert skipped[1] == macroblocks  # a repeat is all skips
    assert moved[2] > 0  # the block fell one cell
    assert moved[4] > 0 and raw[4] == 0  # after the flash: the picture two before, as it was
    assert raw[5] == 1  # the noise: its samples
    assert_decodes_to(path, pictures)


def test_only_the_blocks_said_to_change_are_looked_at(tmp_path: Path) -> None:
    """The dirty map is the caller's promise that the other blocks are as in the last
    picture (Encoder derives it from the screen rows that changed): those are skipped
    without a look, and only the blocks it names are coded."""
    height, width = 64, 64
    first = planes_of(np.full((height, width), 60, np.uint8))
    luma = first[0].copy()
    luma[16:32, 32:48] = np.arange(256, dtype=np.uint8).reshape(16, 16)
    second = planes_of(luma)
    everywhere = np.ones((height // 16, width // 16), np.uint8)
    nowhere = np.zeros_like(everywhere)
    one = nowhere.copy()
    one[1, 2] = 1
    path = tmp_path / "promise.h264"
    writer = H264Writer(width, height, CELL, RATE)
    pictures = [first, second, second]
    kinds = write_stream(path, writer, pictures, [everywhere, one, nowhere])
    assert kinds[1] == (15, 0, 0, 1)  # skips, moved, predicted, raw
    assert kinds[2] == (16, 0, 0, 0)
    assert_decodes_to(path, pictures)


def test_a_real_game_decodes_to_the_pictures_given(emulator, new_game, tmp_path: Path) -> None:
    """300 frames of a bot's game through the .mp4 path with the overlay (Encoder, dirty
    maps from the screen's changed rows and the panel's figures, an IDR picture every 100
    frames here): every decoded frame is the encoder's picture, sample for sample."""
    from nesbot.bot.policy import Bot
    from nesbot.show.video import muxing
    from nesbot.show.watch import GameWatch

    new_game(19, seed=7)
    bot = Bot()
    watch = GameWatch(emulator.ram, bot)
    emulator.observers.append(watch)
    path = tmp_path / "game.mp4"
    encoder = Encoder(path, scale=2, overlay=True)
    given = []
    original = muxing.KEYFRAME_INTERVAL
    muxing.KEYFRAME_INTERVAL = 100
    try:
        for _ in range(300):
            emulator.step(bot(emulator.ram, emulator.frame))
            encoder.encode(encoder.prepare(emulator.screen, watch.info()))
            given.append(tuple(plane.copy() for plane in encoder.picture.planes))
    finally:
        muxing.KEYFRAME_INTERVAL = original
        emulator.observers.clear()
        encoder.finish()
    changed = sum(not np.array_equal(a[0], b[0]) for a, b in itertools.pairwise(given))
    assert changed > 50  # the game moved: pieces fell, were placed
    with av.open(str(path)) as container:
        keyframes = [
            p.pts * p.time_base * NTSC_RATE for p in container.demux(video=0) if p.is_keyframe
        ]
    assert keyframes == [0, 100, 200]
    assert_decodes_to(path, given)


def test_openh264_refuses_a_damaged_stream(tmp_path: Path) -> None:
    """The second decoder's harness sees damage, so its silence on the streams above means
    something: the stream whole decodes; without its parameter sets, with a picture lost
    (a gap in frame_num), or with a slice cut short it is an error."""
    require_openh264()
    rng = np.random.default_rng(5)
    height, width = 48, 64
    pictures = [planes_of(rng.integers(16, 236, (height, width), np.uint8)) for _ in range(4)]
    path = tmp_path / "damage.h264"
    writer = H264Writer(width, height, CELL, RATE)
    everywhere = np.ones((height // 16, width // 16), np.uint8)
    write_stream(path, writer, pictures, [everywhere] * len(pictures))
    units = access_units(path)
    assert len(units) == len(pictures)
    assert_decodes_to(path, pictures)
    damaged = {
        "dsNoParamSets": units[1:],
        "dsRefLost": units[:1] + units[2:],
        "dsBitstreamError": [*units[:2], units[2][: len(units[2]) // 2], units[3]],
    }
    for state, stream in damaged.items():
        with pytest.raises(openh264.OpenH264Error, match=state):
            openh264.decode_annexb(stream)


@pytest.mark.parametrize(
    ("width", "height", "level"),
    [
        (256, 240, 32),  # scale 1
        (768, 720, 51),  # scale 3
        (1152, 720, 52),  # scale 3 with the overlay panel
        (3072, 1920, 62),  # scale 8 with the panel
    ],
)
def test_level_fits_the_picture(width: int, height: int, level: int) -> None:
    assert H264Writer(width, height, CELL, RATE).level == level


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="whole macroblocks"):
        H264Writer(100, 64, CELL, RATE)
    writer = H264Writer(64, 64, CELL, RATE)
    picture = planes_of(np.zeros((64, 64), np.uint8))
    dirty = np.ones((4, 4), np.uint8)
    with pytest.raises(ValueError, match="first picture must be IDR"):
        writer.write(*picture, dirty, False)
    with pytest.raises(ValueError, match="64x64"):
        writer.write(np.zeros((32, 64), np.uint8), *picture[1:], dirty, True)
    with pytest.raises(ValueError, match="dirty map"):
        writer.write(*picture, np.ones((2, 2), np.uint8), True)


def test_yuv_picture_says_which_rows_changed() -> None:
    picture = Yuv420Picture(Renderer(2, panel=False))
    screen = np.zeros((240, 256, 3), np.uint8)
    picture.update(screen)
    assert picture.changed_rows == (0, 480)
    picture.update(screen)
    assert picture.changed_rows[0] >= picture.changed_rows[1]  # nothing
    screen[101, 7] = 255
    picture.update(screen)
    assert picture.changed_rows == (200, 204)  # rows 100-101 (even bands), times the scale
