"""--show: a real window under a virtual X display (Xvfb), looked at and closed the way a
window manager closes it (WM_DELETE_WINDOW); without a display, one line and exit 2.

The GUI runs only in subprocesses: Qt, once connected to a display, would take the test
process down with it when the Xvfb goes away.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from nesbot.nes.fm2 import read_fm2
from nesbot.show.video import probe_video

BANNER_BAR_RGB = (60, 188, 252)  # the getting-ready progress bar (nesbot.show.overlay)


@pytest.fixture(scope="module")
def display() -> Iterator[str]:
    """A running Xvfb; its DISPLAY name."""
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        pytest.skip("Xvfb is not installed (apt-get install xvfb); .ci/run installs it")
    # -displayfd: Xvfb picks a free display itself and says which, so that test runs side
    # by side (or a desktop's own display) never collide.
    read_end, write_end = os.pipe()
    server = subprocess.Popen(
        [xvfb, "-displayfd", str(write_end), "-screen", "0", "1600x1000x24", "-nolisten", "tcp"],
        pass_fds=(write_end,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write_end)
    try:
        with os.fdopen(read_end) as said:
            number = said.readline().strip()
        assert number.isdigit() and server.poll() is None, "Xvfb did not start"
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(10)


def nesbot(*args: str, display_name: str | None) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    if display_name is not None:
        env["DISPLAY"] = display_name
    return subprocess.Popen(
        [sys.executable, "-m", "nesbot", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        # As from a terminal: SIGINT is not inherited as ignored (see test_cli).
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


class X:
    """A client of the test display: finds nesbot's window, photographs it, closes it."""

    def __init__(self, name: str) -> None:
        from Xlib import display

        self.display = display.Display(name)
        self.pid_atom = self.display.intern_atom("_NET_WM_PID")

    def window(self, process: subprocess.Popen, width: int, height: int, timeout: float = 60.0):
        """The window of `process` once it is mapped and has its final size (Qt maps it
        small, then resizes it to the picture). By its _NET_WM_PID, which Qt sets: a window
        of the test before, whose process has exited, can still be listed for a moment on a
        busy machine, with the same size."""
        found = None

        def sized() -> bool:
            nonlocal found
            assert process.poll() is None, process.communicate()[1]
            found = self._find(self.display.screen().root, process.pid)
            if found is None:
                return False
            try:
                geometry = found.get_geometry()
            except Exception:  # the window went away while we looked
                return False
            return (geometry.width, geometry.height) == (width, height)

        wait_for(sized, timeout, f"a {width}x{height} nesbot window")
        return found

    def _find(self, window, pid: int | None = None):
        """A mapped window named nesbot (of process `pid` if given)."""
        for child in window.query_tree().children:
            try:
                name = child.get_wm_name()
                mapped = child.get_attributes().map_state
                owner = None if pid is None else child.get_full_property(self.pid_atom, 0)
                owned = pid is None or (owner is not None and list(owner.value) == [pid])
            except Exception:  # the window went away while we looked
                continue
            if name == "nesbot" and mapped and owned:
                return child
            found = self._find(child, pid)
            if found is not None:
                return found
        return None

    def picture(self, window) -> np.ndarray:
        """The window's pixels, RGB."""
        from Xlib import X as Xconst

        geometry = window.get_geometry()
        image = window.get_image(0, 0, geometry.width, geometry.height, Xconst.ZPixmap, 0xFFFFFFFF)
        bgrx = np.frombuffer(image.data, np.uint8).reshape(geometry.height, geometry.width, 4)
        return bgrx[:, :, 2::-1]

    def close(self, window) -> None:
        """What a window manager's close button does: ask the client to delete it."""
        from Xlib import X as Xconst
        from Xlib.protocol import event

        protocols = self.display.intern_atom("WM_PROTOCOLS")
        delete = self.display.intern_atom("WM_DELETE_WINDOW")
        message = event.ClientMessage(
            window=window,
            client_type=protocols,
            data=(32, [delete, Xconst.CurrentTime, 0, 0, 0]),
        )
        window.send_event(message)
        self.display.flush()

    def gone(self, timeout: float = 20.0) -> None:
        wait_for(lambda: self._find(self.display.screen().root) is None, timeout, "no window")


def wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    """Poll `condition` until it holds; fail saying `what` was awaited."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"waited {timeout:.0f} s for {what}"
        time.sleep(0.05)


def encoder_has_written(video: Path) -> bool:
    """True once the encoder has written packets, not only the container's header: the
    video then holds frames (the first picture, whole, is most of a megabyte). It is written
    beside its path until it is complete (nesbot.output_file)."""
    for path in video.parent.glob(f"{video.stem}.partial-*{video.suffix}"):
        try:
            if path.stat().st_size > 4096:
                return True
        except FileNotFoundError:  # renamed or removed as nesbot ended: the caller says why
            pass
    return False


def menu_log(path: Path, frames: int) -> Path:
    path.write_text("version 3\n" + "|0|........|||\n" * frames)
    return path


def one_line_error(process: subprocess.Popen, *words: str) -> None:
    _, stderr = process.communicate(timeout=120)
    lines = [line for line in stderr.splitlines() if not line.startswith("using ROM")]
    assert process.returncode == 2 and len(lines) == 1, stderr
    for word in words:
        assert word in lines[0]


def test_without_a_display_show_says_so_in_one_line(tmp_path: Path, rom_path) -> None:
    log = menu_log(tmp_path / "menus.fm2", 10)
    one_line_error(
        nesbot("replay", str(log), "--rom", str(rom_path), "--show", display_name=None),
        "--show needs a display",
    )
    one_line_error(
        nesbot("play", "--rom", str(rom_path), "--show", display_name=":989"),
        "--show cannot open the display",
    )


def test_replay_shows_every_frame_and_closes_at_the_end(
    tmp_path: Path, rom_path, display: str
) -> None:
    log = menu_log(tmp_path / "menus.fm2", 300)
    x = X(display)
    started = time.monotonic()
    process = nesbot(
        "replay",
        str(log),
        "--rom",
        str(rom_path),
        "--show",
        "--realtime",
        "--json",
        display_name=display,
    )
    x.window(process, 768, 720)  # scale 3, no panel: the picture whole
    stdout, stderr = process.communicate(timeout=120)
    seconds = time.monotonic() - started
    assert process.returncode == 0, stderr
    # 300 FCEUX frames are 298 of nes-py's steps (the first two come before the first
    # vertical blank); the menus: no game frames yet.
    assert json.loads(stdout)["steps"] == 298
    assert seconds >= 298 / 60.0988  # paced at the NES's rate
    x.gone()


def test_closing_the_window_ends_a_replay_as_ctrl_c_does(
    tmp_path: Path, rom_path, display: str
) -> None:
    log = menu_log(tmp_path / "long.fm2", 30_000)
    video = tmp_path / "replay.mp4"
    x = X(display)
    process = nesbot(
        "replay",
        str(log),
        "--rom",
        str(rom_path),
        "--show",
        "--video",
        str(video),
        "--overlay",
        display_name=display,
    )
    window = x.window(process, 1152, 720)  # with the panel
    wait_for(lambda: encoder_has_written(video), 120, "frames in the video")
    x.close(window)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr and "nesbot: the window was closed" in stderr
    facts = probe_video(video)
    assert facts.codec == "h264" and 0 < facts.frames < 30_000
    assert facts.width == 1152  # with the panel
    x.gone()


def test_play_shows_getting_ready_then_closing_keeps_log_and_video(
    tmp_path: Path, rom_path, display: str
) -> None:
    video, log = tmp_path / "game.mp4", tmp_path / "game.fm2"
    x = X(display)
    process = nesbot(
        "play",
        "--rom",
        str(rom_path),
        "--show",
        "--overlay",
        "--video",
        str(video),
        "--log",
        str(log),
        "--seed",
        "3",
        display_name=display,
    )
    window = x.window(process, 1152, 720)

    seen: list[np.ndarray] = []

    def progress_bar() -> bool:
        assert process.poll() is None, process.communicate()[1]
        seen[:] = [x.picture(window)[-34 * 3 :].astype(int)]
        return bool((np.abs(seen[0] - BANNER_BAR_RGB) < 8).all(axis=2).any())

    # While the menus wait, the window says so with a progress bar under the menu screens.
    try:
        wait_for(progress_bar, 60, "the getting-ready progress bar")
    except AssertionError as error:  # say what the window's bottom showed instead
        if not seen or process.poll() is not None:
            raise
        colours, counts = np.unique(seen[0].reshape(-1, 3), axis=0, return_counts=True)
        common = colours[np.argsort(counts)[::-1][:4]].tolist()
        raise AssertionError(f"{error}; its bottom rows' commonest colours: {common}") from None

    # The video starts with the game's first frame; close the window once it holds some.
    def game_recorded() -> bool:
        assert process.poll() is None, process.communicate()[1]
        return encoder_has_written(video)

    wait_for(game_recorded, 240, "the game's frames in the video")
    time.sleep(1)  # the first frame is in the file at once; let the game go on a while
    x.close(window)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert "nesbot: the window was closed" in stderr
    assert f"video {video}" in stderr and f"log {log}" in stderr  # named at the end
    frames = read_fm2(log).frames
    facts = probe_video(video)
    assert facts.codec == "h264" and facts.frames > 30
    assert len(frames) > 24_000 + facts.frames - 5  # the log goes on from power-on
    x.gone()
