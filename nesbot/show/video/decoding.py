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


def decoded(container: av.container.InputContainer, path: Path) -> Iterator[av.VideoFrame]:
    """The frames of `container`'s (open_input's) first video stream, in order; NesbotError
    (one line) when the file breaks off or holds something PyAV cannot decode."""
    try:
        yield from container.decode(container.streams.video[0])
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
