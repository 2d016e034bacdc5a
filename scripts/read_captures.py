"""Read every public capture of NES Tetris listed in scripts/rating/captures.json and compare
what nesbot reads with what a person read on it (docs/rating.md, "Real captures").

The pictures are not part of nesbot (they belong to the projects that published them); the
list says where each comes from (repository, path, commit, md5). Put them in a folder under
the names the list gives, then:

    .venv/bin/python scripts/read_captures.py FOLDER

Prints one row per capture: found or not (and the match), the geometry, and each field
read right or what was read instead. Exits 1 if any capture is misread.
"""

import argparse
import hashlib
import json
import sys
from pathlib import Path

from nesbot.errors import NesbotError
from nesbot.nes.rom import find_rom
from nesbot.rating.read_screen import read_screen

LIST = Path(__file__).parent / "rating" / "captures.json"
FIELDS = ("lines", "score", "level_text", "next")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="the folder holding the captures")
    parser.add_argument("--list", type=Path, default=LIST, help="the captures and their truth")
    args = parser.parse_args()
    rom = find_rom(None)
    wrong = 0
    for capture in json.loads(args.list.read_text()):
        path = args.folder / capture["file"]
        if not path.is_file():
            print(f"{capture['file']}: missing")
            wrong += 1
            continue
        if hashlib.md5(path.read_bytes()).hexdigest() != capture["md5"]:
            print(f"{capture['file']}: not the published file (md5 differs)")
            wrong += 1
            continue
        truth = capture["truth"]
        try:
            reading = read_screen(path, frame=capture.get("frame", 0), rom=rom)
        except NesbotError as error:
            verdict = "refused, right" if truth is None else f"NOT FOUND ({error})"
            wrong += truth is not None
            print(f"{capture['file']}: {verdict}")
            continue
        if truth is None:
            print(f"{capture['file']}: found a game where there is none")
            wrong += 1
            continue
        read = {name: getattr(reading, name) for name in FIELDS}
        misread = {name: read[name] for name in FIELDS if read[name] != truth[name]}
        wrong += bool(misread)
        g = reading.geometry
        print(
            f"{capture['file']}: match {g.match:.2f}, {g.sx:.3f} x {g.sy:.3f} at "
            f"({g.left:.1f}, {g.top:.1f}); "
            + ("all read right" if not misread else f"misread {misread} (truth {truth})")
            + f"; confidence {min(reading.confidence.values()):.2f}"
        )
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
