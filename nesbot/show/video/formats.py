"""Which files nesbot writes: video formats by extension and codec, and output paths
checked before a game rather than after it."""

from dataclasses import dataclass
from pathlib import Path

from nesbot.errors import NesbotError
from nesbot.output_file import check_output

DEFAULT_SCALE = 3  # 720 lines, a standard HD height
CODECS = ("nesbot", "x264")  # an .mp4's encoders; nesbot's own is the default


@dataclass(frozen=True)
class Format:
    """How one file is written: container, codec, and the options of PyAV's encoder and
    muxer. `written_here`: the pictures come from nesbot.show.video.h264, not a PyAV encoder."""

    container: str
    codec: str
    codec_options: dict[str, str]
    container_options: dict[str, str]
    written_here: bool = False


_FASTSTART = {"movflags": "+faststart"}  # the index first: plays while it downloads
FORMATS: dict[tuple[str, str], Format] = {
    (".mp4", "nesbot"): Format("mp4", "h264", {}, _FASTSTART, written_here=True),
    # x264 for a small file: CRF 20 keeps the pixel art's edges. Of the presets measured on
    # a game (docs/videos.md), "veryfast" made the smallest files for ~3 ms a frame at 720
    # lines; the faster ones were no smaller than nesbot's lossless writer, and
    # "tune animation" made larger files for more time.
    (".mp4", "x264"): Format("mp4", "libx264", {"preset": "veryfast", "crf": "20"}, _FASTSTART),
    # VP9 in real-time mode: the good-quality modes encode a few frames per second at 720p.
    (".webm", "vp9"): Format(
        "webm",
        "libvpx-vp9",
        {"deadline": "realtime", "cpu-used": "8", "row-mt": "1", "crf": "24", "b": "0"},
        {},
    ),
}


def video_format(path: Path, codec: str | None = None) -> Format:
    """The format a video path (and, for .mp4, a codec of CODECS) asks for, or NesbotError
    naming the ones there are."""
    suffix = path.suffix.lower()
    if suffix == ".mp4":
        chosen = codec or CODECS[0]
        if chosen not in CODECS:
            raise NesbotError(f"unknown codec {chosen!r}: choose {' or '.join(CODECS)}")
        return FORMATS[suffix, chosen]
    if suffix == ".webm":
        if codec is not None:
            raise NesbotError(f"cannot write video {path}: --codec chooses an .mp4's encoder")
        return FORMATS[suffix, "vp9"]
    raise NesbotError(f"cannot write video {path}: the name must end in .mp4 or .webm")


def check_video_path(path: Path, codec: str | None = None) -> Format:
    """The format of a video path that can be written, or NesbotError (checked before a
    game, not after)."""
    found = video_format(path, codec)
    check_output(path, "video")
    return found


def check_png_path(path: Path) -> None:
    """NesbotError unless a PNG can be written at path (checked before a game, not after)."""
    if path.suffix.lower() != ".png":
        raise NesbotError(f"cannot write still {path}: the name must end in .png")
    check_output(path, "still")
