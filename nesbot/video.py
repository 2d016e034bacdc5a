"""Record the emulator's screen to a video file, one video frame per emulated frame.

Use ``VideoWriter`` as a context manager and append it to ``Emulator.observers``; it copies
``emu.screen`` after every step from then on, so attach it after the menus to leave out the
~24,000 boot and menu frames (almost 7 minutes). The file is complete only after ``close()``,
which the ``with`` block calls on any exit, KeyboardInterrupt included: an .mp4 whose writer was
never closed has no index and cannot be played. Killing the process (SIGKILL) loses it anyway.

* The container follows the extension: ``.mp4`` (MPEG-4 Part 2, fourcc ``mp4v``) or ``.avi``
  (Motion JPEG, ``MJPG``). The picture is the NES's 256x240 screen times an integer ``scale``
  (1-8, nearest neighbour, so pixels stay sharp); the default rate is the NTSC NES's 60.0988.
  Desktop players and ffmpeg play both; most browsers play neither (opencv-python has no H.264).
* Encoding runs on a background thread because it costs about 2 ms per frame at scale 2 (4 at
  scale 3, 25 at scale 8), as much as the emulator's own step; OpenCV releases the GIL while it
  encodes, so given a spare CPU core the encoding overlaps the emulation. ``write()`` itself only
  converts and copies the frame (tens of microseconds) and blocks only while
  ``queue_frames(scale)`` frames already wait: memory stays bounded (each waiting frame is the
  unscaled 184 KB) and, when the encoder is slower than the game, the game slows to its pace.
* ``close()`` waits for the queue to drain (a fraction of a second at any scale), even through
  further Ctrl-C presses, and then every frame passed to ``write()`` is in the file and counted
  by ``frames_written``. If the thread that created the writer ends without closing it, the
  encoder thread finishes the file by itself.
* Problems with the path, extension, scale or codec raise ``NesbotError`` from the constructor,
  before any frame is written. A frame of the wrong shape or type is a programming error
  (``ValueError``).
* ``read_video_frames``, ``read_first_frame`` and ``save_still`` serve the tests and the
  README's screenshot.
"""

import math
import os
import queue
import threading
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Self

import cv2
import numpy as np

from nesbot.errors import NesbotError

if TYPE_CHECKING:
    from nesbot.emulator import Emulator

SCREEN_HEIGHT = 240
SCREEN_WIDTH = 256
NTSC_FPS = 60.0988  # 39,375,000 / 655,171 frames per second (NTSC NES)
MAX_SCALE = 8
CODECS: dict[str, str] = {".mp4": "mp4v", ".avi": "MJPG"}
# Frames that may wait for the encoder at scale 1 (184 KB each: ~12 MB); fewer at larger
# scales, where each costs more to encode, so that close() drains in well under a second.
QUEUE_FRAMES = 64
# How often an idle encoder thread checks whether its creator has gone away.
_OWNER_POLL_SECONDS = 0.1
_STOP = None  # queue sentinel: no more frames


def _check_scale(scale: object) -> int:
    # bool is an int subclass; scale=True is a caller's mistake, not 1.
    if not isinstance(scale, int) or isinstance(scale, bool) or not 1 <= scale <= MAX_SCALE:
        raise NesbotError(f"the scale must be a whole number from 1 to {MAX_SCALE}, not {scale}")
    return scale


def _check_output_path(path: Path, what: str) -> None:
    # OpenCV reports none of these itself: VideoWriter just fails to open and imwrite just
    # returns False, so name the reason while it can still be known.
    parent = path.parent
    if not parent.is_dir():
        raise NesbotError(f"cannot write {what} {path}: the directory {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise NesbotError(f"cannot write {what} {path}: the directory {parent} is not writable")
    if path.is_dir():
        raise NesbotError(f"cannot write {what} {path}: it is a directory")


def _check_frame(rgb_frame: np.ndarray) -> None:
    # cv2.VideoWriter silently drops frames whose size differs from the one it was opened
    # with, so a wrong shape would only show up as a short video.
    if not isinstance(rgb_frame, np.ndarray) or rgb_frame.dtype != np.uint8:
        raise ValueError("a frame must be a uint8 numpy array")
    if rgb_frame.shape != (SCREEN_HEIGHT, SCREEN_WIDTH, 3):
        raise ValueError(
            f"a frame must be {SCREEN_HEIGHT}x{SCREEN_WIDTH}x3 RGB, not {rgb_frame.shape}"
        )


def queue_frames(scale: int) -> int:
    """How many frames write() lets wait for the encoder before it blocks."""
    return max(8, QUEUE_FRAMES // scale)


def _upscale(bgr_frame: np.ndarray, scale: int) -> np.ndarray:
    if scale == 1:
        return bgr_frame
    size = (SCREEN_WIDTH * scale, SCREEN_HEIGHT * scale)
    return cv2.resize(bgr_frame, size, interpolation=cv2.INTER_NEAREST)


class VideoWriter:
    """An emulator observer that encodes every frame it sees (see the module docstring)."""

    def __init__(self, path: str | os.PathLike[str], scale: int = 2, fps: float = NTSC_FPS) -> None:
        self.path = Path(path)
        codec = CODECS.get(self.path.suffix.lower())
        if codec is None:
            supported = " or ".join(CODECS)
            raise NesbotError(f"cannot write video {self.path}: the name must end in {supported}")
        self.scale = _check_scale(scale)
        if not isinstance(fps, int | float) or not math.isfinite(fps) or fps <= 0:
            raise NesbotError(f"the video frame rate must be a positive number, not {fps}")
        self.fps = float(fps)
        self.codec = codec
        _check_output_path(self.path, "video")
        self.width = SCREEN_WIDTH * self.scale
        self.height = SCREEN_HEIGHT * self.scale
        self._writer = cv2.VideoWriter(
            str(self.path), cv2.VideoWriter_fourcc(*codec), self.fps, (self.width, self.height)
        )
        if not self._writer.isOpened():
            self._writer.release()
            raise NesbotError(f"cannot open video {self.path} for writing (codec {codec})")
        self.frames_written = 0  # frames encoded so far; final once close() has returned
        self._closed = False
        self._error: BaseException | None = None
        self._error_reported = False
        self._queue: queue.Queue[np.ndarray | None] = queue.Queue(maxsize=queue_frames(self.scale))
        self._owner = threading.current_thread()
        # Not a daemon: a daemon thread is killed at interpreter exit mid-file, leaving an
        # unplayable .mp4; this one finishes the file when its owner is gone instead.
        self._thread = threading.Thread(
            target=self._encode_loop, name=f"video {self.path.name}", daemon=False
        )
        self._thread.start()

    def __call__(self, pad: int, emu: "Emulator") -> None:
        """Observer entry point: record the screen the step just drew."""
        self.write(emu.screen)

    def write(self, rgb_frame: np.ndarray) -> None:
        """Queue one 240x256x3 RGB frame; it is copied, so a live view is fine."""
        if self._closed:
            raise ValueError(f"the video {self.path} is already closed")
        if not self._thread.is_alive():  # its creator thread ended; queued frames would block
            raise ValueError(f"the video {self.path} was finished when its creator thread ended")
        self._raise_encoder_error()
        _check_frame(rgb_frame)
        # cvtColor makes the copy the live screen needs and the BGR order OpenCV wants.
        self._queue.put(cv2.cvtColor(rgb_frame, cv2.COLOR_RGB2BGR))

    def close(self) -> None:
        """Finish the file (idempotent). Raises an error the encoder thread met, unless
        write() already has; write() raises it every time, since nothing more is encoded."""
        if not self._closed:
            self._closed = True
            stop_sent = False
            interrupted: KeyboardInterrupt | None = None
            # A second Ctrl-C must not abandon the drain: the file is only playable after
            # the encoder thread's release(), which comes within queue_frames() encodes.
            while self._thread.is_alive():
                try:
                    if not stop_sent:
                        self._queue.put(_STOP)  # may wait for room in a full queue
                        stop_sent = True
                    self._thread.join()
                except KeyboardInterrupt as error:
                    interrupted = error
            if interrupted is not None:
                raise interrupted
        self._raise_encoder_error(again=False)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _raise_encoder_error(self, again: bool = True) -> None:
        if self._error is not None and (again or not self._error_reported):
            self._error_reported = True
            raise self._error

    def _encode_loop(self) -> None:
        try:
            while True:
                try:
                    frame = self._queue.get(timeout=_OWNER_POLL_SECONDS)
                except queue.Empty:
                    if self._owner.is_alive():
                        continue
                    break  # the creator ended without close(): finish the file ourselves
                if frame is _STOP:
                    break
                if self._error is not None:
                    continue  # keep draining so close() never blocks on a full queue
                try:
                    self._writer.write(_upscale(frame, self.scale))
                    self.frames_written += 1
                except Exception as error:
                    self._error = error
        finally:
            self._writer.release()


def read_video_frames(path: str | os.PathLike[str]) -> int:
    """Count the frames by decoding them all (the container's frame count can be wrong)."""
    capture = _open_capture(Path(path))
    try:
        count = 0
        while capture.grab():
            count += 1
        return count
    finally:
        capture.release()


def read_first_frame(path: str | os.PathLike[str]) -> np.ndarray:
    """The first frame of a video as an RGB array at the video's size."""
    capture = _open_capture(Path(path))
    try:
        ok, bgr = capture.read()
    finally:
        capture.release()
    if not ok:
        raise NesbotError(f"cannot read video {path}: it has no frames")
    return cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)


def _open_capture(path: Path) -> cv2.VideoCapture:
    if not path.is_file():
        raise NesbotError(f"cannot read video {path}: no such file")
    capture = cv2.VideoCapture(str(path))
    if not capture.isOpened():
        capture.release()
        raise NesbotError(f"cannot read video {path}: OpenCV cannot open it")
    return capture


def save_still(rgb_frame: np.ndarray, path_png: str | os.PathLike[str], scale: int = 2) -> None:
    """Write one 240x256x3 RGB frame as a PNG, upscaled like the video."""
    path = Path(path_png)
    if path.suffix.lower() != ".png":
        raise NesbotError(f"cannot write still {path}: the name must end in .png")
    scale = _check_scale(scale)
    _check_output_path(path, "still")
    _check_frame(rgb_frame)
    bgr = _upscale(cv2.cvtColor(rgb_frame, cv2.COLOR_RGB2BGR), scale)
    try:
        written = cv2.imwrite(str(path), bgr)
    except cv2.error:
        written = False
    if not written:
        raise NesbotError(f"cannot write still {path}")
