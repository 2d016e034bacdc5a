"""FCEUX, the emulator people open .fm2 movies in, run headless to tell what a movie plays.

`fceux_end_state(movie, rom)` plays the movie in Debian's `fceux` under a virtual X server
(xvfb-run) with tests/data/fceux_end_state.lua, and returns what RAM shows after its last
frame. `FCEUX` is the binary, or None where it is not installed (tests then skip; under
CI=true a skip fails the run, see conftest.py, and .ci/run installs it).
"""

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

# Debian installs FCEUX in /usr/games, which is not on root's PATH.
FCEUX = shutil.which("fceux") or shutil.which("fceux", path="/usr/games")
XVFB_RUN = shutil.which("xvfb-run")
LUA = Path(__file__).parent / "data" / "fceux_end_state.lua"
MISSING = "FCEUX or xvfb-run is not installed (apt-get install fceux xvfb xauth)"


def fceux_end_state(movie: Path, rom: Path, screenshot: Path | None = None) -> dict[str, int]:
    """What RAM shows once FCEUX has played every frame of `movie` from power-on: frames
    (FCEUX's frame count), lines, score, level, play_state, game_mode, frame_counter, piece
    (its orientation ID), column and next (the next piece's spawn orientation). With
    `screenshot`, FCEUX's picture of the last frame is saved there as a PNG (and shot_next
    is the next piece RAM held when it was taken)."""
    end, _ = fceux_run(movie, rom, screenshot=screenshot)
    return end


def fceux_run(
    movie: Path,
    rom: Path,
    checks: tuple[int, ...] = (),
    screenshot: Path | None = None,
    stop: int | None = None,
) -> tuple[dict[str, int], dict[int, dict[str, int]]]:
    """FCEUX's end state of `movie` (as fceux_end_state), and the same fields read once FCEUX
    has run each frame count in `checks` (past the movie's end, with no buttons). With
    `stop` (a frame count before the movie's end, after every check), FCEUX stops there
    and the end state is the one it shows then."""
    assert FCEUX is not None and XVFB_RUN is not None, MISSING
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "end_state.txt"
        # Without Qt settings of ours: cv2, once imported, points Qt at its own plugins.
        env = {key: value for key, value in os.environ.items() if not key.startswith("QT_")}
        env |= {"NESBOT_FCEUX_OUT": str(out), "HOME": folder}
        env["NESBOT_FCEUX_CHECKS"] = ",".join(str(frame) for frame in checks)
        if stop is not None:
            env["NESBOT_FCEUX_STOP"] = str(stop)
        if screenshot is not None:
            env["NESBOT_FCEUX_SHOT"] = str(screenshot)
        # --videoDriver 1 draws with SDL rather than OpenGL, which under Xvfb is software
        # rendering: half of FCEUX's time, for frames no one looks at (the RAM, and any
        # screenshot, come from the emulator, not the window).
        command = [XVFB_RUN, "-a", FCEUX, "--no-config", "1", "--sound", "0", "--videoDriver", "1"]
        if screenshot is None:  # nor draw them at all: another tenth of its time
            command += ["--frameskip", "1000"]
        command += ["--playmov", str(movie), "--loadlua", str(LUA), str(rom)]
        run = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
        if not out.exists():
            raise AssertionError(f"FCEUX wrote no end state (exit {run.returncode}): {run.stderr}")
        lines = out.read_text().splitlines()
    end: dict[str, int] = {}
    checked: dict[int, dict[str, int]] = {}
    for line in lines:
        fields = {key: int(value) for key, value in (field.split("=") for field in line.split())}
        if "check" in fields:
            checked[fields.pop("check")] = fields
        else:
            end |= fields
    return end, checked
