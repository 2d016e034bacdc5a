"""Every output option of the command line, against the paths that would destroy something:
an input, another output, a device, a full disk, an unwritable place; and an existing file
that a failing run must leave as it was. Each is one line on stderr and exit 2."""

import json
import os
import resource
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from nesbot.cli import main

MENUS_LOG = "version 3\n" + "|0|........|||\n" * 240


@dataclass(frozen=True)
class Output:
    """One output option: the command line that writes `option` to a path, the input
    option (or positional) it may not share a path with, and another output of it."""

    command: str
    option: str
    name: str  # a file name the option accepts
    input: str  # an input's option, or the positional's name in messages
    other: str  # another output option of the command, "" if it has none

    def argv(self, tmp: Path, path: Path, rom: Path, extra: dict[str, Path]) -> list[str]:
        """The command writing `path`, the inputs in `tmp`, `extra` other options."""
        given = {self.option: path} | extra
        inputs = {
            "LOG": tmp / "in.fm2",
            "OLD.fm2": tmp / "in.fm2",
            "GAME": tmp / "in.fm2",
        }
        head = [self.command]
        if self.command in ("replay", "rate"):
            head.append(str(given.pop("LOG", None) or given.pop("GAME", None) or inputs["LOG"]))
        if self.command == "convert":
            head += [str(given.pop("OLD.fm2", inputs["OLD.fm2"])), str(given.pop("NEW.fm2"))]
        if self.command in ("play", "replay", "rate", "convert"):
            head += ["--rom", str(rom)]
        required = {"train": ["--iterations", "1"]}.get(self.command, [])
        if self.command == "train" and "--out" not in given:
            given["--out"] = tmp / "w.json"
        return head + required + [arg for k, v in given.items() for arg in (k, str(v))]


OUTPUTS = (
    Output("play", "--log", "g.fm2", "--weights", "--video"),
    Output("play", "--video", "g.mp4", "--weights", "--still"),
    Output("play", "--still", "g.png", "--weights", "--log"),
    Output("replay", "--trace", "t.jsonl", "LOG", "--video"),
    Output("replay", "--video", "g.mp4", "LOG", "--trace"),
    Output("convert", "NEW.fm2", "new.fm2", "OLD.fm2", ""),
    Output("rate", "--video", "g.mp4", "GAME", "--report"),
    Output("rate", "--report", "r.html", "GAME", "--video"),
    Output("train", "--out", "w.json", "--weights", "--checkpoint"),
    Output("train", "--checkpoint", "c.json", "--weights", "--out"),
    Output("simulate", "--save-games", "g.jsonl", "--weights", "--plot"),
    Output("simulate", "--plot", "p.png", "--value-model", "--save-games"),
    Output("surface-table", "--out", "s.npz", "", "--checkpoint"),
    Output("surface-table", "--checkpoint", "c.npz", "", "--out"),
)
IDS = [f"{output.command} {output.option}" for output in OUTPUTS]


def one_line_error(capsys: pytest.CaptureFixture[str], argv: list[str], *words: str) -> str:
    """Run nesbot in this process; assert exit 2 with one line naming `words`."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if not line.startswith("using ROM")]
    assert len(lines) == 1 and lines[0].startswith("nesbot: error: "), err
    for word in words:
        assert word in lines[0], err
    return lines[0]


@pytest.fixture
def inputs(tmp_path: Path) -> Path:
    """A directory with a replayable log and a weights file, as inputs."""
    (tmp_path / "in.fm2").write_text(MENUS_LOG)
    (tmp_path / "in.json").write_text("{}")
    return tmp_path


def _unchanged(tmp_path: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in tmp_path.iterdir() if path.is_file()}


@pytest.mark.parametrize(
    "output",
    [o for o in OUTPUTS if o.input],
    ids=[i for o, i in zip(OUTPUTS, IDS, strict=True) if o.input],
)
def test_an_input_as_output_is_refused_before_any_work(output, inputs, rom_path, capsys):
    before = _unchanged(inputs)
    victim = inputs / ("in.fm2" if output.input in ("LOG", "OLD.fm2", "GAME") else "in.json")
    argv = output.argv(inputs, victim, rom_path, {})
    if output.input.startswith("--"):
        argv += [output.input, str(victim)]
    elif output.command in ("replay", "rate", "convert"):
        argv[1] = str(victim)
    one_line_error(capsys, argv, str(victim), "is also", output.input)
    assert _unchanged(inputs) == before


@pytest.mark.parametrize(
    "output",
    [o for o in OUTPUTS if o.other],
    ids=[i for o, i in zip(OUTPUTS, IDS, strict=True) if o.other],
)
def test_two_outputs_on_one_path_are_refused_before_any_work(output, inputs, rom_path, capsys):
    path = inputs / output.name
    argv = output.argv(inputs, path, rom_path, {output.other: path})
    one_line_error(capsys, argv, str(path), "is also")
    assert not path.exists()


REFUSED: dict[str, Callable[[Path, str], Path]] = {
    "a device": lambda tmp, name: Path("/dev/null"),
    "a full disk (/dev/full)": lambda tmp, name: _linked(tmp / name, "/dev/full"),
    "a directory": lambda tmp, name: tmp,
    "a FIFO": lambda tmp, name: _fifo(tmp / name),
    "a missing directory": lambda tmp, name: tmp / "gone" / name,
    "an unwritable place": lambda tmp, name: Path("/proc") / name,
}


def _linked(path: Path, to: str) -> Path:
    path.symlink_to(to)
    return path


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("case", REFUSED)
@pytest.mark.parametrize("output", OUTPUTS, ids=IDS)
def test_a_place_that_is_not_a_replaceable_file_is_refused(output, case, inputs, rom_path, capsys):
    path = REFUSED[case](inputs, output.name)
    before = sorted(inputs.iterdir())
    one_line_error(capsys, output.argv(inputs, path, rom_path, {}), str(path), "cannot write")
    assert sorted(inputs.iterdir()) == before
    assert Path("/dev/null").is_char_device() and Path("/dev/full").is_char_device()


def _nesbot_on_a_full_disk(argv: list[str], limit: int) -> subprocess.CompletedProcess:
    """nesbot where a file cannot grow past `limit` bytes: its writes fail with EFBIG, as
    on a full disk (Python ignores SIGXFSZ; the video encoder inherits the limit)."""
    return subprocess.run(
        [sys.executable, "-m", "nesbot", *argv],
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit)),
    )


def _assert_one_line(result: subprocess.CompletedProcess, *words: str) -> None:
    """Exit 2, one error line naming `words`, and no traceback among the progress lines."""
    errors = [line for line in result.stderr.splitlines() if line.startswith("nesbot:")]
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    assert len(errors) == 1, result.stderr
    for word in words:
        assert word in errors[0], result.stderr


def test_a_full_disk_under_a_video_is_one_line_and_leaves_the_old_video(tmp_path):
    """The encoder process, limited as on a full disk, fails mid-game: the writer says so
    in one NesbotError and the older file stays."""
    import numpy as np

    from nesbot.errors import NesbotError
    from nesbot.show.video import VideoWriter

    video = tmp_path / "game.mp4"
    video.write_bytes(b"an older video")
    rng = np.random.default_rng(0)  # noise: frames that do not compress
    with pytest.raises(NesbotError) as raised, VideoWriter(video, scale=1) as writer:
        writer.wait_started()
        resource.prlimit(writer._process.pid, resource.RLIMIT_FSIZE, (50_000, 50_000))
        for _ in range(100):
            writer.write(rng.integers(0, 256, (240, 256, 3), np.uint8))
    assert str(raised.value) == f"cannot write video {video}: File too large"
    assert video.read_bytes() == b"an older video"
    assert sorted(tmp_path.iterdir()) == [video]


def test_a_video_without_shared_memory_is_one_line(tmp_path):
    result = _nesbot_on_a_full_disk(["play", "--video", str(tmp_path / "g.mp4")], 1000)
    _assert_one_line(result, "no shared memory")


def test_a_full_disk_under_trained_weights_leaves_the_old_weights(tmp_path):
    out = tmp_path / "w.json"
    out.write_text("older weights")
    brief = ["--particles", "2", "--games", "1", "--iterations", "1", "--level", "28"]
    result = _nesbot_on_a_full_disk(["train", "--out", str(out), *brief], 1024)
    _assert_one_line(result, f"cannot write weights file {out}", "File too large")
    assert out.read_text() == "older weights"
    assert sorted(tmp_path.iterdir()) == [out]


def test_a_full_disk_under_saved_games_leaves_the_games_saved(tmp_path):
    games = tmp_path / "g.jsonl"
    run = ["simulate", "--level", "29", "--seed", "3", "--save-games", str(games)]
    assert main([*run, "--games", "1"]) == 0
    saved = games.read_bytes()
    result = _nesbot_on_a_full_disk([*run, "--games", "2"], len(saved) // 2)
    _assert_one_line(result, f"cannot write games file {games}", "File too large")
    assert games.read_bytes() == saved
    assert json.loads(saved.splitlines()[1])["index"] == 0
    assert sorted(tmp_path.iterdir()) == [games]
