"""The screen reader on 33 pictures and videos other projects published (real consoles
through capture cards, PAL composite, other emulators, modified ROMs, a level menu), held
to what a person read on each (scripts/rating/captures.json) and to docs/rating.md's
table of them ("Real captures"). The files are at ../shared/captures (tests/public_data.py)."""

import json
import re
from dataclasses import dataclass

import pytest
from public_data import ROOT, md5_of, public_folder

from nesbot.cli import main
from nesbot.errors import NesbotError
from nesbot.rating.read_screen import read_screen

pytestmark = pytest.mark.slow  # 33 files read once, about 40 s on one core

LIST = ROOT / "scripts" / "rating" / "captures.json"
CAPTURES = json.loads(LIST.read_text(encoding="utf-8"))
FIELDS = ("lines", "score", "level_text", "next")
DOC = ROOT / "docs" / "rating.md"


@dataclass(frozen=True)
class Read:
    found: bool
    fields: dict | None  # lines, score, level_text and next as read (None: refused)
    match: float
    refusal: str = ""


@pytest.fixture(scope="module")
def readings(rom) -> dict[str, Read]:
    """Each capture as `nesbot.read_screen` reads it (about 35 s for all on one core)."""
    folder = public_folder("captures")
    found: dict[str, Read] = {}
    for capture in CAPTURES:
        path = folder / capture["file"]
        assert path.is_file(), f"{path} is missing"
        assert md5_of(path) == capture["md5"], f"{path} is not the published file (md5)"
        try:
            reading = read_screen(path, frame=capture.get("frame", 0), rom=rom)
        except NesbotError as error:
            found[capture["file"]] = Read(False, None, 0.0, str(error))
            continue
        fields = {name: getattr(reading, name) for name in FIELDS}
        found[capture["file"]] = Read(True, fields, reading.geometry.match)
    return found


@pytest.mark.parametrize("capture", CAPTURES, ids=[c["file"] for c in CAPTURES])
def test_each_capture_reads_as_a_person_reads_it(readings, capture):
    read = readings[capture["file"]]
    if capture["truth"] is None:
        assert not read.found, f"found a game where there is none: {read.fields}"
        assert "no NES Tetris game screen found" in read.refusal
    else:
        assert read.found, read.refusal
        assert read.fields == capture["truth"]


def doc_table() -> dict[str, dict[str, str]]:
    """docs/rating.md's real-capture table: source -> pictures, found, read right."""
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("### Real captures") :]
    rows = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 5 or not line.startswith("|") or set(cells[0]) <= set("-"):
            continue
        if cells[0] == "source":
            continue
        rows[cells[0]] = dict(zip(("pictures", "found", "right"), cells[2:], strict=True))
    return rows


def test_the_docs_table_is_what_the_reader_reads(readings):
    table = doc_table()
    assert set(table) == {capture["source"] for capture in CAPTURES}
    for source, row in table.items():
        captures = [capture for capture in CAPTURES if capture["source"] == source]
        reads = [readings[capture["file"]] for capture in captures]
        found = sum(read.found for read in reads)
        right = sum(
            read.found and read.fields == capture["truth"]
            for read, capture in zip(reads, captures, strict=True)
        )
        refused = all(capture["truth"] is None for capture in captures)
        assert row["pictures"] == str(len(captures)), source
        if refused:
            assert row["found"] == "refused" and not found and not row["right"], source
        else:
            assert (row["found"], row["right"]) == (str(found), str(right)), source


def test_the_docs_say_how_many_and_the_range_of_matches(readings):
    """The prose under the table: every game found, the menu refused, and the lowest match
    of the unmodified ROM's pictures (the GIF's) as said."""
    text = " ".join(DOC.read_text(encoding="utf-8").split())
    assert f"{len(CAPTURES)} files" in text or "Thirty-three pictures" in text
    gif = next(read for name, read in readings.items() if name.endswith(".gif"))
    assert f"but for the GIF ({gif.match:.2f})" in text
    assert re.search(r"Every game was found and every counter and next piece read right", text)


@pytest.mark.parametrize(
    "capture",
    [
        c
        for c in CAPTURES
        if c["file"].endswith((".ts", ".mov", ".mp4", ".gif")) or c["truth"] is None
    ],
    ids=lambda c: c["file"],
)
def test_the_command_reads_the_videos_and_refuses_the_menu(readings, rom_path, capture, capsys):
    """`nesbot read-screen --json` gives what the API read: each video's frame, and one
    line and exit 2 for the level menu."""
    path = public_folder("captures") / capture["file"]
    argv = ["read-screen", str(path), "--json", "--rom", str(rom_path)]
    code = main([*argv, "--frame", str(capture.get("frame", 0))])
    out, err = capsys.readouterr()
    if capture["truth"] is None:
        assert code == 2 and not out
        assert err.strip().splitlines()[-1].startswith("nesbot: error: no NES Tetris game screen")
    else:
        assert code == 0, err
        printed = json.loads(out)
        assert {name: printed[name] for name in FIELDS} == capture["truth"]
