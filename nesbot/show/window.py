"""--show: a live window of the game, through OpenCV's HighGUI (Qt in opencv-python's wheels).

The window is driven from the thread that plays: `show()` draws a picture and lets the GUI
handle its events for a millisecond, which is also how it learns that the user closed the
window; it then raises `WindowClosed`, which unwinds like Ctrl-C (log and video are closed
and stay readable). As a consumer of whole frames (nesbot.show.frames.WholeFrames) the window shows
every frame (with --realtime, where the game runs at the NES's 60.0988 frames/s) or, when
the game runs as fast as it can, at most `MAX_REFRESH_HZ` pictures a second, so that drawing
costs the game little.

Qt aborts the whole process when it cannot reach the display, so `check_display()` tries the
X server first and turns its absence into one NesbotError line.
"""

import ctypes
import ctypes.util
import os
import sys
import time

import cv2
import numpy as np

from nesbot.errors import NesbotError
from nesbot.show.overlay import FrameInfo, Renderer, draw_banner

TITLE = "nesbot"
MAX_REFRESH_HZ = 60.0
BOOT_REFRESH_HZ = 30.0  # the menus race by at ~800 steps/s; this shows them moving


class WindowClosed(KeyboardInterrupt):
    """The user closed the window. A KeyboardInterrupt, so that it ends the game exactly as
    Ctrl-C does: every `with` and `finally` closes its file, and the CLI exits 130."""

    def __init__(self) -> None:
        super().__init__("the window was closed")


def check_display() -> None:
    """NesbotError in one line unless a window can be opened here."""
    if sys.platform in ("win32", "darwin"):  # Qt uses the native window system there
        return
    name = os.environ.get("DISPLAY", "")
    if not name:
        raise NesbotError("--show needs a display, and DISPLAY is not set (try xvfb-run)")
    library = ctypes.util.find_library("xcb")
    if library is None:
        raise NesbotError("--show needs the X11 client library libxcb, which is not installed")
    xcb = ctypes.CDLL(library)
    xcb.xcb_connect.restype = ctypes.c_void_p
    xcb.xcb_connect.argtypes = (ctypes.c_char_p, ctypes.c_void_p)
    xcb.xcb_connection_has_error.argtypes = (ctypes.c_void_p,)
    xcb.xcb_disconnect.argtypes = (ctypes.c_void_p,)
    connection = xcb.xcb_connect(name.encode(), None)
    try:
        failed = xcb.xcb_connection_has_error(connection)
    finally:
        xcb.xcb_disconnect(connection)  # also frees a connection that failed
    if failed:
        raise NesbotError(f"--show cannot open the display {name!r}")


class Window:
    """One window showing the game's pictures (see the module docstring)."""

    def __init__(self, renderer: Renderer, every_frame: bool = False, title: str = TITLE) -> None:
        check_display()
        self.renderer = renderer
        self.every_frame = every_frame
        self.title = title
        self.shown = 0  # pictures shown
        self._next_due = 0.0
        self._open = True
        # GUI_NORMAL: no toolbar or status bar, just the picture at its own size.
        cv2.namedWindow(title, cv2.WINDOW_AUTOSIZE | cv2.WINDOW_GUI_NORMAL)

    def __call__(self, picture: np.ndarray, info: FrameInfo | None, step: int) -> None:
        """A WholeFrames consumer: show the picture, if one is due."""
        if self._due(MAX_REFRESH_HZ) or self.every_frame:
            self.show(self.renderer.render(picture, info))

    def getting_ready(self, screen: np.ndarray, lines: tuple[str, str], done: float) -> None:
        """Show a screen under a message and a progress bar (done 0-1), at most
        BOOT_REFRESH_HZ times a second."""
        if self._due(BOOT_REFRESH_HZ):
            picture = self.renderer.render(screen).copy()
            draw_banner(picture, self.renderer.scale, lines, done)
            self.show(picture)

    def show(self, picture: np.ndarray) -> None:
        """Draw an RGB picture now; WindowClosed if the user has closed the window."""
        if not self._open:
            raise WindowClosed
        cv2.imshow(self.title, cv2.cvtColor(picture, cv2.COLOR_RGB2BGR))
        self.shown += 1
        cv2.waitKey(1)  # lets Qt draw and handle events, the close button's among them
        if not self._visible():
            self._open = False
            raise WindowClosed

    def close(self) -> None:
        if self._open:
            self._open = False
            try:
                cv2.destroyWindow(self.title)
                cv2.waitKey(1)
            except cv2.error:
                pass  # already gone with its last event

    def __enter__(self) -> "Window":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _due(self, hz: float) -> bool:
        now = time.perf_counter()
        if now < self._next_due:
            return False
        self._next_due = now + 1 / hz
        return True

    def _visible(self) -> bool:
        try:
            return cv2.getWindowProperty(self.title, cv2.WND_PROP_VISIBLE) >= 1
        except cv2.error:  # Qt's HighGUI forgets a window the user closed
            return False
