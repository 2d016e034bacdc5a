"""VideoWriter: frame counts, size and colours survive the round trip, an interrupted game
still leaves a playable file, and bad paths or options get one-line NesbotErrors."""

import threading
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from nesbot import video
from nesbot._core.buttons import START
from nesbot.errors import NesbotError
from nesbot.video import VideoWriter, read_first_frame, read_video_frames, save_still

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


@pytest.mark.parametrize("suffix", [".mp4", ".avi", ".MP4"])
@pytest.mark.parametrize("scale", [1, 2, 3])
def test_synthetic_round_trip(tmp_path: Path, suffix: str, scale: int) -> None:
    path = tmp_path / f"synthetic{suffix}"
    frames = synthetic_frames(37)
    with VideoWriter(path, scale=scale) as writer:
        for frame in frames:
            writer.write(frame)
    assert writer.frames_written == 37
    assert read_video_frames(path) == 37
    first = read_first_frame(path)
    assert first.shape == (240 * scale, 256 * scale, 3)
    # Away from the edge with the noise, where the codecs' 8x8/16x16 blocks smear colours.
    flat = first[(FLAT_ROWS.start + 16) * scale :, :].astype(int)
    assert np.abs(flat - np.array(FLAT_RGB)).mean() < 6


def test_frame_rate_is_the_nes_rate(tmp_path: Path) -> None:
    path = tmp_path / "rate.avi"
    with VideoWriter(path, scale=1) as writer:
        for frame in synthetic_frames(5):
            writer.write(frame)
    capture = cv2.VideoCapture(str(path))
    try:
        assert capture.get(cv2.CAP_PROP_FPS) == pytest.approx(60.0988, abs=0.01)
    finally:
        capture.release()


def last_frame_rgb(path: Path) -> np.ndarray:
    capture = cv2.VideoCapture(str(path))
    try:
        last = None
        while True:
            ok, bgr = capture.read()
            if not ok:
                break
            last = bgr
    finally:
        capture.release()
    assert last is not None
    return cv2.cvtColor(last, cv2.COLOR_BGR2RGB)


def test_real_emulator_records_every_step(rom, tmp_path: Path) -> None:
    from nesbot.emulator import Emulator

    path = tmp_path / "boot.mp4"
    with Emulator(rom.path) as emu:
        emu.power_on()
        with VideoWriter(path, scale=2) as writer:
            emu.observers.append(writer)
            screens = []
            for i in range(300):
                emu.step(START if i % 60 == 0 else 0)
                if i in (0, 299):
                    screens.append(emu.screen.copy())
    assert writer.frames_written == 300
    assert read_video_frames(path) == 300
    # The first screen is flat grey and the last the legal notice, so a writer that queued the
    # live screen view instead of a copy would fail the first comparison.
    for screen, decoded in zip(
        screens, (read_first_frame(path), last_frame_rgb(path)), strict=True
    ):
        assert decoded.shape == (480, 512, 3)
        expected = np.repeat(np.repeat(screen, 2, axis=0), 2, axis=1)
        assert np.abs(decoded.astype(int) - expected).mean() < 6


def test_write_copies_the_frame(tmp_path: Path, monkeypatch) -> None:
    """The emulator's screen is a live view: the frame must be taken at write() time, not
    when the encoder thread gets to it."""
    encoder_may_start = threading.Event()
    real_upscale = video._upscale

    def held_upscale(frame: np.ndarray, scale: int) -> np.ndarray:
        encoder_may_start.wait(10)
        return real_upscale(frame, scale)

    monkeypatch.setattr(video, "_upscale", held_upscale)
    path = tmp_path / "copied.avi"
    live = np.full((240, 256, 3), FLAT_RGB, np.uint8)
    with VideoWriter(path, scale=1) as writer:
        writer.write(live)
        live[:] = 0  # the next step redraws the screen before the encoder has run
        encoder_may_start.set()
    assert np.abs(read_first_frame(path).astype(int) - np.array(FLAT_RGB)).mean() < 6


@pytest.mark.parametrize(
    ("writer_first", "expected_frames"),
    # The interrupt comes out of Emulator.step after the frame-50 step. If the writer is
    # earlier in emu.observers it has already queued frame 50 (50 frames); if it is later, the
    # loop never reaches it for that frame (49). Nothing queued is lost: close() drains it.
    [(True, 50), (False, 49)],
)
def test_keyboard_interrupt_leaves_a_readable_file(
    rom, tmp_path: Path, writer_first: bool, expected_frames: int
) -> None:
    from nesbot.emulator import Emulator

    def interrupt_at_50(pad: int, emu: Emulator) -> None:
        if emu.frame == 50:
            raise KeyboardInterrupt

    path = tmp_path / "interrupted.mp4"
    with Emulator(rom.path) as emu:
        emu.power_on()
        with pytest.raises(KeyboardInterrupt), VideoWriter(path) as writer:
            emu.observers.extend(
                [writer, interrupt_at_50] if writer_first else [interrupt_at_50, writer]
            )
            while True:
                emu.step(0)
    assert writer.frames_written == expected_frames
    assert read_video_frames(path) == expected_frames


def test_second_interrupt_during_close_still_finishes_the_file(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "impatient.mp4"
    writer = VideoWriter(path, scale=1)
    for frame in synthetic_frames(20):
        writer.write(frame)
    real_join = writer._thread.join
    joins = 0

    def join_hit_by_ctrl_c(timeout: float | None = None) -> None:
        nonlocal joins
        joins += 1
        if joins == 1:
            raise KeyboardInterrupt  # the user presses Ctrl-C again while close() waits
        real_join(timeout)

    monkeypatch.setattr(writer._thread, "join", join_hit_by_ctrl_c)
    with pytest.raises(KeyboardInterrupt):
        writer.close()
    assert joins == 2
    assert writer.frames_written == 20
    assert read_video_frames(path) == 20


def test_unclosed_writer_is_finished_when_its_thread_ends(tmp_path: Path) -> None:
    path = tmp_path / "abandoned.mp4"
    writers: list[VideoWriter] = []

    def record_without_closing() -> None:
        writer = VideoWriter(path, scale=1)
        for frame in synthetic_frames(12):
            writer.write(frame)
        writers.append(writer)

    thread = threading.Thread(target=record_without_closing)
    thread.start()
    thread.join()
    writers[0]._thread.join(timeout=10)
    assert not writers[0]._thread.is_alive()
    assert read_video_frames(path) == 12
    with pytest.raises(ValueError, match="creator thread ended"):
        writers[0].write(synthetic_frames(1)[0])
    writers[0].close()


def test_close_is_idempotent_and_write_after_close_fails(tmp_path: Path) -> None:
    writer = VideoWriter(tmp_path / "twice.avi", scale=1)
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
    with VideoWriter(tmp_path / "shape.avi", scale=1) as writer, pytest.raises(ValueError):
        writer.write(frame)


def break_the_encoder(monkeypatch) -> None:
    def broken(frame: np.ndarray, scale: int) -> np.ndarray:
        raise RuntimeError("encoder broke")

    monkeypatch.setattr(video, "_upscale", broken)


def wait_for_encoder_error(writer: VideoWriter) -> None:
    deadline = time.monotonic() + 10
    while writer._error is None:
        assert time.monotonic() < deadline, "the encoder thread never failed"
        time.sleep(0.001)


def test_encoder_error_surfaces_on_close_once(tmp_path: Path, monkeypatch) -> None:
    break_the_encoder(monkeypatch)
    writer = VideoWriter(tmp_path / "broken.avi")
    writer.write(synthetic_frames(1)[0])
    with pytest.raises(RuntimeError, match="encoder broke"):
        writer.close()
    writer.close()
    assert writer.frames_written == 0


def test_encoder_error_surfaces_on_every_later_write(tmp_path: Path, monkeypatch) -> None:
    break_the_encoder(monkeypatch)
    writer = VideoWriter(tmp_path / "broken.avi")
    frame = synthetic_frames(1)[0]
    writer.write(frame)
    wait_for_encoder_error(writer)
    for _ in range(2):
        with pytest.raises(RuntimeError, match="encoder broke"):
            writer.write(frame)
    writer.close()  # already reported by write()
    assert writer.frames_written == 0


def test_close_after_encoder_error_does_not_hang_on_a_full_queue(
    tmp_path: Path, monkeypatch
) -> None:
    release = threading.Event()

    def broken_later(frame: np.ndarray, scale: int) -> np.ndarray:
        release.wait(10)
        raise RuntimeError("encoder broke")

    monkeypatch.setattr(video, "_upscale", broken_later)
    writer = VideoWriter(tmp_path / "broken.avi")
    # One frame stuck in the encoder, then a full queue.
    for frame in synthetic_frames(video.queue_frames(writer.scale) + 1):
        writer.write(frame)
    assert writer._queue.full()
    release.set()
    with pytest.raises(RuntimeError, match="encoder broke"):
        writer.close()
    assert not writer._thread.is_alive()


def assert_one_line_error(error: pytest.ExceptionInfo[NesbotError], *words: str) -> None:
    message = str(error.value)
    assert message and "\n" not in message
    for word in words:
        assert word in message


@pytest.mark.parametrize("name", ["game.mkv", "game", "game.mp4.tmp"])
def test_unknown_extension(tmp_path: Path, name: str) -> None:
    with pytest.raises(NesbotError) as error:
        VideoWriter(tmp_path / name)
    assert_one_line_error(error, ".mp4", ".avi", name)
    assert not (tmp_path / name).exists()


@pytest.mark.parametrize("scale", [0, 9, -1, True, 2.0])
def test_bad_scale(tmp_path: Path, scale: object) -> None:
    with pytest.raises(NesbotError) as error:
        VideoWriter(tmp_path / "game.mp4", scale=scale)  # type: ignore[arg-type]
    assert_one_line_error(error, "scale", "1 to 8", str(scale))
    assert not (tmp_path / "game.mp4").exists()


@pytest.mark.parametrize("fps", [0, -60.0, float("nan"), float("inf")])
def test_bad_frame_rate(tmp_path: Path, fps: float) -> None:
    with pytest.raises(NesbotError) as error:
        VideoWriter(tmp_path / "game.mp4", fps=fps)
    assert_one_line_error(error, "frame rate")


def test_missing_directory(tmp_path: Path) -> None:
    path = tmp_path / "no" / "such" / "game.mp4"
    with pytest.raises(NesbotError) as error:
        VideoWriter(path)
    assert_one_line_error(error, str(path), "does not exist")


def test_path_is_a_directory(tmp_path: Path) -> None:
    path = tmp_path / "game.avi"
    path.mkdir()
    with pytest.raises(NesbotError) as error:
        VideoWriter(path)
    assert_one_line_error(error, str(path), "is a directory")


def test_read_only_directory(tmp_path: Path, monkeypatch) -> None:
    # Faked because the tests may run as root, for whom every directory is writable.
    monkeypatch.setattr(video.os, "access", lambda path, mode: False)
    with pytest.raises(NesbotError) as error:
        VideoWriter(tmp_path / "game.mp4")
    assert_one_line_error(error, str(tmp_path), "not writable")


def test_codec_that_does_not_open(tmp_path: Path, monkeypatch) -> None:
    class Unopened:
        def __init__(self, *args: object) -> None:
            pass

        def isOpened(self) -> bool:
            return False

        def release(self) -> None:
            pass

    monkeypatch.setattr(video.cv2, "VideoWriter", Unopened)
    with pytest.raises(NesbotError) as error:
        VideoWriter(tmp_path / "game.mp4")
    assert_one_line_error(error, "cannot open video", "for writing", "codec mp4v")


def test_reading_a_missing_video(tmp_path: Path) -> None:
    with pytest.raises(NesbotError) as error:
        read_video_frames(tmp_path / "nothing.mp4")
    assert_one_line_error(error, "no such file")


def test_save_still(tmp_path: Path) -> None:
    frame = synthetic_frames(1)[0]
    path = tmp_path / "still.png"
    save_still(frame, path, scale=3)
    bgr = cv2.imread(str(path))
    assert bgr.shape == (720, 768, 3)
    # PNG is lossless: exactly the frame, each pixel a 3x3 block.
    expected = np.repeat(np.repeat(frame, 3, axis=0), 3, axis=1)
    assert (cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB) == expected).all()


@pytest.mark.parametrize(
    ("name", "scale", "words"),
    [("still.jpg", 2, (".png",)), ("still.png", 0, ("scale",)), ("no/still.png", 2, ("exist",))],
)
def test_save_still_bad_input(tmp_path: Path, name: str, scale: int, words: tuple[str]) -> None:
    with pytest.raises(NesbotError) as error:
        save_still(synthetic_frames(1)[0], tmp_path / name, scale=scale)
    assert_one_line_error(error, *words)
