"""The encoder process and its protocol with VideoWriter: frames in shared memory, slot
numbers and the overlay's FrameInfo down a socket (Connection.send_bytes), receipts back."""

import contextlib
import os
import pickle
import socket
import struct
import subprocess
import sys
from multiprocessing import shared_memory
from multiprocessing.connection import Connection
from pathlib import Path

import cv2
import numpy as np

from nesbot.errors import NesbotError
from nesbot.nes.screen_layout import SCREEN_HEIGHT, SCREEN_WIDTH
from nesbot.show.video.muxing import Encoder

# Messages between VideoWriter and its encoder process (Connection.send_bytes).
# writer -> encoder: frames, a batch of records: a frame in this slot, then a pickled
# FrameInfo of this many bytes (0: none).
FRAME = struct.Struct("<II")
STOP = b"stop"  # writer -> encoder: no more frames
DISCARD = b"discard"  # writer -> encoder: no more frames, and keep no file (the run failed)
READY = b"r"  # encoder -> writer: started, shared memory mapped
TAKEN = b"t"  # encoder -> writer: + how many (uint32) of the oldest slots are free again
ERROR = b"e"  # encoder -> writer: + the pickled exception; later frames are dropped
CLOSED = b"c"  # encoder -> writer: + frames in the file (uint32); the file is complete


def _pickled_error(error: BaseException, path: str) -> bytes:
    if isinstance(error, OSError):  # a full disk, a vanished directory: one line for the user
        error = NesbotError(f"cannot write video {path}: {error.strerror or error}")
    try:
        return pickle.dumps(error)
    except Exception:  # an exception that does not pickle still reaches the user
        return pickle.dumps(RuntimeError(f"{type(error).__name__}: {error}"))


def _encoder_process(
    path: str, codec: str | None, scale: int, overlay: bool, memory: str, slots: int, conn
) -> None:
    """The encoder process: frames arrive in shared memory, in slot order. It encodes every
    frame it is sent, even once the writer has stopped listening (a writer dropped without
    close() only sends the stop)."""
    # OpenCV would spread a resize over every core, the game's too; the encoder keeps to one.
    cv2.setNumThreads(1)
    shared = shared_memory.SharedMemory(name=memory, track=False)
    screens = np.ndarray((slots, SCREEN_HEIGHT, SCREEN_WIDTH, 3), np.uint8, buffer=shared.buf)
    encoder = Encoder(Path(path), scale, overlay, codec)
    failed = discard = False
    _send_quietly(conn, READY)  # the memory is mapped: it may be unlinked from now on
    try:
        while True:
            try:
                message = conn.recv_bytes()
            except (EOFError, OSError):
                break  # the writer's process ended without closing: finish the file
            if message in (STOP, DISCARD):
                discard = message == DISCARD
                break
            offset = taken = 0
            while offset < len(message):
                slot, info_size = FRAME.unpack_from(message, offset)
                offset += FRAME.size
                info = pickle.loads(message[offset : offset + info_size]) if info_size else None
                offset += info_size
                taken += 1
                if failed:
                    continue
                try:
                    encoder.encode(encoder.prepare(screens[slot], info))
                except Exception as error:
                    failed = True
                    _send_quietly(conn, ERROR + _pickled_error(error, path))
            _send_quietly(conn, TAKEN + struct.pack("<I", taken))
    finally:
        try:
            # A file cut by a fault is not kept over an older one; Ctrl-C's is (STOP).
            encoder.finish(keep=not (failed or discard))
            if failed or discard:
                encoder.frames = 0
        except Exception as error:
            encoder.frames = 0  # the file could not be finished: it holds none that play
            if not failed:
                _send_quietly(conn, ERROR + _pickled_error(error, path))
        _send_quietly(conn, CLOSED + struct.pack("<I", encoder.frames))
        del screens
        shared.close()


def encoder_main() -> None:
    """Entry point of the encoder process (VideoWriter starts it; see _start_encoder)."""
    fd, path, codec, scale, overlay, memory, slots = sys.argv[1:8]
    conn = Connection(int(fd))
    try:
        _encoder_process(path, codec or None, int(scale), overlay == "1", memory, int(slots), conn)
    except Exception as error:  # before any frame: the writer reports it as the encoder gone
        print(f"nesbot video encoder: {error}", file=sys.stderr)
        sys.exit(1)


def start_encoder(
    path: Path, codec: str | None, scale: int, overlay: bool, memory: str, slots: int
):
    """Start the encoder process; returns it and the writer's end of its connection.

    A plain `python -c` process rather than multiprocessing's spawn, which would import the
    user's main module again (a script without a __main__ guard would run twice). It gets
    its own process group, so that Ctrl-C at the terminal reaches only the writer's process,
    which then closes the file properly; the encoder ends when the writer says so or goes.
    """
    ours, theirs = socket.socketpair()
    package_root = str(Path(__file__).resolve().parents[3])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, env.get("PYTHONPATH")]))
    command = [
        sys.executable,
        "-c",
        "from nesbot.show.video.process import encoder_main; encoder_main()",
    ]
    args = [theirs.fileno(), path, codec or "", scale, "1" if overlay else "0", memory, slots]
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
