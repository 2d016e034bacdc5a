"""The public movies and captures the tests read: other projects' files, kept beside the
repository (in `../shared/` from its root, or where $NESBOT_PUBLIC_DATA points), never in
it (docs/CONTRIBUTING.md says where they come from). Without them the tests that read
them skip with one line saying what they need; under CI=true a skip fails the run
(conftest.py)."""

import hashlib
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PUBLIC_DATA = Path(os.environ.get("NESBOT_PUBLIC_DATA") or ROOT.parent / "shared")


def public_folder(name: str) -> Path:
    """PUBLIC_DATA / name, or a skip naming what is missing."""
    folder = PUBLIC_DATA / name
    if not folder.is_dir():
        pytest.skip(
            f"needs the public {name} at {folder} (set NESBOT_PUBLIC_DATA; docs/CONTRIBUTING.md)"
        )
    return folder


def md5_of(path: Path) -> str:
    return hashlib.md5(path.read_bytes()).hexdigest()
