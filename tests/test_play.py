"""nesbot.bot.session.play, the session behind `nesbot play`: what it keeps (video, log, still) and
shows, its progress while the menus wait, and the CLI's checks before the ~40 s boot.

The session tests start from the saved level menu (tests/conftest.py) instead of booting
from power-on, so their input logs start there too.
"""

import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import av
import cv2
import numpy as np
import pytest

from nesbot.bot import session as play_module
from nesbot.bot.policy import Bot
from nesbot.bot.session import Outputs, play
from nesbot.nes import ram
from nesbot.nes.fm2 import read_fm2
from nesbot.nes.menus import GameSetup
from nesbot.nes.timing import ALIGNED_FRAMES
from nesbot.show.video import probe_video


@pytest.fixture
def from_level_menu(emulator, level_menu_state, monkeypatch):
    """play() on the session's emulator, loaded at the level menu, instead of a new one."""

    @contextmanager
    def shared(_path):
        emulator.observers.clear()
        emulator.load_state(level_menu_state)
        yield emulator
        emulator.observers.clear()

    monkeypatch.setattr(play_module, "Emulator", shared)
    return emulator


def luma(rgb: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(rgb, cv2.COLOR_RGB2YUV_I420)[: rgb.shape[0]].astype(float)


def test_play_keeps_video_log_and_still(from_level_menu, rom, tmp_path: Path) -> None:
    outputs = Outputs(
        log=tmp_path / "game.fm2",
        video=tmp_path / "game.mp4",
        still=tmp_path / "game.png",
        overlay=True,
    )
    boot = []
    session = play(
        rom,
        GameSetup(19, seed=7),
        Bot(),
        outputs,
        max_frames=240,
        boot_progress=lambda step, target: boot.append((step, target)),
    )
    assert session.result.frames == 240 and session.result.pieces >= 5
    assert session.video_frames == 240
    facts = probe_video(outputs.video)
    assert (facts.frames, facts.width, facts.height) == (240, 1152, 720)
    # The log has every frame from power-on, menus included: one a step (this emulator starts
    # at the level menu, so the boot's are written without a poll), and the two FCEUX counts
    # before nes-py's first vertical blank.
    assert len(read_fm2(outputs.log).frames) == from_level_menu.frame + 2
    # No 999,999 in 240 frames: the still is the last whole frame, as the video ends (the
    # one the step before the last began: the last step's is not whole yet).
    assert session.still_frame == from_level_menu.frame - 1
    still = cv2.cvtColor(cv2.imread(str(outputs.still)), cv2.COLOR_BGR2RGB)
    assert still.shape == (720, 1152, 3)
    with av.open(str(outputs.video)) as container:
        *_, last = container.decode(video=0)
    mse = np.mean((luma(still) - last.to_ndarray(format="yuv420p")[:720]) ** 2)
    assert 10 * np.log10(255**2 / mse) > 40  # the same picture, less the video's losses
    # The menus reported their progress towards the first whole-frame step and the seed.
    target = ALIGNED_FRAMES.start + GameSetup(19, seed=7).seed_frames
    assert boot and all(t == target for _, t in boot)
    assert [s for s, _ in boot] == sorted(s for s, _ in boot)


def test_the_still_is_the_frame_that_first_shows_999999(from_level_menu, rom, tmp_path) -> None:
    """The still is the step after the one after which RAM first reads 999,999: the game
    writes the score in a frame's logic and the next frame's NMI draws it. (Here the score
    is written straight into RAM before a step, so RAM reads it after that step.)"""
    poked = []

    def max_the_score(pad: int, emu) -> None:
        if not poked and ram.piece_active(emu.ram) and emu.frame % 7 == 0:
            emu.ram[ram.SCORE : ram.SCORE + 3] = 0x99
            poked.append(emu.frame)

    class Poking(Bot):
        def __call__(self, memory, frame):
            if frame > ALIGNED_FRAMES.start + 200:
                max_the_score(0, from_level_menu)
            return super().__call__(memory, frame)

    session = play(
        rom,
        GameSetup(19, seed=1),
        Poking(),
        Outputs(still=tmp_path / "cap.png"),
        max_frames=400,
    )
    assert poked and session.still_frame == poked[0] + 2
    assert session.result.frames == 400
    assert cv2.imread(str(tmp_path / "cap.png")).shape == (720, 768, 3)


def nesbot(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "nesbot", *args], capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--overlay"], ("--overlay draws on",)),
        (["--still", "game.jpg"], (".png",)),
        (["--still", "no/such/dir/game.png"], ("does not exist",)),
        (["--video", "game.avi"], (".mp4 or .webm",)),
        (["--video", "game.mp4", "--scale", "9"], ("1 to 8",)),
    ],
)
def test_bad_play_outputs_fail_before_the_boot(rom_path, tmp_path, args, words) -> None:
    args = [str(tmp_path / a) if a.startswith(("game", "no/")) else a for a in args]
    result = nesbot("play", "--rom", str(rom_path), *args)
    lines = [line for line in result.stderr.splitlines() if not line.startswith("using ROM")]
    assert result.returncode == 2 and len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    for word in words:
        assert word in lines[0]
