"""Pictures and colour: the NES screen (and the overlay) as the yuv420p planes an encoder
takes, in BT.601 limited range."""

import av
import cv2
import numpy as np

from nesbot.nes.screen_layout import SCREEN_HEIGHT, SCREEN_WIDTH
from nesbot.show.overlay import Figures, FrameInfo, Renderer


def check_screen(screen: np.ndarray) -> None:
    if not isinstance(screen, np.ndarray) or screen.dtype != np.uint8:
        raise ValueError("a frame must be a uint8 numpy array")
    if screen.shape != (SCREEN_HEIGHT, SCREEN_WIDTH, 3):
        raise ValueError(
            f"a frame must be {SCREEN_HEIGHT}x{SCREEN_WIDTH}x3 RGB, not {screen.shape}"
        )


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
