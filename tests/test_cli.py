"""The command line: help everywhere; bad input gives one line on stderr and exit 2."""

import argparse
import json
import os
import subprocess
import sys

import pytest

from nesbot.arguments import max_workers
from nesbot.cli import COMMANDS, main
from nesbot.evaluation.evaluators import DEFAULT_EVALUATOR


def nesbot(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "nesbot", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


@pytest.mark.parametrize(
    "args", [["--help"], ["play", "--help"], ["replay", "--help"], ["verify", "--help"]]
)
def test_help(args):
    result = nesbot(*args)
    assert result.returncode == 0 and "usage" in result.stdout


def _option_strings(command: str) -> list[str]:
    """The long options of `nesbot COMMAND` (each option's longest spelling), from its parser."""
    from nesbot.cli import build_parser

    subparsers = next(
        action
        for action in build_parser()._actions
        if isinstance(action, argparse._SubParsersAction)
    )
    return [
        max(action.option_strings, key=len)
        for action in subparsers.choices[command]._actions
        if action.option_strings
    ]


@pytest.mark.parametrize("command", [command.NAME for command in COMMANDS])
def test_every_commands_help_runs_in_process_and_names_its_options(command, capsys):
    """`nesbot COMMAND --help` through main itself (no child process): it exits 0 and its
    text names every option the command takes."""
    assert main([command, "--help"]) == 0
    text = capsys.readouterr().out
    assert text.startswith(f"usage: nesbot {command}")
    options = _option_strings(command)
    assert "--help" in options
    missing = [option for option in options if option not in text]
    assert not missing, f"nesbot {command} --help does not name {missing}"


def test_help_names_the_default_evaluator():
    wide = nesbot("simulate", "--help", env={**os.environ, "COLUMNS": "1000"})  # one line
    assert f"(default: {DEFAULT_EVALUATOR};" in wide.stdout


def test_version():
    result = nesbot("--version")
    assert result.returncode == 0 and result.stdout.startswith("nesbot ")


def _assert_one_line_error(result, *words):
    assert result.returncode == 2, result.stderr
    lines = [line for line in result.stderr.splitlines() if not line.startswith("using ROM")]
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    for word in words:
        assert word in lines[0]


def test_missing_rom(tmp_path):
    log = tmp_path / "a.fm2"
    log.write_text("version 3\n|0|........|||\n")
    _assert_one_line_error(nesbot("replay", str(log), "--rom", str(tmp_path / "no.nes")), "no.nes")


def test_rom_is_a_directory(tmp_path):
    _assert_one_line_error(nesbot("play", "--rom", str(tmp_path)), "directory")


def test_malformed_log(tmp_path, rom_path):
    log = tmp_path / "bad.fm2"
    log.write_text("version 3\n|0|....|||\n")
    _assert_one_line_error(nesbot("replay", str(log), "--rom", str(rom_path)), "line 2")


def test_random_bytes_log(tmp_path, rom_path):
    log = tmp_path / "random.fm2"
    log.write_bytes(bytes(range(256)) * 4)
    _assert_one_line_error(nesbot("verify", str(log), "--rom", str(rom_path)))


def test_log_for_another_rom(tmp_path, rom_path):
    log = tmp_path / "other.fm2"
    log.write_text("version 3\nromChecksum base64:AAAAAAAAAAAAAAAAAAAAAA==\n|0|........|||\n")
    _assert_one_line_error(nesbot("replay", str(log), "--rom", str(rom_path)), "md5")


def test_bad_level(rom_path):
    _assert_one_line_error(nesbot("play", "--rom", str(rom_path), "--level", "25"), "0-19")


def test_unwritable_trace(tmp_path, rom_path):
    log = tmp_path / "ok.fm2"
    log.write_text("version 3\n|0|........|||\n")
    _assert_one_line_error(
        nesbot("replay", str(log), "--rom", str(rom_path), "--trace", str(tmp_path / "x" / "t")),
        "trace",
    )


def _input_lines(path) -> int:
    """Frame lines of an .fm2 log being written that are on disk so far (0 before the file
    exists); it is written beside its path (nesbot.output_file) until it is closed."""
    partial = sorted(path.parent.glob(f"{path.stem}.partial-*{path.suffix}"))
    try:
        text = partial[0].read_text() if partial else ""
    except FileNotFoundError:
        return 0
    return sum(line.startswith("|") for line in text.splitlines())


@pytest.mark.slow
def test_ctrl_c_leaves_a_readable_log(tmp_path, rom_path):
    import signal
    import time

    from nesbot.nes.fm2 import FLUSH_EVERY, read_fm2

    log = tmp_path / "interrupted.fm2"
    process = subprocess.Popen(
        [sys.executable, "-m", "nesbot", "play", "--rom", str(rom_path), "--log", str(log)],
        stderr=subprocess.PIPE,
        text=True,
        # As from a terminal: a job started in the background of a non-interactive shell
        # (as CI may run us) inherits SIGINT ignored, and Python then keeps ignoring it.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    # Interrupt while it boots, once the log has reached the disk (a first batch of lines).
    deadline = time.monotonic() + 120
    while (seen := _input_lines(log)) < FLUSH_EVERY:
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"no {FLUSH_EVERY} logged frames on disk (saw {seen}) before Ctrl-C")
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130 and "Traceback" not in stderr
    assert stderr.rstrip().endswith("nesbot: interrupted")
    # A readable log (read_fm2 refuses a cut line) holding at least what was on disk, in
    # its place.
    assert len(read_fm2(log).frames) >= seen
    assert sorted(tmp_path.iterdir()) == [log]


def test_explain_prints_the_evaluation_and_the_choice():
    from pathlib import Path

    board = Path(__file__).parent / "data" / "example_board.txt"
    result = nesbot("explain", str(board), "--piece", "I", "--next", "T")
    assert result.returncode == 0, result.stderr
    # every feature the default evaluator weighs, for the board and for the board after
    assert result.stdout.count("stack_holes") == 2
    trained = nesbot(
        "explain", str(board), "--piece", "I", "--next", "T", "--evaluator", "nesbot-trained"
    )
    assert trained.stdout.count("total_row_transitions") == 2
    assert "lock at x=" in result.stdout and "board after it:" in result.stdout


def test_explain_bad_board(tmp_path):
    board = tmp_path / "short.txt"
    board.write_text("..........\n" * 5)
    _assert_one_line_error(nesbot("explain", str(board)), "5 rows")
    _assert_one_line_error(nesbot("explain", str(tmp_path / "none.txt")), "cannot read")


def test_replay_renders_a_video(tmp_path, rom_path):
    from nesbot.show.video import read_video_frames

    log = tmp_path / "menus.fm2"
    log.write_text("version 3\n" + "|0|........|||\n" * 240)
    video = tmp_path / "menus.mp4"
    result = nesbot(
        "replay", str(log), "--rom", str(rom_path), "--video", str(video), "--scale", "1", "--json"
    )
    assert result.returncode == 0, result.stderr
    # 240 FCEUX frames are 238 of nes-py's steps (the first two come before the first
    # vertical blank); the last step's picture is not whole yet.
    assert read_video_frames(video) == 237


def test_replay_says_when_the_game_differs_from_the_recorded_one(tmp_path, rom_path):
    log = tmp_path / "menus.fm2"
    menus = "|0|........|||\n" * 60
    log.write_text("version 3\ncomment result score=5 lines=0 frames=0\n" + menus)
    result = nesbot("replay", str(log), "--rom", str(rom_path))
    assert result.returncode == 1
    assert "differs from the recorded game: score 0 (recorded 5)" in result.stderr
    log.write_text("version 3\ncomment result score=0 lines=0 frames=0\n" + menus)
    result = nesbot("replay", str(log), "--rom", str(rom_path), "--json")
    assert result.returncode == 0 and '"matches_recorded": true' in result.stdout


def test_replay_renders_with_x264_and_refuses_a_codec_without_a_video(tmp_path, rom_path):
    from nesbot.show.video import probe_video

    log = tmp_path / "menus.fm2"
    log.write_text("version 3\n" + "|0|........|||\n" * 60)
    video = tmp_path / "menus.mp4"
    replay = ["replay", str(log), "--rom", str(rom_path), "--scale", "1"]
    result = nesbot(*replay, "--video", str(video), "--codec", "x264")
    assert result.returncode == 0, result.stderr
    facts = probe_video(video)
    assert (facts.profile, facts.frames) == ("High", 57)  # 60 FCEUX frames, as above
    _assert_one_line_error(nesbot(*replay, "--codec", "x264"), "--codec chooses the encoder")
    _assert_one_line_error(
        nesbot("play", "--codec", "x264", "--video", str(tmp_path / "g.webm")), "--codec"
    )


def test_video_needs_the_emulator(tmp_path, rom_path):
    log = tmp_path / "a.fm2"
    log.write_text("version 3\n|0|........|||\n")
    _assert_one_line_error(
        nesbot(
            "replay",
            str(log),
            "--rom",
            str(rom_path),
            "--engine",
            "sim",
            "--video",
            str(tmp_path / "v.mp4"),
        ),
        "--engine emulator",
    )


@pytest.mark.slow
def test_sim_engine_refuses_a_game_outside_the_aligned_window(tmp_path, rom_path):
    """A log that starts its game right after power-on, as another tool's log would (one
    that counts nes-py's steps, and says so)."""
    lines = ["version 3", "comment steps nes-py"] + ["|0|........|||"] * 600
    lines += ["|0|....T...|||", "|0|........|||"] * 20 + ["|0|........|||"] * 300
    log = tmp_path / "early.fm2"
    log.write_text("\r\n".join(lines) + "\r\n")
    _assert_one_line_error(
        nesbot("replay", str(log), "--rom", str(rom_path), "--engine", "sim"),
        "outside frames",
        "--engine emulator",
    )
    emulated = nesbot("replay", str(log), "--rom", str(rom_path), "--json")
    assert emulated.returncode == 0 and '"pieces": ' in emulated.stdout


@pytest.mark.slow
def test_replay_names_a_frame_nes_py_cannot_play_and_goes_on_only_when_told(tmp_path, rom_path):
    """Start pressed every other frame into a new game, whose first frames draw the whole
    playfield: a step there polls two frames, one pressed and one not."""
    lines = ["version 3"] + ["|0|........|||"] * 600
    lines += ["|0|....T...|||", "|0|........|||"] * 20 + ["|0|........|||"] * 300
    log = tmp_path / "movie.fm2"
    log.write_text("\n".join(lines) + "\n")
    stopped = nesbot("replay", str(log), "--rom", str(rom_path), "--json")
    assert stopped.returncode == 2 and stopped.stdout == "" and "Traceback" not in stopped.stderr
    error = stopped.stderr.splitlines()[-1]  # after the progress lines
    assert error.startswith("nesbot: error: ") and "needs buttons" in error and "--go-on" in error
    went_on = nesbot("replay", str(log), "--rom", str(rom_path), "--json", "--go-on")
    assert went_on.returncode == 0, went_on.stderr
    named = [line for line in went_on.stderr.splitlines() if "going on (--go-on)" in line]
    assert named and all("needs buttons" in line for line in named)
    assert '"pieces": ' in went_on.stdout


@pytest.mark.slow
def test_convert_turns_a_log_of_steps_into_a_movie_of_the_same_game(tmp_path, rom_path):
    from test_nes_frames import person_like

    from nesbot.nes.fm2 import fceux_rom_md5, read_fm2, write_fm2

    old, new = tmp_path / "old.fm2", tmp_path / "new.fm2"
    md5 = fceux_rom_md5(rom_path.read_bytes())
    write_fm2(old, person_like(6, 3_000), md5, [("seed", "6")], counts_steps=True)
    rom = ["--rom", str(rom_path)]
    before = nesbot("replay", str(old), *rom, "--json")
    converted = nesbot("convert", str(old), str(new), *rom)
    assert converted.returncode == 0, converted.stderr
    assert "NES frames" in converted.stderr.splitlines()[-1]
    after = nesbot("replay", str(new), *rom, "--json")
    assert before.returncode == after.returncode == 0, after.stderr
    assert json.loads(after.stdout) == json.loads(before.stdout)
    movie = read_fm2(new)
    assert not movie.counts_steps
    assert {"frames fceux", "seed 6", "converted_from old.fm2"} <= set(movie.comments)
    _assert_one_line_error(
        nesbot("convert", str(new), str(tmp_path / "again.fm2"), *rom), "already counts NES frames"
    )


def test_output_into_a_closed_pipe_ends_quietly():
    """`nesbot simulate ... | head -c 1`: the reader leaves before the summary is written;
    nesbot stops without a traceback, as Unix tools do."""
    read, write = os.pipe()
    os.close(read)  # a reader already gone
    with os.fdopen(write, "w") as closed:
        result = subprocess.run(
            [sys.executable, "-m", "nesbot", "simulate", "--games", "1", "--level", "29"],
            stdout=closed,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    assert result.returncode == 1 and "Error" not in result.stderr


PLANNING_COMMANDS = ("play", "simulate", "rate", "explain")


def planner_settings_of(command: str, *options: str):
    """The PlannerSettings `command` (any of PLANNING_COMMANDS) parses `options` into."""
    from nesbot.cli import build_parser
    from nesbot.cli.options import planner_settings

    argv = [command, *(["FILE"] if command in ("rate", "explain") else []), *options]
    return planner_settings(build_parser().parse_args(argv))


def test_the_lookaheads_breadth_is_an_option_of_every_planning_command():
    """--deep-width and --deep-branch reach the planner's settings (before level 29; the
    kill screen keeps its own); 0 or none is the format's default (wider with a reaction at
    30 Hz); outside 0-8 they are a one-line error."""
    from nesbot.bot.planning import PlannerSettings

    for command in PLANNING_COMMANDS:
        settings = planner_settings_of(command, "--deep-width", "6", "--deep-branch", "4")
        assert (settings.deep_width, settings.deep_branch) == (6, 4), command
        assert settings.kill_screen_deep_width == PlannerSettings().kill_screen_deep_width
    for options, widths in (
        ((), (3, 2)),
        (("--reaction", "18"), (6, 4)),
        (("--reaction", "18", "--tap-hz", "20"), (3, 2)),
        (("--reaction", "18", "--deep-width", "0", "--deep-branch", "3"), (6, 3)),
    ):
        settings = planner_settings_of("simulate", *options)
        assert (settings.deep_width, settings.deep_branch) == widths, options
    _assert_one_line_error(
        nesbot("simulate", "--games", "1", "--deep-width", "9"), "--deep-width 9"
    )
    _assert_one_line_error(
        nesbot("simulate", "--games", "1", "--deep-branch", "9"), "--deep-branch 9"
    )


def test_the_next_pieces_width_is_an_option_of_every_planning_command():
    """--next-width reaches the planner's settings and the planner; 0 or none is the
    tap rate's default (2 at 30 Hz, else 1); above 4 it is a one-line error."""
    from nesbot.bot.planning import PlannerSettings, build_planner
    from nesbot.evaluation.evaluators import get_evaluator

    assert PlannerSettings().next_width == 2
    assert PlannerSettings(reaction=18).next_width == 2
    assert PlannerSettings(tap_hz=20).next_width == 1
    assert PlannerSettings(reaction=18, tap_hz=20).next_width == 1
    # at another tap rate (a log's measured one) the widths left to the format are its own
    assert PlannerSettings().at_tap_hz(20) == PlannerSettings(tap_hz=20)
    assert PlannerSettings(reaction=18).at_tap_hz(20) == PlannerSettings(reaction=18, tap_hz=20)
    assert PlannerSettings(next_width=3).at_tap_hz(20).next_width == 3  # given, kept
    for command in PLANNING_COMMANDS:
        settings = planner_settings_of(command, "--next-width", "3")
        assert settings.next_width == 3, command
    assert build_planner(get_evaluator(), settings).next_width == 3
    _assert_one_line_error(
        nesbot("simulate", "--games", "1", "--next-width", "5"), "--next-width 5"
    )


def test_the_kill_screens_third_piece_is_an_option_of_every_planning_command():
    """--kill-screen-third-width reaches the planner's settings; none is the format's
    default (2 with a reaction at 30 and 20 Hz, else 0), 0 turns it off, and past the kill
    screen's lookahead width it is a one-line error."""
    for command in PLANNING_COMMANDS:
        settings = planner_settings_of(command, "--kill-screen-third-width", "1")
        assert settings.kill_screen_third_width == 1, command
    assert planner_settings_of("simulate", "--reaction", "18").kill_screen_third_width == 2
    off = planner_settings_of("simulate", "--reaction", "18", "--kill-screen-third-width", "0")
    assert off.kill_screen_third_width == 0
    assert planner_settings_of("simulate").kill_screen_third_width == 0
    _assert_one_line_error(
        nesbot("simulate", "--games", "1", "--kill-screen-third-width", "7"),
        "--kill-screen-third-width 7",
    )


def test_explain_refuses_an_endless_board(tmp_path):
    board = tmp_path / "board.txt"
    board.symlink_to("/dev/zero")
    _assert_one_line_error(nesbot("explain", str(board)), "larger than 1,048,576 bytes")


@pytest.mark.parametrize(
    "args",
    [
        ["simulate", "--games", "2", "--workers", "100000"],
        ["train", "--out", "w.json", "--workers", "100000"],
        ["rate", "g.fm2", "--workers", "100000"],
        ["surface-table", "--out", "s.json", "--checkpoint", "c.npz", "--workers", "100000"],
    ],
)
def test_a_typos_worker_count_starts_no_processes(args, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(args) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith(f"nesbot: error: --workers 100000: need 1 to {max_workers()} ")
    assert not list(tmp_path.iterdir())


def test_an_iteration_of_a_trillion_games_is_refused_before_any(tmp_path, capsys):
    out = tmp_path / "w.json"
    assert main(["train", "--out", str(out), "--particles", "1000000", "--games", "1000000"]) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith("nesbot: error: --particles 1000000 x --games 1000000: an iteration")
    assert not out.exists()


@pytest.mark.parametrize(
    ("rows", "args", "message"),
    [
        (["." * 10] * 18 + ["#" * 10, "#" * 9 + "."], [], "row 19 is full"),
        (["....##...."] + ["." * 10] * 19, [], "covers T's spawn place: the game is over"),
        (["." * 10] * 20, ["--level", "300"], "--level 300: the game's level is a byte, 0-255"),
    ],
)
def test_explain_refuses_what_the_game_cannot_show(rows, args, message, tmp_path, capsys):
    board = tmp_path / "board.txt"
    board.write_text("\n".join(rows) + "\n")
    assert main(["explain", str(board), "--piece", "T", "--next", "I", *args]) == 2
    error = capsys.readouterr().err.strip()
    assert error.startswith("nesbot: error: ") and message in error and "\n" not in error
