"""Reading videos back: what a player sees of a file, and its frames as RGB pictures (the
tests, the README's still)."""

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import av
import numpy as np

from nesbot.errors import NesbotError
from nesbot.input_file import check_input_file

# The largest picture nesbot reads: a 4K UHD frame's pixels, in any shape. A capture of a
# NES picture is at most 1080 lines; a larger one would only make the reader slow (a
# 20000 x 20000 picture once took ten minutes and 4.9 GB). Checked before decoding.
MAX_PICTURE_PIXELS = 3840 * 2160


def check_picture_size(width: int, height: int, what: str) -> None:
    """NesbotError unless a width x height picture is one nesbot reads (MAX_PICTURE_PIXELS;
    `what` names it: "picture x.png", "video x.mp4")."""
    if width <= 0 or height <= 0 or width * height > MAX_PICTURE_PIXELS:
        raise NesbotError(
            f"cannot read {what}: its pictures are {width} x {height}, above the "
            f"{MAX_PICTURE_PIXELS:,} pixels (3840 x 2160) nesbot reads; scale it down first"
        )


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


def open_input(path: Path) -> av.container.InputContainer:
    """Open a video to decode it; NesbotError (one line) when it is missing or unreadable."""
    check_input_file(path, "video")
    try:
        container = av.open(str(path))
    except av.FFmpegError as error:
        raise NesbotError(f"cannot read video {path}: {error}") from None
    if not container.streams.video:
        container.close()
        raise NesbotError(f"cannot read video {path}: it has no video stream")
    context = container.streams.video[0].codec_context
    if context.width or context.height:  # a stream that states no size is checked per frame
        try:
            check_picture_size(context.width, context.height, f"video {path}")
        except NesbotError:
            container.close()
            raise
    return container


def decoded(container: av.container.InputContainer, path: Path) -> Iterator[av.VideoFrame]:
    """The frames of `container`'s (open_input's) first video stream, in order; NesbotError
    (one line) when the file breaks off, holds something PyAV cannot decode, or a picture
    larger than MAX_PICTURE_PIXELS (a stream may change its size)."""
    try:
        for frame in container.decode(container.streams.video[0]):
            check_picture_size(frame.width, frame.height, f"video {path}")
            yield frame
    except av.FFmpegError as error:
        raise NesbotError(f"cannot read video {path}: {error}") from None


def probe_video(path: str | os.PathLike[str]) -> VideoFacts:
    """Decode a whole video and say what it is."""
    with open_input(Path(path)) as container:
        stream = container.streams.video[0]
        frames, last_pts = 0, None
        for frame in decoded(container, Path(path)):
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
    with open_input(Path(path)) as container:
        for index, frame in enumerate(decoded(container, Path(path))):
            if index in wanted:
                found[index] = frame.to_ndarray(format="rgb24")
                if len(found) == len(wanted):
                    break
    return found
