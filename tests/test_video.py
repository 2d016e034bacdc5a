"""Videos as a player sees them: decoded back with PyAV, they are H.264 (or VP9) in yuv420p
at the NES's exact rate with the index in front; every frame played is there and shows the
emulator's screen of that frame; the overlay's outline sits on the planned cells. An
interrupted game still leaves a playable file, and bad paths or options get one-line
NesbotErrors."""

import gc
import struct
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

import av
import cv2
import numpy as np
import pytest

from nesbot._core.buttons import START
from nesbot.errors import NesbotError
from nesbot.nes.screen_layout import CELL, COLUMNS, PLAYFIELD_LEFT, PLAYFIELD_TOP, ROWS
from nesbot.show.frames import WholeFrames
from nesbot.show.overlay import PLAN_RGB, placement_cells
from nesbot.show.video import (
    VideoWriter,
    probe_video,
    read_frames,
    read_video_frames,
    save_png,
)
from nesbot.show.video.writer import BATCH_FRAMES, queue_frames

NTSC_RATE = Fraction(39_375_000, 655_171)
FLAT_RGB = (200, 76, 12)  # an NES palette orange: every channel far from the others
FLAT_ROWS = slice(120, 240)  # the lower half of the screen stays this one colour


def synthetic_frames(count: int, seed: int = 0) -> list[np.ndarray]:
    """Frames with a moving noise block (so the encoder has work) over a flat lower half."""
    rng = np.random.default_rng(seed)
    frames = []
    for i in range(count):
        frame = np.zeros((240, 256, 3), np.uint8)
        frame[:120] = rng.integers(0, 256, (120, 256, 3), dtype=np.uint8) // 4
        x = (i * 3) % 192
        frame[20:84, x : x + 64] = rng.integers(0, 256, (64, 64, 3), dtype=np.uint8)
        frame[FLAT_ROWS] = FLAT_RGB
        frames.append(frame)
    return frames


def write_video(path: Path, frames: list[np.ndarray], **options) -> VideoWriter:
    with VideoWriter(path, **options) as writer:
        for frame in frames:
            writer.write(frame)
    return writer


def upscale(screen: np.ndarray, scale: int) -> np.ndarray:
    return np.repeat(np.repeat(screen, scale, axis=0), scale, axis=1)


def luma(rgb: np.ndarray) -> np.ndarray:
    """BT.601 studio-range luma, as OpenCV computes it (not nesbot's own conversion)."""
    return cv2.cvtColor(rgb, cv2.COLOR_RGB2YUV_I420)[: rgb.shape[0]]


def psnr(a: np.ndarray, b: np.ndarray) -> float:
    mse = np.mean((a.astype(float) - b.astype(float)) ** 2)
    return float("inf") if mse == 0 else 10 * np.log10(255**2 / mse)


def decoded_luma(path: Path) -> list[np.ndarray]:
    with av.open(str(path)) as container:
        return [
            frame.to_ndarray(format="yuv420p")[: frame.height]
            for frame in container.decode(video=0)
        ]


def mp4_boxes(path: Path) -> list[str]:
    """The top-level boxes of an MP4 file, in order."""
    data = path.read_bytes()
    boxes, offset = [], 0
    while offset + 8 <= len(data):
        size, kind = struct.unpack(">I4s", data[offset : offset + 8])
        if size == 1:
            size = struct.unpack(">Q", data[offset + 8 : offset + 16])[0]
        boxes.append(kind.decode("latin-1"))
        offset += size if size else len(data)
    return boxes


@pytest.mark.parametrize("suffix", [".mp4", ".webm", ".MP4"])
@pytest.mark.parametrize("scale", [1, 2, 3])
def test_synthetic_round_trip(tmp_path: Path, suffix: str, scale: int) -> None:
    path = tmp_path / f"synthetic{suffix}"
    writer = write_video(path, synthetic_frames(37), scale=scale)
    assert writer.frames_written == 37
    facts = probe_video(path)
    assert facts.frames == 37
    assert (facts.width, facts.height) == (256 * scale, 240 * scale)
    assert facts.pix_fmt == "yuv420p"
    first = read_frames(path, [0])[0]
    # Away from the edge with the noise, where the codecs' blocks smear colours.
    flat = first[(FLAT_ROWS.start + 16) * scale :, :].astype(int)
    assert np.abs(flat - np.array(FLAT_RGB)).mean() < 6


def test_mp4_is_what_browsers_play(tmp_path: Path) -> None:
    """What makes an .mp4 play in a browser's <video> (checked once in headless Chromium):
    H.264 in a profile every browser decodes, 8-bit 4:2:0, the index (moov) before the data
    so that playback can start while it downloads, and BT.601 flagged in the stream."""
    path = tmp_path / "web.mp4"
    write_video(path, synthetic_frames(90), overlay=True)
    facts = probe_video(path)
    assert facts.codec == "h264"
    assert facts.profile == "Constrained Baseline"  # CAVLC, no B-frames (nesbot.show.video.h264)
    assert facts.pix_fmt == "yuv420p"
    assert facts.colorspace == 6  # SMPTE 170M (BT.601)
    assert (facts.width, facts.height) == (384 * 3, 720)
    boxes = mp4_boxes(path)
    assert boxes[0] == "ftyp" and boxes.index("moov") < boxes.index("mdat")


def test_x264_writes_the_same_mp4_lossy(tmp_path: Path) -> None:
    """--codec x264: PyAV's libx264, in the same container with the same rate and colour
    flags; lossy (CRF), so the frames come back close, not exact."""
    frames = synthetic_frames(60)
    path = tmp_path / "x264.mp4"
    assert write_video(path, frames, scale=2, codec="x264").frames_written == 60
    facts = probe_video(path)
    assert (facts.codec, facts.pix_fmt, facts.frames) == ("h264", "yuv420p", 60)
    assert facts.profile == "High" and facts.colorspace == 6
    assert facts.average_rate == NTSC_RATE
    assert mp4_boxes(path).index("moov") < mp4_boxes(path).index("mdat")
    decoded = decoded_luma(path)
    for index in (0, 30, 59):
        assert psnr(decoded[index], luma(upscale(frames[index], 2))) > 35


def test_codec_is_checked_before_any_frame(tmp_path: Path) -> None:
    with pytest.raises(NesbotError) as error:
        VideoWriter(tmp_path / "game.webm", codec="x264")
    assert_one_line_error(error, "--codec chooses an .mp4's encoder")
    with pytest.raises(NesbotError) as error:
        VideoWriter(tmp_path / "game.mp4", codec="h265")
    assert_one_line_error(error, "unknown codec 'h265'")


def test_rate_is_the_exact_ntsc_rate(tmp_path: Path) -> None:
    """One video frame per emulated frame at 39,375,000/655,171 frames/s: a video of n frames
    lasts n/60.0988 seconds, as long as the game did."""
    path = tmp_path / "rate.mp4"
    write_video(path, synthetic_frames(121), scale=1)
    facts = probe_video(path)
    assert facts.average_rate == NTSC_RATE
    assert facts.time_base == Fraction(1, 39_375_000)  # MP4 ticks; a frame is 655,171 of them
    assert facts.duration == pytest.approx(121 / float(NTSC_RATE), abs=1e-9)
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        assert stream.duration * stream.time_base == Fraction(121) / NTSC_RATE


def test_webm_is_vp9(tmp_path: Path) -> None:
    path = tmp_path / "game.webm"
    write_video(path, synthetic_frames(30), scale=2)
    facts = probe_video(path)
    assert (facts.codec, facts.pix_fmt, facts.frames) == ("vp9", "yuv420p", 30)
    # WebM counts milliseconds: the rate is the NES's to within its rounding.
    assert float(facts.average_rate) == pytest.approx(60.0988, abs=0.01)


def test_a_writer_given_no_frames_leaves_no_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.mp4"
    writer = write_video(path, [])
    assert writer.frames_written == 0 and not path.exists()


def test_real_emulator_records_every_step(rom, tmp_path: Path) -> None:
    from nesbot.nes.emulator import Emulator

    path = tmp_path / "boot.mp4"
    with Emulator(rom.path) as emu:
        emu.power_on()
        with VideoWriter(path, scale=2) as writer:
            frames = WholeFrames()
            frames.consumers.append(writer)
            emu.observers.append(frames)
            screens = []
            for i in range(300):
                emu.step(START if i % 60 == 0 else 0)
                if i in (0, 299):
                    screens.append(emu.screen.copy())
    # Whole frames come one step late: the last step's frame is not whole yet.
    assert writer.frames_written == 299
    decoded = read_frames(path, [0, 298])
    assert len(decoded) == 2 and read_video_frames(path) == 299
    # The first screen is flat grey and the last the legal notice, so a writer that queued the
    # live screen view instead of a copy would fail the first comparison.
    for screen, frame in zip(screens, (decoded[0], decoded[298]), strict=True):
        assert frame.shape == (480, 512, 3)
        assert psnr(luma(frame), luma(upscale(screen, 2))) > 40


# Decoded luma against the luma of the emulator's screen, upscaled. Measured on level-19
# games when x264 wrote the videos (QP 16): the same frame came back at 51 dB or more, while
# the nearest frame with a different screen (the piece one row or column away) scores at
# most 43 dB. The H.264 is lossless now; only 4:2:0 chroma and the colour conversions stand
# between the two. 46 dB keeps a few dB from both, so the test fails if the video loses
# detail or if its frames drift off the game's by even one.
SAME_FRAME_LUMA_DB = 46.0


def differing_pixels(a: np.ndarray, b: np.ndarray) -> int:
    return int(np.count_nonzero(np.any(a != b, axis=2)))


def play_and_record(emulator, new_game, path: Path, frames: int, overlay: bool):
    """A bot game from level 19 with a video of `frames` whole frames, as `play` records
    it; returns the pictures and overlay infos written."""
    from nesbot.bot.policy import Bot
    from nesbot.show.watch import GameWatch

    new_game(19, seed=5)
    bot = Bot()
    watch = GameWatch(emulator.ram, bot)
    whole = WholeFrames(watch.info)
    screens, infos = [], []

    def keep(picture: np.ndarray, info, step: int) -> None:
        screens.append(picture.copy())
        infos.append(info)

    with VideoWriter(path, scale=3, overlay=overlay) as writer:
        whole.consumers.extend([writer, keep])
        emulator.observers.extend([watch, whole])
        for _ in range(frames + 1):  # the last step makes the frame before it whole
            emulator.step(bot(emulator.ram, emulator.frame))
    emulator.observers.clear()
    return writer, screens, infos


def test_decoded_frames_are_the_emulators_screens(emulator, new_game, tmp_path: Path) -> None:
    path = tmp_path / "game.mp4"
    writer, screens, _ = play_and_record(emulator, new_game, path, 400, overlay=False)
    assert writer.frames_written == 400
    decoded = decoded_luma(path)
    assert len(decoded) == 400
    expected = [luma(upscale(screen, 3)) for screen in screens]
    distinct_neighbours = 0
    for index in range(0, 400, 7):
        scores = {
            other: psnr(decoded[index], expected[other])
            for other in range(max(0, index - 3), min(400, index + 4))
        }
        assert scores[index] >= SAME_FRAME_LUMA_DB, (index, scores)
        for other, score in scores.items():
            # Frames a few pixels apart (a lone pixel where a piece's outline moved) are as
            # alike as the same frame's decode: the bound tells apart frames that differ.
            if differing_pixels(screens[other], screens[index]) > 16:
                assert score < SAME_FRAME_LUMA_DB, (index, other, scores)
                distinct_neighbours += 1
    assert distinct_neighbours > 50  # the bound told apart frames that differ


def outlined_cells(picture: np.ndarray, scale: int) -> set[tuple[int, int]]:
    """Playfield cells with at least one whole side in the plan's outline colour (one NES
    pixel wide along the cell's edge), read from a decoded picture."""
    found = set()
    for row in range(ROWS):
        for column in range(COLUMNS):
            left = (PLAYFIELD_LEFT + column * CELL) * scale
            top = (PLAYFIELD_TOP + row * CELL) * scale
            size = CELL * scale
            sides = (
                picture[top : top + size, left : left + scale],
                picture[top : top + size, left + size - scale : left + size],
                picture[top : top + scale, left : left + size],
                picture[top + size - scale : top + size, left : left + size],
            )
            for side in sides:
                if (np.abs(side.astype(int) - PLAN_RGB) < 40).all():
                    found.add((column, row))
    return found


def test_overlay_outline_shows_the_plan_in_the_decoded_video(
    emulator, new_game, tmp_path: Path
) -> None:
    path = tmp_path / "overlay.mp4"
    writer, _, infos = play_and_record(emulator, new_game, path, 240, overlay=True)
    assert (writer.width, writer.height) == (1152, 720)
    planned = [i for i, info in enumerate(infos) if info.plan is not None]
    assert len(planned) > 150
    # Frames without a plan: a piece's first frame in RAM (not drawn yet), line clears.
    assert all(infos[i].plan is None for i in set(range(240)) - set(planned))
    wanted = planned[::9]
    decoded = read_frames(path, wanted)
    for index in wanted:
        cells = {(c, r) for c, r in placement_cells(infos[index].plan) if r >= 0}
        assert outlined_cells(decoded[index], 3) == cells, index
    # And nothing outlined where no plan is drawn.
    unplanned = [i for i in range(240) if infos[i].plan is None][:3]
    assert unplanned
    for index, picture in read_frames(path, unplanned).items():
        assert outlined_cells(picture, 3) == set(), index


def test_frames_are_copied_and_slots_reused_in_order(tmp_path: Path) -> None:
    """write() copies the screen (the emulator's is a live view, redrawn by the next step)
    into shared memory that the encoder process reads; with more frames than slots, every
    frame still comes out as it was written."""
    path = tmp_path / "copied.mp4"
    live = np.zeros((240, 256, 3), np.uint8)
    count = queue_frames(1) * 3
    with VideoWriter(path, scale=1) as writer:
        for i in range(count):
            live[:] = (i * 37 % 200 + 20, 90, 160)
            writer.write(live)
    decoded = read_frames(path, range(count))
    for i in range(count):
        assert abs(int(decoded[i][120, 128, 0]) - (i * 37 % 200 + 20)) < 6, i


@pytest.mark.parametrize(
    ("writer_first", "expected_frames"),
    # The interrupt comes out of Emulator.step after the frame-50 step. If the writer's whole
    # frames are earlier in emu.observers they have already queued frame 49 (49 frames: one
    # step late); if later, the loop never reaches them for that step (48). Nothing queued is
    # lost: close() drains it.
    [(True, 49), (False, 48)],
)
def test_keyboard_interrupt_leaves_a_readable_file(
    rom, tmp_path: Path, writer_first: bool, expected_frames: int
) -> None:
    from nesbot.nes.emulator import Emulator

    def interrupt_at_50(pad: int, emu: Emulator) -> None:
        if emu.frame == 50:
            raise KeyboardInterrupt

    path = tmp_path / "interrupted.mp4"
    with Emulator(rom.path) as emu:
        emu.power_on()
        with pytest.raises(KeyboardInterrupt), VideoWriter(path) as writer:
            frames = WholeFrames()
            frames.consumers.append(writer)
            emu.observers.extend(
                [frames, interrupt_at_50] if writer_first else [interrupt_at_50, frames]
            )
            while True:
                emu.step(0)
    assert writer.frames_written == expected_frames
    assert probe_video(path).frames == expected_frames


def test_second_interrupt_during_close_still_finishes_the_file(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "impatient.mp4"
    writer = VideoWriter(path, scale=1)
    for frame in synthetic_frames(20):
        writer.write(frame)
    real_wait = writer._wait_finished
    waits = 0

    def wait_hit_by_ctrl_c() -> None:
        nonlocal waits
        waits += 1
        if waits == 1:
            raise KeyboardInterrupt  # the user presses Ctrl-C again while close() waits
        real_wait()

    monkeypatch.setattr(writer, "_wait_finished", wait_hit_by_ctrl_c)
    with pytest.raises(KeyboardInterrupt):
        writer.close()
    assert waits == 2
    assert writer.frames_written == 20
    assert read_video_frames(path) == 20


def test_a_writer_dropped_without_close_still_finishes_its_file(tmp_path: Path) -> None:
    path = tmp_path / "abandoned.mp4"
    writer = VideoWriter(path, scale=1)
    for frame in synthetic_frames(12):
        writer.write(frame)
    del writer
    gc.collect()
    assert read_video_frames(path) == 12


@pytest.mark.parametrize("ending", ["", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"])
def test_a_program_that_ends_without_close_leaves_a_playable_file(
    tmp_path: Path, ending: str
) -> None:
    """Whether the program just ends or is killed, the encoder process finishes the file. A
    killed program cannot send the frames of its last, unfinished batch (under 0.1 s of game);
    a program that ends sends them."""
    path = tmp_path / "exit.mp4"
    expected = 25 - (25 % BATCH_FRAMES if "SIGKILL" in ending else 0)
    script = (
        "import numpy as np\n"
        "from nesbot.show.video import VideoWriter\n"
        f"writer = VideoWriter({str(path)!r}, scale=1)\n"
        "for i in range(25):\n"
        "    writer.write(np.full((240, 256, 3), i * 9, np.uint8))\n"
        f"{ending}\n"
    )
    subprocess.run([sys.executable, "-c", script], timeout=120)
    deadline = time.monotonic() + 30  # a killed program's encoder finishes on its own time
    while time.monotonic() < deadline:
        try:
            if read_video_frames(path) == expected:
                break
        except NesbotError:
            pass
        time.sleep(0.2)
    assert read_video_frames(path) == expected


def test_close_is_idempotent_and_write_after_close_fails(tmp_path: Path) -> None:
    writer = VideoWriter(tmp_path / "twice.mp4", scale=1)
    writer.write(synthetic_frames(1)[0])
    writer.close()
    writer.close()
    assert writer.frames_written == 1
    with pytest.raises(ValueError, match="already closed"):
        writer.write(synthetic_frames(1)[0])


@pytest.mark.parametrize(
    "frame",
    [
        np.zeros((240, 256), np.uint8),
        np.zeros((224, 256, 3), np.uint8),
        np.zeros((240, 256, 3), np.float32),
    ],
    ids=["grey", "short", "float"],
)
def test_wrong_frame_is_refused_not_dropped(tmp_path: Path, frame: np.ndarray) -> None:
    with VideoWriter(tmp_path / "shape.mp4", scale=1) as writer, pytest.raises(ValueError):
        writer.write(frame)


def break_the_output(writer: VideoWriter) -> None:
    """The folder goes away before the first frame: the encoder, which creates the file
    with the first frame, fails then, as it would on a full disk, in one line."""
    writer.path.parent.rmdir()


def wait_for_encoder_error(writer: VideoWriter) -> None:
    deadline = time.monotonic() + 20
    while writer._error is None:
        assert time.monotonic() < deadline, "the encoder never failed"
        writer._receive(wait=False)
        time.sleep(0.01)


def test_encoder_error_surfaces_on_close_once(tmp_path: Path) -> None:
    (tmp_path / "gone").mkdir()
    writer = VideoWriter(tmp_path / "gone" / "broken.mp4")
    break_the_output(writer)
    writer.write(synthetic_frames(1)[0])
    with pytest.raises(NesbotError, match="gone does not exist"):
        writer.close()
    writer.close()
    assert writer.frames_written == 0


def test_encoder_error_surfaces_on_every_later_write(tmp_path: Path) -> None:
    (tmp_path / "gone").mkdir()
    writer = VideoWriter(tmp_path / "gone" / "broken.mp4")
    break_the_output(writer)
    frame = synthetic_frames(1)[0]
    for _ in range(5):  # the first packets come out a few frames in
        writer.write(frame)
    wait_for_encoder_error(writer)
    for _ in range(2):
        with pytest.raises(NesbotError, match="gone does not exist"):
            writer.write(frame)
    writer.close()  # already reported by write()


def test_close_after_encoder_error_does_not_hang_with_frames_waiting(tmp_path: Path) -> None:
    (tmp_path / "gone").mkdir()
    writer = VideoWriter(tmp_path / "gone" / "broken.mp4")
    break_the_output(writer)
    # raised by a later write, or by close()
    with pytest.raises(NesbotError, match="gone does not exist"):
        for frame in synthetic_frames(queue_frames(writer.scale) * 3):
            writer.write(frame)
        writer.close()
    writer.close()
    assert writer._process.poll() is not None


def test_an_encoder_that_dies_is_an_error_not_a_hang(tmp_path: Path) -> None:
    writer = VideoWriter(tmp_path / "killed.mp4", scale=1)
    writer.write(synthetic_frames(1)[0])
    writer._process.kill()
    writer._process.wait()
    with pytest.raises(NesbotError, match=r"encoder .* stopped"):
        for frame in synthetic_frames(queue_frames(1) * 2):
            writer.write(frame)
        writer.close()


def assert_one_line_error(error: pytest.ExceptionInfo[NesbotError], *words: str) -> None:
    message = str(error.value)
    assert message and "\n" not in message
    for word in words:
        assert word in message


@pytest.mark.parametrize("name", ["game.mkv", "game", "game.mp4.tmp", "game.avi"])
def test_unknown_extension(tmp_path: Path, name: str) -> None:
    with pytest.raises(NesbotError) as error:
        VideoWriter(tmp_path / name)
    assert_one_line_error(error, ".mp4", ".webm", name)
    assert not (tmp_path / name).exists()


@pytest.mark.parametrize("scale", [0, 9, -1, True, 2.0])
def test_bad_scale(tmp_path: Path, scale: object) -> None:
    with pytest.raises(NesbotError) as error:
        VideoWriter(tmp_path / "game.mp4", scale=scale)  # type: ignore[arg-type]
    assert_one_line_error(error, "scale", "1 to 8", str(scale))
    assert not (tmp_path / "game.mp4").exists()


def test_missing_directory(tmp_path: Path) -> None:
    path = tmp_path / "no" / "such" / "game.mp4"
    with pytest.raises(NesbotError) as error:
        VideoWriter(path)
    assert_one_line_error(error, str(path), "does not exist")


def test_path_is_a_directory(tmp_path: Path) -> None:
    path = tmp_path / "game.mp4"
    path.mkdir()
    with pytest.raises(NesbotError) as error:
        VideoWriter(path)
    assert_one_line_error(error, str(path), "is a directory")


def test_read_only_directory() -> None:
    # /proc refuses new files even to root, for whom every permission check passes.
    with pytest.raises(NesbotError) as error:
        VideoWriter(Path("/proc/game.mp4"))
    assert_one_line_error(error, "/proc", "refuses new files")


def test_pyav_without_the_encoder(tmp_path: Path, monkeypatch) -> None:
    def no_codec(name: str, mode: str = "r"):
        raise av.codec.codec.UnknownCodecError(name)

    monkeypatch.setattr(av, "Codec", no_codec)
    with pytest.raises(NesbotError) as error:
        VideoWriter(tmp_path / "game.webm")
    assert_one_line_error(error, "cannot write video", "no libvpx-vp9 encoder")
    VideoWriter(tmp_path / "game.mp4").close()  # written by nesbot, not a PyAV encoder


def test_reading_what_is_not_a_video(tmp_path: Path) -> None:
    with pytest.raises(NesbotError) as error:
        read_video_frames(tmp_path / "nothing.mp4")
    assert_one_line_error(error, "no such file")
    junk = tmp_path / "junk.mp4"
    junk.write_bytes(b"not a video at all" * 10)
    with pytest.raises(NesbotError) as error:
        probe_video(junk)
    assert_one_line_error(error, "cannot read video")


def test_save_png_is_lossless(tmp_path: Path) -> None:
    picture = upscale(synthetic_frames(1)[0], 3)
    path = tmp_path / "still.png"
    save_png(picture, path)
    assert (cv2.cvtColor(cv2.imread(str(path)), cv2.COLOR_BGR2RGB) == picture).all()


@pytest.mark.parametrize(
    ("name", "words"), [("still.jpg", (".png",)), ("no/still.png", ("exist",))]
)
def test_save_png_bad_path(tmp_path: Path, name: str, words: tuple[str]) -> None:
    with pytest.raises(NesbotError) as error:
        save_png(synthetic_frames(1)[0], tmp_path / name)
    assert_one_line_error(error, *words)
