"""The report's stills: a picture of the game, STILL_WIDTH pixels wide, as a data URL the
page shows beside its board.

An emulator's screen (a log replayed with --video) is flat colour: a PNG of a few kB. A
video's frame is kept as it is read, where a piece may have spawned (nesbot.rating.screen),
so that the report needs no second decode of the video: a JPEG, the smaller for a capture's
noise and made in a tenth of a millisecond, where a PNG of that noise takes tens.
"""

import base64

import av
import numpy as np

from nesbot.errors import NesbotError

STILL_WIDTH = 256  # pixels: the NES picture's own width
JPEG_QUALITY = 80  # a capture's still in about 60% of the bytes of OpenCV's default, 95


def _encoded(kind: str, picture: np.ndarray, options: list[int]) -> bytes | None:
    import cv2  # OpenCV: only a report with stills needs it

    ok, picture_file = cv2.imencode(f".{kind}", picture, options)
    return picture_file.tobytes() if ok else None


def _data_url(kind: str, picture_file: bytes) -> str:
    return f"data:image/{kind};base64," + base64.b64encode(picture_file).decode()


def _bgr_at_still_width(rgb: np.ndarray) -> np.ndarray:
    import cv2

    height = round(rgb.shape[0] * STILL_WIDTH / rgb.shape[1])
    small = cv2.resize(rgb, (STILL_WIDTH, height), interpolation=cv2.INTER_AREA)
    return cv2.cvtColor(small, cv2.COLOR_RGB2BGR)


def screen_still(picture: np.ndarray) -> str:
    """An emulator's RGB screen as a data URL: a PNG or a JPEG, whichever is smaller (flat
    colours make a PNG of about 5 kB)."""
    import cv2

    small = _bgr_at_still_width(picture)
    encoded = [
        (len(data), kind, data)
        for kind, options in (
            ("png", [cv2.IMWRITE_PNG_COMPRESSION, 9]),
            ("jpeg", [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY]),
        )
        if (data := _encoded(kind, small, options)) is not None
    ]
    if not encoded:
        raise NesbotError("cannot encode a still of the game")
    _size, kind, smallest = min(encoded)
    return _data_url(kind, smallest)


def frame_still(frame: av.VideoFrame) -> str:
    """A video's decoded frame as a JPEG data URL (about 20 kB for a capture)."""
    import cv2

    data = _encoded(
        "jpeg",
        _bgr_at_still_width(frame.to_ndarray(format="rgb24")),
        [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY],
    )
    if data is None:
        raise NesbotError("cannot encode a still of the game")
    return _data_url("jpeg", data)
