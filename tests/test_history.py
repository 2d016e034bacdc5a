"""Commit subjects are one line of at most 72 characters (docs/CONTRIBUTING.md): what
changed, with figures, reasons and commands in the body. Held from the first commit after
SINCE on; the history before it is left as it was."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SINCE = "53ec5a2"  # the last commit before subjects were held to this
LONGEST = 72


def _git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)


@pytest.fixture(scope="module")
def subjects() -> list[tuple[str, str]]:
    if shutil.which("git") is None or _git("rev-parse", "--git-dir").returncode != 0:
        pytest.skip("not a git checkout: the commit history is not here to check")
    if _git("cat-file", "-e", f"{SINCE}^{{commit}}").returncode != 0:
        pytest.skip(f"commit {SINCE} is not in this clone (a shallow clone?)")
    run = _git("log", "--format=%h %s", f"{SINCE}..HEAD")
    assert run.returncode == 0, run.stderr
    return [tuple(line.split(" ", 1)) for line in run.stdout.splitlines()]  # type: ignore[misc]


def test_every_new_commit_subject_fits_on_a_line(subjects):
    long = [
        f"{sha} ({len(subject)}): {subject[:80]}"
        for sha, subject in subjects
        if len(subject) > LONGEST
    ]
    assert not long, f"commit subjects over {LONGEST} characters:\n" + "\n".join(long)
