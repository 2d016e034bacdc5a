"""Encoding and muxing one file: the pictures through nesbot.show.video.h264 (the .mp4's own
writer) or a PyAV encoder (x264, VP9), into the container. This runs in the encoder process
(nesbot.show.video.process)."""

from pathlib import Path

import av
import numpy as np

from nesbot.nes.screen_layout import CELL
from nesbot.output_file import OutputFile
from nesbot.show.overlay import FrameInfo, Renderer
from nesbot.show.pace import NTSC_RATE
from nesbot.show.video.formats import video_format
from nesbot.show.video.h264 import H264Writer
from nesbot.show.video.pictures import Yuv420Picture

# libvpx would start a thread per core; the game needs one of the two cores the project
# plans for, so the encoder runs in this module's thread alone.
ENCODER_THREADS = 1
# An IDR picture every 30 seconds: a browser seeks from the one before the time asked for,
# decoding the pictures between (mostly skips, fast); each costs ~0.5 MB at 720 lines.
KEYFRAME_INTERVAL = 1800
_TIME_BASE = 1 / NTSC_RATE  # a frame's timestamp is its index
# FFmpeg's codes for what cv2's RGB->I420 produces: BT.601 (SMPTE 170M) in limited range.
_BT601, _LIMITED_RANGE = 6, 1


class Encoder:
    """Encodes frames into one file, in the calling thread: the encoder process's work.

    The container is opened with the first frame (so a writer given no frames leaves no
    file), beside `path` (nesbot.output_file). `finish()` writes what the encoder still
    holds and the index, and renames the file into place; `finish(keep=False)`, after an
    error, removes it instead, leaving an older file at `path` as it was.
    """

    def __init__(self, path: Path, scale: int, overlay: bool, codec: str | None = None) -> None:
        self.path = path
        self.format = video_format(path, codec)
        self.picture = Yuv420Picture(Renderer(scale, panel=overlay))
        self.frames = 0  # frames given to encode()
        self._container: av.container.OutputContainer | None = None
        self._stream: av.VideoStream | av.stream.Stream | None = None
        self._h264: H264Writer | None = None
        self._out: OutputFile | None = None
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

    def finish(self, keep: bool = True) -> None:
        container, out = self._container, self._out
        if container is None or out is None:
            return
        self._container = self._out = None
        try:
            try:
                if keep and self._h264 is None:
                    assert isinstance(self._stream, av.VideoStream)
                    container.mux(self._stream.encode(None))  # the frames the codec holds
            finally:
                container.close()  # writes the index (and moves it to the front)
        except BaseException:
            out.discard()
            raise
        if keep:
            out.commit()
        else:
            out.discard()

    def _open(self) -> tuple[av.container.OutputContainer, av.VideoStream | av.stream.Stream]:
        fmt = self.format
        width, height = self.picture.width, self.picture.height
        self._out = OutputFile(self.path, "video", binary=True)
        try:
            container = av.open(
                str(self._out.by_name()),
                mode="w",
                format=fmt.container,
                options=fmt.container_options,
            )
        except BaseException:
            self._out.discard()
            raise
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
            self._out.discard()
            raise
        return container, stream
