"""Record the game to a video file, one video frame per emulated frame, encoded by PyAV.

Use ``VideoWriter`` as a context manager and append it to ``Emulator.observers``; it copies
``emu.screen`` after every step from then on, so attach it after the menus to leave out the
~24,000 boot and menu frames (almost 7 minutes). The file is complete only after ``close()``,
which the ``with`` block calls on any exit, KeyboardInterrupt included: an .mp4 whose encoder
never finished has no index and cannot be played. The encoder runs in a process of its own and
finishes the file even when the game's process ends without closing it, or is killed.

* The container follows the extension. ``.mp4`` is H.264 in yuv420p with the index at the
  front (``+faststart``), which browsers and phones play, even while it downloads; ``.webm``
  is VP9 (libvpx, which PyAV's wheels carry). The time base is the NTSC NES's exact rate,
  39,375,000/655,171 (60.0988) frames per second, and frame n has timestamp n, so the video
  lasts exactly as long as the game did. The picture is the NES's 256x240 screen times an
  integer ``scale`` (1-8, nearest neighbour, so pixels stay sharp; 3 makes 720 lines), with
  the --overlay panel beside it when ``overlay`` is set (nesbot/overlay.py).
* The colours are BT.601, limited range, and say so in the stream, so that players do not
  guess BT.709 for a picture this size. 4:2:0 halves the colour resolution: a one-pixel line
  of colour on the NES smears a little at its edges, as on every H.264 web video.
* The .mp4's pictures are written by nesbot._core.h264, not by an encoder: each 16x16 block
  is a skip, a motion from the last few pictures or a flat prediction when one reproduces it
  exactly, else its samples. The video is lossless (every frame decodes to exactly the
  yuv420p picture it was given), a little larger than x264 made at QP 16 (a whole
  level-19 game with --overlay: ~1.8 kB a frame, 1 Mbit/s), and costs ~0.07 ms a frame
  where x264 took ~1 ms: on two cores, x264's work beside the game slowed the game by a
  quarter. VP9 goes through PyAV's libvpx encoder, which is slower.
* Encoding runs in a process of its own: drawing and colour conversion cost about as much as
  the writing, and in a process the game and the encoder never wait for each other's GIL.
  The observer copies the screen into shared memory with nes-py's C copy and sends its slot
  number (and the overlay's FrameInfo) down a socket, in batches of ``BATCH_FRAMES`` frames:
  each message wakes the encoder process, which costs the game on a virtual machine. It
  blocks only while ``queue_frames(scale)`` frames already wait, so memory stays bounded
  and, when the encoder is slower than the game, the game slows to its pace.
  The encoder process has a process group of its own, so Ctrl-C at the terminal reaches the
  game's process alone, which then closes the file.
* ``close()`` sends the stop and waits for the encoder to finish the file (a fraction of a
  second), even through further Ctrl-C presses; then every frame passed to ``write()`` is in
  the file and counted by ``frames_written``. A writer dropped without ``close()``, or whose
  program ends or dies, has its file finished by the encoder all the same (it sees the stop,
  or the end of the socket; a killed program's last batch was never sent). A writer given
  no frames leaves no file (PyAV creates it with the first frame). Errors in the encoder
  come back to the writer: ``write()`` raises them from then on, ``close()`` once.
* Problems with the path, extension or scale raise ``NesbotError`` from the constructor, before
  any frame is written. A frame of the wrong shape or type is a programming error
  (``ValueError``).
* ``probe_video``, ``read_frames`` and ``read_video_frames`` read videos back (the tests, the
  README's still); ``save_png`` writes a picture losslessly (--still).
"""

import contextlib
import os
import pickle
import socket
import struct
import subprocess
import sys
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction
from multiprocessing import shared_memory
from multiprocessing.connection import Connection
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Self

import av
import cv2
import numpy as np

from nesbot._core.h264 import H264Writer
from nesbot.errors import NesbotError
from nesbot.overlay import (
    CELL,
    SCREEN_HEIGHT,
    SCREEN_WIDTH,
    Figures,
    FrameInfo,
    Renderer,
    check_scale,
)
from nesbot.pace import NTSC_RATE

if TYPE_CHECKING:
    from nesbot.emulator import Emulator

DEFAULT_SCALE = 3  # 720 lines, a standard HD height


@dataclass(frozen=True)
class Format:
    """How one extension is written: container, codec, and the options of PyAV's encoder
    and muxer. `written_here`: the pictures come from nesbot._core.h264, not PyAV."""

    container: str
    codec: str
    codec_options: dict[str, str]
    container_options: dict[str, str]
    written_here: bool = False


FORMATS: dict[str, Format] = {
    ".mp4": Format("mp4", "h264", {}, {"movflags": "+faststart"}, written_here=True),
    # VP9 in real-time mode: the good-quality modes encode a few frames per second at 720p.
    ".webm": Format(
        "webm",
        "libvpx-vp9",
        {"deadline": "realtime", "cpu-used": "8", "row-mt": "1", "crf": "24", "b": "0"},
        {},
    ),
}
# libvpx would start a thread per core; the game needs one of the two cores the project
# plans for, so the encoder runs in this module's thread alone.
ENCODER_THREADS = 1
# An IDR picture every 30 seconds: a browser seeks from the one before the time asked for,
# decoding the pictures between (mostly skips, fast); each costs ~0.5 MB at 720 lines.
KEYFRAME_INTERVAL = 1800
_TIME_BASE = 1 / NTSC_RATE  # a frame's timestamp is its index
# FFmpeg's codes for what cv2's RGB->I420 produces: BT.601 (SMPTE 170M) in limited range.
_BT601, _LIMITED_RANGE = 6, 1
# Frames that may wait for the encoder at scale 1 (184 KB each: ~12 MB); fewer at larger
# scales, where each costs more to encode, so that close() drains in well under a second.
QUEUE_FRAMES = 64
# Frames sent to the encoder in one message (fewer when the queue is short).
BATCH_FRAMES = 4
_SCREEN_BYTES = SCREEN_HEIGHT * SCREEN_WIDTH * 3


def _check_output_path(path: Path, what: str) -> None:
    # PyAV and OpenCV would report these late (PyAV creates the file with the first frame)
    # or not at all (imwrite returns False), so name the reason while it can still be known.
    parent = path.parent
    if not parent.is_dir():
        raise NesbotError(f"cannot write {what} {path}: the directory {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise NesbotError(f"cannot write {what} {path}: the directory {parent} is not writable")
    if path.is_dir():
        raise NesbotError(f"cannot write {what} {path}: it is a directory")


def _check_screen(screen: np.ndarray) -> None:
    if not isinstance(screen, np.ndarray) or screen.dtype != np.uint8:
        raise ValueError("a frame must be a uint8 numpy array")
    if screen.shape != (SCREEN_HEIGHT, SCREEN_WIDTH, 3):
        raise ValueError(
            f"a frame must be {SCREEN_HEIGHT}x{SCREEN_WIDTH}x3 RGB, not {screen.shape}"
        )


def queue_frames(scale: int) -> int:
    """How many frames write() lets wait for the encoder before it blocks."""
    return max(8, QUEUE_FRAMES // scale)


def video_format(path: Path) -> Format:
    """The format a video path asks for, or NesbotError naming the ones there are."""
    found = FORMATS.get(path.suffix.lower())
    if found is None:
        supported = " or ".join(FORMATS)
        raise NesbotError(f"cannot write video {path}: the name must end in {supported}")
    return found


# RGB -> BT.601 limited-range Y, Cb, Cr, as rows of cv2.transform's matrix (the last
# column is the offset, in 0-255 units).
_BT601_RGB_TO_YCBCR = (
    np.array(
        [
            [65.481, 128.553, 24.966, 16 * 255],
            [-37.797, -74.203, 112.0, 128 * 255],
            [112.0, -93.786, -18.214, 128 * 255],
        ]
    )
    / 255
)


class Yuv420Picture:
    """The encoder's picture as yuv420p planes.

    Converting the 256x240 screen and then upscaling each plane costs a third of converting
    the upscaled picture (about 0.3 ms a frame at scale 3 instead of 0.9). Luma is the
    nearest-neighbour upscale of the screen's; each chroma sample (one per 2x2 pixels of the
    picture) is the colour of the screen pixel nearest its centre, not the average of the
    pixels it covers: pixel art keeps its colours, and edges move by at most one picture pixel.
    The panel is converted only when its figures change, and of the screen only the band of
    rows that differ from the last frame's (about half of a game's frames repeat the one
    before, and most others change a piece's few rows). After `update`, `changed_rows`
    (picture rows [top, bottom) of the NES picture) and `panel_changed` say what may differ
    from the last frame's planes.
    """

    def __init__(self, renderer: Renderer) -> None:
        self.renderer = renderer
        self.width, self.height = renderer.width, renderer.height
        self.planes = (
            np.zeros((self.height, self.width), np.uint8),
            np.full((self.height // 2, self.width // 2), 128, np.uint8),
            np.full((self.height // 2, self.width // 2), 128, np.uint8),
        )
        self._last: np.ndarray | None = None  # the last screen converted, outlines included
        self._panel_for: Figures | None = None
        self.changed_rows = (0, 0)
        self.panel_changed = False

    def update(self, screen: np.ndarray, info: FrameInfo | None = None) -> bool:
        """Make the planes show this frame; False when it is the last frame again."""
        renderer = self.renderer
        native = renderer.screen(screen, info)
        top, bottom = self._changed_rows(native)
        self.changed_rows = (top * renderer.scale, bottom * renderer.scale)
        self.panel_changed = False
        changed = top < bottom
        if changed:
            ycbcr = cv2.transform(native[top:bottom], _BT601_RGB_TO_YCBCR)
            s = renderer.scale
            for index, source in enumerate(cv2.split(ycbcr)):
                half = 1 if index == 0 else 2  # chroma planes are half the size
                # Even rows: at every scale a band of them starts on a whole chroma row, and
                # nearest neighbour maps it as it maps the whole screen.
                rows = slice(top * s // half, bottom * s // half)
                band = self.planes[index][rows, : renderer.nes_width // half]
                size = (band.shape[1], band.shape[0])
                cv2.resize(source, size, dst=band, interpolation=cv2.INTER_NEAREST)
        if renderer.panel and info is not None and info.figures != self._panel_for:
            changed = self.panel_changed = True
            self._panel_for = info.figures
            panel = np.ascontiguousarray(renderer.panel_picture(info.figures))
            i420 = cv2.cvtColor(panel, cv2.COLOR_RGB2YUV_I420)
            height, width = self.height, renderer.panel_width
            chroma = (height // 2, width // 2)
            quarter = height // 4
            self.planes[0][:, renderer.nes_width :] = i420[:height]
            self.planes[1][:, renderer.nes_width // 2 :] = i420[height : height + quarter].reshape(
                chroma
            )
            self.planes[2][:, renderer.nes_width // 2 :] = i420[height + quarter :].reshape(chroma)
        return changed

    def _changed_rows(self, native: np.ndarray) -> tuple[int, int]:
        """The band of screen rows [top, bottom) that differ from the last screen, widened
        to even rows; then remembers this screen."""
        if self._last is None:
            self._last = native.copy()
            return 0, SCREEN_HEIGHT
        # Rows as 96 uint64 words: a fast compare (cv2.reduce takes 20 times as long).
        rows_now = native.reshape(SCREEN_HEIGHT, -1).view(np.uint64)
        rows_then = self._last.reshape(SCREEN_HEIGHT, -1).view(np.uint64)
        changed = np.flatnonzero((rows_now != rows_then).any(axis=1))
        if changed.size == 0:
            return 0, 0
        top, bottom = int(changed[0]) & ~1, (int(changed[-1]) + 2) & ~1
        self._last[top:bottom] = native[top:bottom]
        return top, bottom

    def frame(self) -> av.VideoFrame:
        """A new yuv420p VideoFrame of the planes as they are (the encoder may keep it)."""
        frame = av.VideoFrame(self.width, self.height, "yuv420p")
        for plane, data in zip(frame.planes, self.planes, strict=True):
            if plane.line_size == data.shape[1]:
                plane.update(data)  # type: ignore[arg-type]  # PyAV takes any buffer
            else:  # rows padded for alignment
                rows = np.frombuffer(plane, np.uint8).reshape(-1, plane.line_size)
                rows[: data.shape[0], : data.shape[1]] = data
        return frame


def check_video_path(path: Path) -> Format:
    """The format of a video path that can be written, or NesbotError (checked before a
    game, not after)."""
    found = video_format(path)
    _check_output_path(path, "video")
    return found


class Encoder:
    """Encodes frames into one file, in the calling thread: the encoder process's work.

    The container is opened with the first frame (so a writer given no frames leaves no
    file). `finish()` writes what the encoder still holds and the index; it also runs after
    an error, so that the frames before it play.
    """

    def __init__(self, path: Path, scale: int, overlay: bool) -> None:
        self.path = path
        self.format = video_format(path)
        self.picture = Yuv420Picture(Renderer(scale, panel=overlay))
        self.frames = 0  # frames given to encode()
        self._container: av.container.OutputContainer | None = None
        self._stream: av.VideoStream | av.stream.Stream | None = None
        self._h264: H264Writer | None = None
        if self.format.written_here:
            width, height = self.picture.width, self.picture.height
            self._h264 = H264Writer(width, height, CELL * scale, float(NTSC_RATE))
            self._dirty = np.zeros((height // 16, width // 16), np.uint8)
            self._panel_column = self.picture.renderer.nes_width // 16

    def prepare(self, screen: np.ndarray, info: FrameInfo | None) -> av.VideoFrame | np.ndarray:
        """What encode() needs of a screen, which the caller may reuse after: for PyAV's
        encoder a VideoFrame, for the .mp4's writer the map of macroblocks that may differ
        from the last frame (the planes themselves stay in `picture`)."""
        picture = self.picture
        picture.update(screen, info)
        if self._h264 is None:
            return picture.frame()
        dirty = self._dirty
        dirty.fill(0)
        top, bottom = picture.changed_rows
        if top < bottom:
            dirty[top // 16 : (bottom + 15) // 16, : self._panel_column] = 1
        if picture.panel_changed:
            dirty[:, self._panel_column :] = 1
        return dirty

    def encode(self, prepared: av.VideoFrame | np.ndarray) -> None:
        """Add the frame prepare() made ready."""
        if self._container is None:
            self._container, self._stream = self._open()
        if self._h264 is None:
            assert isinstance(prepared, av.VideoFrame) and isinstance(self._stream, av.VideoStream)
            prepared.pts = self.frames
            self._container.mux(self._stream.encode(prepared))
        else:
            assert isinstance(prepared, np.ndarray)
            keyframe = self.frames % KEYFRAME_INTERVAL == 0
            packet = av.Packet(self._h264.write(*self.picture.planes, prepared, keyframe))
            packet.pts = packet.dts = self.frames
            packet.duration = 1
            packet.time_base = _TIME_BASE
            assert self._stream is not None
            packet.stream = self._stream
            packet.is_keyframe = keyframe
            self._container.mux(packet)
        self.frames += 1

    def finish(self) -> None:
        container = self._container
        if container is None:
            return
        try:
            if self._h264 is None:
                assert isinstance(self._stream, av.VideoStream)
                container.mux(self._stream.encode(None))  # the frames the codec still holds
        finally:
            self._container = None
            container.close()  # writes the index (and moves it to the front)

    def _open(self) -> tuple[av.container.OutputContainer, av.VideoStream | av.stream.Stream]:
        fmt = self.format
        width, height = self.picture.width, self.picture.height
        container = av.open(
            str(self.path), mode="w", format=fmt.container, options=fmt.container_options
        )
        try:
            if self._h264 is not None:
                # The muxer takes the SPS and PPS from the first picture, which carries them.
                stream = container.add_mux_stream(
                    fmt.codec, rate=NTSC_RATE, width=width, height=height
                )
                stream.time_base = _TIME_BASE
                return container, stream
            stream = container.add_stream(fmt.codec, rate=NTSC_RATE)
            assert isinstance(stream, av.VideoStream)
            stream.width, stream.height = width, height
            stream.pix_fmt = "yuv420p"
            stream.time_base = _TIME_BASE
            stream.options = dict(fmt.codec_options)
            context = stream.codec_context
            assert isinstance(context, av.VideoCodecContext)
            context.thread_count = ENCODER_THREADS
            context.colorspace = context.color_primaries = context.color_trc = _BT601
            context.color_range = _LIMITED_RANGE
        except BaseException:
            container.close()
            raise
        return container, stream


# Messages between VideoWriter and its encoder process (Connection.send_bytes).
# writer -> encoder: frames, a batch of records: a frame in this slot, then a pickled
# FrameInfo of this many bytes (0: none).
_FRAME = struct.Struct("<II")
_STOP = b"stop"  # writer -> encoder: no more frames
_READY = b"r"  # encoder -> writer: started, shared memory mapped
_TAKEN = b"t"  # encoder -> writer: + how many (uint32) of the oldest slots are free again
_ERROR = b"e"  # encoder -> writer: + the pickled exception; later frames are dropped
_CLOSED = b"c"  # encoder -> writer: + frames in the file (uint32); the file is complete


def _pickled_error(error: BaseException) -> bytes:
    try:
        return pickle.dumps(error)
    except Exception:  # an exception that does not pickle still reaches the user
        return pickle.dumps(RuntimeError(f"{type(error).__name__}: {error}"))


def _encoder_process(path: str, scale: int, overlay: bool, memory: str, slots: int, conn) -> None:
    """The encoder process: frames arrive in shared memory, in slot order. It encodes every
    frame it is sent, even once the writer has stopped listening (a writer dropped without
    close() only sends the stop)."""
    # OpenCV would spread a resize over every core, the game's too; the encoder keeps to one.
    cv2.setNumThreads(1)
    shared = shared_memory.SharedMemory(name=memory, track=False)
    screens = np.ndarray((slots, SCREEN_HEIGHT, SCREEN_WIDTH, 3), np.uint8, buffer=shared.buf)
    encoder = Encoder(Path(path), scale, overlay)
    failed = False
    _send_quietly(conn, _READY)  # the memory is mapped: it may be unlinked from now on
    try:
        while True:
            try:
                message = conn.recv_bytes()
            except (EOFError, OSError):
                break  # the writer's process ended without closing: finish the file
            if message == _STOP:
                break
            offset = taken = 0
            while offset < len(message):
                slot, info_size = _FRAME.unpack_from(message, offset)
                offset += _FRAME.size
                info = pickle.loads(message[offset : offset + info_size]) if info_size else None
                offset += info_size
                taken += 1
                if failed:
                    continue
                try:
                    encoder.encode(encoder.prepare(screens[slot], info))
                except Exception as error:
                    failed = True
                    _send_quietly(conn, _ERROR + _pickled_error(error))
            _send_quietly(conn, _TAKEN + struct.pack("<I", taken))
    finally:
        try:
            encoder.finish()
        except Exception as error:
            encoder.frames = 0  # the file could not be finished: it holds none that play
            if not failed:
                _send_quietly(conn, _ERROR + _pickled_error(error))
        _send_quietly(conn, _CLOSED + struct.pack("<I", encoder.frames))
        del screens
        shared.close()


def encoder_main() -> None:
    """Entry point of the encoder process (VideoWriter starts it; see _start_encoder)."""
    fd, path, scale, overlay, memory, slots = sys.argv[1:7]
    conn = Connection(int(fd))
    try:
        _encoder_process(path, int(scale), overlay == "1", memory, int(slots), conn)
    except Exception as error:  # before any frame: the writer reports it as the encoder gone
        print(f"nesbot video encoder: {error}", file=sys.stderr)
        sys.exit(1)


def _start_encoder(path: Path, scale: int, overlay: bool, memory: str, slots: int):
    """Start the encoder process; returns it and the writer's end of its connection.

    A plain `python -c` process rather than multiprocessing's spawn, which would import the
    user's main module again (a script without a __main__ guard would run twice). It gets
    its own process group, so that Ctrl-C at the terminal reaches only the writer's process,
    which then closes the file properly; the encoder ends when the writer says so or goes.
    """
    ours, theirs = socket.socketpair()
    package_root = str(Path(__file__).resolve().parent.parent)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, env.get("PYTHONPATH")]))
    command = [sys.executable, "-c", "from nesbot.video import encoder_main; encoder_main()"]
    args = [theirs.fileno(), path, scale, "1" if overlay else "0", memory, slots]
    process = subprocess.Popen(
        [*command, *map(str, args)],
        pass_fds=(theirs.fileno(),),
        stdin=subprocess.DEVNULL,
        env=env,
        process_group=0,
    )
    theirs.close()
    conn = Connection(os.dup(ours.fileno()))
    ours.close()
    return process, conn


def _send_quietly(conn, message: bytes) -> None:
    with contextlib.suppress(OSError):  # the writer is gone; the file is what matters
        conn.send_bytes(message)


class VideoWriter:
    """An emulator observer that encodes every frame it sees (see the module docstring).

    `info`, if given, is called for each observed frame and its FrameInfo drawn by the
    overlay (only with `overlay`).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        scale: int = DEFAULT_SCALE,
        overlay: bool = False,
        info: Callable[[], FrameInfo | None] | None = None,
    ) -> None:
        self.path = Path(path)
        self.format = video_format(self.path)
        self.scale = check_scale(scale)
        check_video_path(self.path)
        if not self.format.written_here:
            try:
                av.Codec(self.format.codec, "w")
            except (av.codec.codec.UnknownCodecError, ValueError):
                raise NesbotError(
                    f"cannot write video {self.path}: this PyAV has no {self.format.codec} encoder"
                ) from None
        renderer = Renderer(self.scale, panel=overlay)
        self.width, self.height = renderer.width, renderer.height
        self._info = info if overlay else None
        self.frames_written = 0  # frames in the file; final once close() has returned
        self._slots = queue_frames(self.scale)
        self._sent = 0  # frames given to the encoder (some perhaps still in the batch)
        self._batch: list[bytes] = []  # frames not yet sent: records of _FRAME
        self._batch_frames = min(BATCH_FRAMES, self._slots // 2)
        self._taken = 0  # of those, how many it has copied out of shared memory
        self._closed = False
        self._finished = False  # the encoder said the file is complete
        self._ready = False  # the encoder has started
        self._error: BaseException | None = None
        self._error_reported = False
        self._memory = shared_memory.SharedMemory(create=True, size=self._slots * _SCREEN_BYTES)
        self._screens = np.ndarray(
            (self._slots, SCREEN_HEIGHT, SCREEN_WIDTH, 3), np.uint8, buffer=self._memory.buf
        )
        self._process, self._conn = _start_encoder(
            self.path, self.scale, overlay, self._memory.name, self._slots
        )
        # Should the writer be dropped or the program end without close(), finish the file
        # anyway: the encoder would otherwise wait for frames forever.
        self._finalizer = weakref.finalize(
            self, _finish_abandoned, self._conn, self._process, self._memory, self._batch
        )

    def __call__(self, pad: int, emu: "Emulator") -> None:
        """Observer entry point: record the screen the step just drew."""
        emu.copy_screen(self._free_slot())
        self._send(self._info() if self._info is not None else None)

    def write(self, screen: np.ndarray, info: FrameInfo | None = None) -> None:
        """Send one 240x256x3 RGB screen (copied, so a live view is fine) and what the
        overlay draws on it to the encoder. Blocks while queue_frames() frames wait."""
        _check_screen(screen)
        np.copyto(self._free_slot(), screen)
        self._send(info)

    def wait_started(self) -> None:
        """Block until the encoder process is ready for frames. `play` starts the writer
        before the ~40 s boot, by the end of which it is; a benchmark waits here, so that
        it times the game as `play` plays it."""
        while not self._ready and self._receive(wait=True):
            pass
        self._raise_encoder_error()

    def _free_slot(self) -> np.ndarray:
        """The shared-memory slot of the next frame, once the encoder has taken it."""
        if self._closed:
            raise ValueError(f"the video {self.path} is already closed")
        # The first frame waits for the encoder to have started (it has, after a boot): until
        # it has mapped the shared memory, the memory must outlive this process.
        self.wait_started()
        # The encoder's receipts are read only once half the slots may be taken, not after
        # every frame: each read is a few system calls (~0.1 ms, 5% of a frame's work).
        waiting = self._sent - self._taken
        if waiting >= self._slots // 2:
            self._send_batch()  # the encoder must have every frame it is waited for
            self._receive(wait=waiting >= self._slots)
        self._raise_encoder_error()
        return self._screens[self._sent % self._slots]

    def _send(self, info: FrameInfo | None) -> None:
        pickled = pickle.dumps(info, pickle.HIGHEST_PROTOCOL) if info is not None else b""
        self._batch.append(_FRAME.pack(self._sent % self._slots, len(pickled)) + pickled)
        self._sent += 1
        if len(self._batch) >= self._batch_frames:
            self._send_batch()

    def _send_batch(self) -> None:
        """Send the frames not yet sent, in one message: each message wakes the encoder
        process, and on a virtual machine a wake-up costs the game as much as the frame's
        encoding."""
        if self._batch:
            try:
                self._conn.send_bytes(b"".join(self._batch))
            except OSError:
                raise self._encoder_gone() from None
            finally:
                self._batch.clear()

    def close(self) -> None:
        """Finish the file (idempotent). Raises an error the encoder met, unless write()
        already has; write() raises it every time, since nothing more is encoded."""
        if not self._closed:
            self._closed = True
            interrupted: KeyboardInterrupt | None = None
            with contextlib.suppress(OSError):  # the encoder is gone: its file is what there is
                if self._batch:
                    self._conn.send_bytes(b"".join(self._batch))
                self._conn.send_bytes(_STOP)
            self._batch.clear()
            # A second Ctrl-C must not abandon the wait: the file is only playable once the
            # encoder has written its index, which comes within queue_frames() encodes.
            while True:
                try:
                    self._wait_finished()
                    break
                except KeyboardInterrupt as error:
                    interrupted = error
            self._finalizer.detach()
            self._release()
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

    def _wait_finished(self) -> None:
        while not self._finished and self._receive(wait=True):
            pass
        self._process.wait()

    def _receive(self, wait: bool) -> bool:
        """Handle the encoder's messages: all that wait, and at least one if `wait`. False
        when the encoder has gone."""
        while wait or self._conn.poll():
            try:
                message = self._conn.recv_bytes()
            except (EOFError, OSError):
                if not self._finished and self._error is None and not self._closed:
                    self._error = self._encoder_gone()
                self._finished = True
                return False
            wait = False
            if message.startswith(_TAKEN):
                self._taken += struct.unpack("<I", message[len(_TAKEN) :])[0]
            elif message == _READY:
                self._ready = True
            elif message.startswith(_ERROR):
                if self._error is None:
                    self._error = pickle.loads(message[len(_ERROR) :])
            elif message.startswith(_CLOSED):
                self.frames_written = struct.unpack("<I", message[len(_CLOSED) :])[0]
                self._finished = True
        return True

    def _encoder_gone(self) -> NesbotError:
        return NesbotError(
            f"the video encoder for {self.path} stopped (exit status {self._process.poll()})"
        )

    def _release(self) -> None:
        self._conn.close()
        del self._screens
        self._memory.close()
        self._memory.unlink()

    def _raise_encoder_error(self, again: bool = True) -> None:
        if self._error is not None and (again or not self._error_reported):
            self._error_reported = True
            raise self._error


def _finish_abandoned(conn, process, memory, batch: list[bytes]) -> None:
    """A writer dropped without close(): let its encoder finish the file, then clean up."""
    with contextlib.suppress(OSError):
        if batch:
            conn.send_bytes(b"".join(batch))
        conn.send_bytes(_STOP)
        conn.close()
    process.wait()
    memory.close()
    memory.unlink()


@dataclass(frozen=True)
class VideoFacts:
    """What a player sees of a video file (probe_video decodes every frame to count them)."""

    container: str
    codec: str
    profile: str | None
    pix_fmt: str
    width: int
    height: int
    frames: int
    average_rate: Fraction
    time_base: Fraction
    duration: float  # seconds, from the last frame's timestamp plus one frame
    colorspace: int


def _open_input(path: Path) -> av.container.InputContainer:
    if not path.is_file():
        raise NesbotError(f"cannot read video {path}: no such file")
    try:
        container = av.open(str(path))
    except av.FFmpegError as error:
        raise NesbotError(f"cannot read video {path}: {error}") from None
    if not container.streams.video:
        container.close()
        raise NesbotError(f"cannot read video {path}: it has no video stream")
    return container


def probe_video(path: str | os.PathLike[str]) -> VideoFacts:
    """Decode a whole video and say what it is."""
    with _open_input(Path(path)) as container:
        stream = container.streams.video[0]
        frames, last_pts = 0, None
        for frame in container.decode(stream):
            frames += 1
            last_pts = frame.pts
        context = stream.codec_context
        # PyAV's own rational type: Fractions compare and print plainly.
        average = stream.average_rate
        rate = Fraction(average.numerator, average.denominator) if average else Fraction(0)
        time_base = Fraction(stream.time_base.numerator, stream.time_base.denominator)
        duration = 0.0
        if last_pts is not None and rate:
            duration = float(last_pts * time_base + 1 / rate)
        return VideoFacts(
            container=container.format.name,
            codec=context.name,
            profile=context.profile,
            pix_fmt=context.pix_fmt or "",
            width=context.width,
            height=context.height,
            frames=frames,
            average_rate=rate,
            time_base=time_base,
            duration=duration,
            colorspace=context.colorspace,
        )


def read_video_frames(path: str | os.PathLike[str]) -> int:
    """Count the frames by decoding them all (the container's frame count can be wrong)."""
    return probe_video(path).frames


def read_frames(path: str | os.PathLike[str], wanted: Iterable[int]) -> dict[int, np.ndarray]:
    """Decode a video and keep the frames whose indexes (0 = first) are wanted, as RGB."""
    wanted = set(wanted)
    found: dict[int, np.ndarray] = {}
    if not wanted:
        return found
    with _open_input(Path(path)) as container:
        for index, frame in enumerate(container.decode(video=0)):
            if index in wanted:
                found[index] = frame.to_ndarray(format="rgb24")
                if len(found) == len(wanted):
                    break
    return found


def save_png(picture: np.ndarray, path_png: str | os.PathLike[str]) -> None:
    """Write an RGB picture as a PNG (lossless: the --still of a game)."""
    path = Path(path_png)
    check_png_path(path)
    if not isinstance(picture, np.ndarray) or picture.ndim != 3 or picture.shape[2] != 3:
        raise ValueError("a picture must be a height x width x 3 RGB array")
    try:
        written = cv2.imwrite(str(path), cv2.cvtColor(picture, cv2.COLOR_RGB2BGR))
    except cv2.error:
        written = False
    if not written:
        raise NesbotError(f"cannot write still {path}")


def check_png_path(path: Path) -> None:
    """NesbotError unless a PNG can be written at path (checked before a game, not after)."""
    if path.suffix.lower() != ".png":
        raise NesbotError(f"cannot write still {path}: the name must end in .png")
    _check_output_path(path, "still")
