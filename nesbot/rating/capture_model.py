"""What captures do to the NES picture, to measure the screen reader on pictures whose truth
is known (nesbot's own recordings, scripts/reader_accuracy.py) and to test it.

A capture shows the NES picture somewhere in its frame, scaled apart in x and y (`place`),
and an analogue one blurs it (`composite`): the luma a little, the chroma much more (the
colour bleeds over a few pixels, as composite video carries it in a narrow band), lifts
the black, bends the gamma and adds noise. KINDS names the captures the reader is measured
on.
"""

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class Capture:
    """A kind of capture: the frame's size, where the NES picture's pixel (0, 0) lands and
    its scales, whether it is composite, interlaced (two game frames a picture, a field
    each), and the H.264 bit rate."""

    size: tuple[int, int]  # width, height
    sx: float
    sy: float
    left: int
    top: int
    composite: bool = False
    interlaced: bool = False
    bit_rate: int = 1_000_000


KINDS: dict[str, Capture] = {
    # an NTSC console through a capture card: 720x480, 8:7, black borders, the top cut
    "card": Capture((720, 480), 2.5, 2, 42, -6, composite=True),
    "card-interlaced": Capture((720, 480), 2.5, 2, 42, -6, composite=True, interlaced=True),
    # a PAL console: 576 lines, the picture in 480 of them, borders all round
    "pal": Capture((720, 576), 2.6, 2, 27, 48, composite=True),
    # an emulator or scaler's 16:9 stretch at 720 lines, the overscan cut
    "stretch": Capture((1280, 720), 4.375, 3.1, 80, -12, bit_rate=2_000_000),
}


def place(rgb: np.ndarray, size: tuple[int, int], sx: float, sy: float, left: int, top: int):
    """The NES picture scaled by (sx, sy) with its pixel (0, 0) at (left, top) of a black
    frame of `size` (width, height): borders where it is smaller, cut where it is larger."""
    width, height = size
    scaled = cv2.resize(rgb, (round(256 * sx), round(240 * sy)), interpolation=cv2.INTER_LINEAR)
    frame = np.zeros((height, width, 3), np.uint8)
    y0, x0 = max(0, top), max(0, left)
    y1, x1 = min(height, top + scaled.shape[0]), min(width, left + scaled.shape[1])
    frame[y0:y1, x0:x1] = scaled[y0 - top : y1 - top, x0 - left : x1 - left]
    return frame


def composite(rgb: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """What a composite signal does to a picture (see the module's docstring)."""
    yuv = cv2.cvtColor(rgb, cv2.COLOR_RGB2YUV).astype(np.float32)
    yuv[:, :, 0] = cv2.GaussianBlur(yuv[:, :, 0], (0, 0), sigmaX=1.2, sigmaY=0.6)
    for channel in (1, 2):
        yuv[:, :, channel] = cv2.GaussianBlur(yuv[:, :, channel], (0, 0), sigmaX=4, sigmaY=1)
    out = cv2.cvtColor(np.clip(yuv, 0, 255).astype(np.uint8), cv2.COLOR_YUV2RGB) / 255.0
    out = 0.08 + 0.85 * out**0.8 + rng.normal(0, 0.02, out.shape)
    return np.clip(out * 255, 0, 255).astype(np.uint8)


def capture(rgb: np.ndarray, kind: Capture, rng: np.random.Generator) -> np.ndarray:
    """One NES picture (240 x 256 x 3) as the capture `kind` shows it (before H.264)."""
    frame = place(rgb, kind.size, kind.sx, kind.sy, kind.left, kind.top)
    return composite(frame, rng) if kind.composite else frame
