"""VideoWriter: the game's side of recording (see nesbot.show.video)."""

import contextlib
import os
import pickle
import signal
import struct
import threading
import weakref
from multiprocessing import resource_tracker, shared_memory
from pathlib import Path
from types import TracebackType
from typing import Self

import av
import numpy as np

from nesbot.errors import NesbotError
from nesbot.nes.screen_layout import SCREEN_HEIGHT, SCREEN_WIDTH
from nesbot.output_file import end_of_block
from nesbot.show.overlay import FrameInfo, Renderer, check_scale
from nesbot.show.video.formats import DEFAULT_SCALE, check_video_path
from nesbot.show.video.pictures import check_screen
from nesbot.show.video.process import (
    CLOSED,
    DISCARD,
    ERROR,
    FRAME,
    READY,
    STOP,
    TAKEN,
    start_encoder,
)

# Frames that may wait for the encoder at scale 1 (184 KB each: ~12 MB); fewer at larger
# scales, where each costs more to encode, so that close() drains in well under a second.
QUEUE_FRAMES = 64
# Frames sent to the encoder in one message (fewer when the queue is short).
BATCH_FRAMES = 4
_SCREEN_BYTES = SCREEN_HEIGHT * SCREEN_WIDTH * 3


def queue_frames(scale: int) -> int:
    """How many frames write() lets wait for the encoder before it blocks."""
    return max(8, QUEUE_FRAMES // scale)


class VideoWriter:
    """Encodes the screens written to it into one file (see nesbot.show.video).

    Give it whole pictures (nesbot.show.frames.WholeFrames, Player.whole_frame): nes-py's screen
    after a step is two frames, torn where the step ended. `codec` chooses an .mp4's
    encoder (CODECS: nesbot's lossless writer, the default, or x264).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        scale: int = DEFAULT_SCALE,
        overlay: bool = False,
        codec: str | None = None,
    ) -> None:
        self.path = Path(path)
        self.format = check_video_path(self.path, codec)
        self.scale = check_scale(scale)
        if not self.format.written_here:
            try:
                av.Codec(self.format.codec, "w")
            except (av.codec.codec.UnknownCodecError, ValueError):
                raise NesbotError(
                    f"cannot write video {self.path}: this PyAV has no {self.format.codec} encoder"
                ) from None
        renderer = Renderer(self.scale, panel=overlay)
        self.width, self.height = renderer.width, renderer.height
        self._overlay = overlay
        self.frames_written = 0  # frames in the file; final once close() has returned
        self._slots = queue_frames(self.scale)
        self._sent = 0  # frames given to the encoder (some perhaps still in the batch)
        self._batch: list[bytes] = []  # frames not yet sent: records of FRAME
        self._batch_frames = min(BATCH_FRAMES, self._slots // 2)
        self._taken = 0  # of those, how many it has copied out of shared memory
        self._closed = False
        self._finished = False  # the encoder said the file is complete
        self._ready = False  # the encoder has started
        self._error: BaseException | None = None
        self._error_reported = False
        try:
            # Tracked only once made: CPython's failed create unregisters a name it never
            # registered, and the tracker process then prints a traceback of its own.
            size = self._slots * _SCREEN_BYTES
            self._memory = shared_memory.SharedMemory(create=True, size=size, track=False)
        except OSError as error:  # /dev/shm full, or a file size limit
            raise NesbotError(
                f"cannot write video {self.path}: no shared memory for its frames "
                f"({error.strerror or error})"
            ) from None
        _start_tracker_deaf_to_hangups()
        resource_tracker.register(self._memory._name, "shared_memory")  # type: ignore[attr-defined]
        self._screens = np.ndarray(
            (self._slots, SCREEN_HEIGHT, SCREEN_WIDTH, 3), np.uint8, buffer=self._memory.buf
        )
        self._process, self._conn = start_encoder(
            self.path, codec, self.scale, overlay, self._memory.name, self._slots
        )
        # Should the writer be dropped or the program end without close(), finish the file
        # anyway: the encoder would otherwise wait for frames forever.
        self._finalizer = weakref.finalize(
            self, _finish_abandoned, self._conn, self._process, self._memory, self._batch
        )

    def write(self, screen: np.ndarray, info: FrameInfo | None = None) -> None:
        """Send one 240x256x3 RGB screen (copied) and what the overlay draws on it (drawn
        only with `overlay`) to the encoder. Blocks while queue_frames() frames wait."""
        check_screen(screen)
        np.copyto(self._free_slot(), screen)
        self._send(info if self._overlay else None)

    def __call__(self, picture: np.ndarray, info: FrameInfo | None, step: int) -> None:
        """A WholeFrames consumer: write the picture."""
        self.write(picture, info)

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
        self._batch.append(FRAME.pack(self._sent % self._slots, len(pickled)) + pickled)
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

    def close(self, keep: bool = True) -> None:
        """Finish the file and rename it into place (idempotent); with `keep` False, after
        a failed run, remove it instead, an older file at the path untouched. Raises an error
        the encoder met, unless write() already has; write() raises it every time, since
        nothing more is encoded (a file the encoder failed on is not kept)."""
        if not self._closed:
            self._closed = True
            interrupted: KeyboardInterrupt | None = None
            with contextlib.suppress(OSError):  # the encoder is gone: its file is what there is
                if self._batch:
                    self._conn.send_bytes(b"".join(self._batch))
                self._conn.send_bytes(STOP if keep else DISCARD)
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
        end_of_block(self.close, exc_type)

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
            if message.startswith(TAKEN):
                self._taken += struct.unpack("<I", message[len(TAKEN) :])[0]
            elif message == READY:
                self._ready = True
            elif message.startswith(ERROR):
                if self._error is None:
                    self._error = pickle.loads(message[len(ERROR) :])
            elif message.startswith(CLOSED):
                self.frames_written = struct.unpack("<I", message[len(CLOSED) :])[0]
                self._finished = True
        return True

    def _encoder_gone(self) -> NesbotError:
        return NesbotError(
            f"the video encoder for {self.path} stopped (exit status {self._process.poll()})"
        )

    def _release(self) -> None:
        self._conn.close()
        del self._screens
        _free(self._memory)

    def _raise_encoder_error(self, again: bool = True) -> None:
        if self._error is not None and (again or not self._error_reported):
            self._error_reported = True
            raise self._error


def _finish_abandoned(conn, process, memory, batch: list[bytes]) -> None:
    """A writer dropped without close(): let its encoder finish the file, then clean up."""
    with contextlib.suppress(OSError):
        if batch:
            conn.send_bytes(b"".join(batch))
        conn.send_bytes(STOP)
        conn.close()
    process.wait()
    _free(memory)


def _start_tracker_deaf_to_hangups() -> None:
    """Start multiprocessing's resource tracker, if it is not running, with SIGHUP ignored
    (a disposition its exec keeps). It ignores SIGINT and SIGTERM itself; a hang-up sent to
    nesbot's process group (the terminal closed, `timeout -s HUP`) would kill it, and the
    writer's unregister at the end then finds a new tracker that prints a traceback."""
    if threading.current_thread() is not threading.main_thread():
        resource_tracker.ensure_running()  # only the main thread may set a handler
        return
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        resource_tracker.ensure_running()
    finally:
        signal.signal(signal.SIGHUP, previous)


def _free(memory: shared_memory.SharedMemory) -> None:
    """Unmap and remove the frames' memory, and tell the tracker (it was tracked by hand)."""
    memory.close()
    memory.unlink()
    resource_tracker.unregister(memory._name, "shared_memory")  # type: ignore[attr-defined]
