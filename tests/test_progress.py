"""Long commands show progress: a bar in a terminal, plain lines in a file or a pipe."""

import io
import os
import pty
import select
import subprocess
import sys

from nesbot import progress
from nesbot.progress import Progress


def test_lines_into_a_file_start_at_once_and_end_with_the_total(monkeypatch) -> None:
    stream = io.StringIO()  # not a terminal
    monkeypatch.setattr(progress, "LINE_SECONDS", 0.0)
    with Progress("simulate", 4, "game", stream=stream) as bar:
        assert stream.getvalue() == ""  # nothing before the work starts
        bar.update()
        assert stream.getvalue().startswith("simulate: 4 games, a line every 0 s\n")
        bar.advance_to(3, "score 12,345")
    lines = stream.getvalue().splitlines()
    assert lines[1].startswith("simulate: 1/4 games (25%), 0 s, about 0 s left")
    assert lines[2].endswith("; score 12,345") and "3/4 games (75%)" in lines[2]
    assert lines[3].startswith("simulate: 3/4 games (75%)")  # the closing line


def test_work_of_unknown_length_is_counted(monkeypatch) -> None:
    stream = io.StringIO()
    monkeypatch.setattr(progress, "LINE_SECONDS", 0.0)
    with Progress("play", None, "piece", stream=stream) as bar:
        bar.advance_to(120, "lines 40")
    assert "play: counting, a line every 0 s" in stream.getvalue()
    assert "play: 120 pieces, 0 s; lines 40" in stream.getvalue()


def test_lines_wait_their_interval() -> None:
    stream = io.StringIO()
    with Progress("replay", 50_000, "step", stream=stream) as bar:
        for step in range(1, 1001):
            bar.advance_to(step)
        assert len(stream.getvalue().splitlines()) == 1  # only the opening line so far
    assert stream.getvalue().splitlines()[-1].startswith("replay: 1,000/50,000 steps (2%)")


def test_disabled_progress_prints_nothing() -> None:
    stream = io.StringIO()
    with Progress("simulate", 3, "game", stream=stream, enabled=False) as bar:
        bar.update(3)
    assert stream.getvalue() == ""


def test_simulate_into_a_pipe_shows_progress() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "nesbot", "simulate", "--games", "2", "--seed", "3", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    lines = result.stderr.splitlines()
    assert lines[0] == "simulate: 2 games, a line every 5 s"
    assert lines[-1].startswith("simulate: 2/2 games (100%)")
    assert result.stdout.startswith('{"games": 2')


def test_a_terminal_without_a_width_gets_lines(monkeypatch) -> None:
    """A pseudo-terminal nobody sized (0 columns): tqdm would draw nothing there."""
    leader, follower = pty.openpty()
    monkeypatch.setattr(progress, "LINE_SECONDS", 0.0)
    with open(follower, "w") as stream:
        assert stream.isatty() and os.get_terminal_size(follower).columns == 0
        with Progress("simulate", 2, "game", stream=stream) as bar:
            bar.update()
        stream.flush()
        text = ""
        while select.select([leader], [], [], 0.5)[0]:  # a terminal hands it over in pieces
            text += os.read(leader, 4096).decode()
    os.close(leader)
    assert text.startswith("simulate: 2 games, a line every 0 s")
    assert "simulate: 1/2 games (50%)" in text
