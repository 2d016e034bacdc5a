"""`nesbot rate --report`: the analysis board. Its colours are the ROM's, its boards follow
the game's locks, a 500-placement page is small and quick to write, and headless Chromium
opens the reports of a person's FCEUX movie and of a recorded video from disk and shows
what the rating's JSON says (tests/browser.py drives it)."""

import base64
import contextlib
import io
import json
import os
from dataclasses import replace
from pathlib import Path
from unittest.mock import patch

import cv2
import numpy as np
import pytest
from browser import Chromium, chromium_path, file_url
from public_data import public_folder
from test_screen import RECORDED_GAME, _encode, recorded  # noqa: F401 (recorded: a fixture)

from nesbot.cli import main
from nesbot.errors import NesbotError
from nesbot.evaluation.evaluators import get_evaluator
from nesbot.nes import ram
from nesbot.nes.screen_layout import CELL, PLAYFIELD_LEFT, PLAYFIELD_TOP
from nesbot.rating.analysis_board import report_data, video_stills, write_report
from nesbot.rating.game import GameRating, rate_video
from nesbot.rating.nes_colours import (
    LEVEL_COLOURS,
    WHITE,
    level_colours,
    piece_cells,
    tiled_boards,
)
from nesbot.rating.positions import Position
from nesbot.rating.rater import PieceRating, RatingSettings
from nesbot.rating.speed import PlayerSpeed

ROOT = Path(__file__).resolve().parent.parent
SCREENSHOT = ROOT / "docs" / "images" / "rating_report.png"
QUICK = ["--playouts", "2", "--horizon", "4"]
RIGHT_ARROW = 39  # the key's virtual key code


def _rating(number: int, position: Position, piece: str, place, **kept) -> PieceRating:
    fields = {
        "number": number,
        "level": position.level,
        "lines": position.lines,
        "score": position.score,
        "piece": piece,
        "next": "T",
        "player": place,
        "best": place,
        "found": True,
        "points_lost": None,
        "points_lost_se": None,
        "grade": "best",
        "factors": (),
        "board": position.rows,
    }
    return PieceRating(**(fields | kept))


def test_each_cell_keeps_the_tile_of_the_piece_that_filled_it():
    """An L (tile $7C) completes the floor row of cells no followed lock filled (drawn as
    tile $7B): the row clears and the L's cells above it fall a row, still the L's."""
    start = Position.of("\n".join(["." * 10] * 19 + [".#########"]), "L", "T", 18)
    place = next(p for p in start.game().resting_places() if (19, 0) in piece_cells(p))
    second = Position(tuple(start.after(place).state()["rows"][2:]), 0x02, 0x02, 18)
    t_place = second.game().resting_places()[0]
    first, after = tiled_boards([_rating(1, start, "L", place), _rating(2, second, "T", t_place)])
    assert first == "0" * 190 + "0111111111"
    fallen = {(row + 1, column) for row, column in piece_cells(place) if row != 19}
    assert {divmod(i, 10) for i, tile in enumerate(after) if tile != "0"} == fallen
    assert set(after) == {"0", "2"}


@pytest.mark.slow
def test_the_colours_are_the_roms_at_every_level(emulator, new_game):
    """Each level 0-9's three tiles as nes-py draws them: $7B white framed in the dark
    colour, $7C the light colour, $7D the dark one."""

    def rgb(colour: str) -> tuple[int, ...]:
        return tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))

    for level in range(10):
        new_game(level=level)
        for column, tile in enumerate((0x7B, 0x7C, 0x7D)):
            emulator.ram[ram.PLAYFIELD + 190 + column] = tile
        emulator.ram[ram.VRAM_ROW] = 0  # redraw the playfield, as after a lock
        for _ in range(8):  # the ROM copies it to the screen a few rows a frame
            emulator.step(0)
        top, left = PLAYFIELD_TOP + 19 * CELL, PLAYFIELD_LEFT
        floor = emulator.screen[top : top + CELL, left : left + 3 * CELL]
        light, dark = level_colours(level)
        drawn = [tuple(int(v) for v in floor[y, x]) for y, x in ((4, 4), (6, 2), (4, 12), (4, 20))]
        assert drawn == [rgb(WHITE), rgb(dark), rgb(light), rgb(dark)], level
    assert level_colours(18) == LEVEL_COLOURS[8]


def _made_up_game(placements: int) -> GameRating:
    """A game of random boards, grades and reasons: what a page's size and time depend on."""
    draw = np.random.default_rng(78)
    ratings = []
    for number in range(1, placements + 1):
        rows = tuple(int(r) for r in draw.integers(0, 1 << 10, 20) * (np.arange(20) > 8))
        lost = float(draw.exponential(3_000))
        ratings.append(
            _rating(
                number,
                Position(rows, 0x02, 0x02, 18 + number // 200),
                "T",
                (5, 3, 0x02),
                best=(4, 3, 0x02),
                points_lost=lost,
                points_lost_se=lost / 4,
                grade="mistake",
                factors=("stack_holes 2 vs 0", "burns_needed 1 vs 0", "high_stack 3 vs 1"),
            )
        )
    speed = PlayerSpeed(4, True, True, 12.0, 6.0, placements + 1, 1.1)
    return GameRating(ratings, speed, 18, placements + 1, [placements + 1])


def test_a_500_placement_report_is_small(tmp_path):
    """Under 2 MB: the boards are drawn from the data (its time: scripts/bench_rate.py)."""
    game = _made_up_game(500)
    path = tmp_path / "r.html"
    write_report(game, path)
    assert path.stat().st_size < 2_000_000
    assert not [p for p in tmp_path.iterdir() if p.name != "r.html"]  # no part file left
    data = report_data(game, "r")
    assert len(data["placements"]) == 500
    assert data["placements"][0]["reasons"] == [
        "made a hole",
        "a row only a burn can clear",
        "stack too high",
    ]


def test_a_report_that_cannot_be_written_is_one_line(tmp_path, capsys):
    game = _made_up_game(3)
    with pytest.raises(NesbotError, match="cannot write report"):
        write_report(game, tmp_path / "missing" / "r.html")
    assert main(["rate", str(tmp_path / "g.fm2"), "--report", str(tmp_path / "r.txt")]) == 2
    assert capsys.readouterr().err.strip().endswith("the analysis board is an .html file")


# --- the reports in Chromium ---------------------------------------------------------------


def _rate_with_report(game: Path, report: Path) -> dict:
    """`nesbot rate GAME --json --report REPORT`: the JSON printed."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main(["rate", str(game), *QUICK, "--json", "--report", str(report)]) == 0
    return json.loads(out.getvalue())


def _board_box(browser: Chromium) -> dict:
    """The board canvas's drawing area in the page (inside its border)."""
    return browser.evaluate(
        "(() => { const c = document.getElementById('board'), r = c.getBoundingClientRect();"
        " return {x: r.left + c.clientLeft, y: r.top + c.clientTop, cell: c.clientWidth / 10};"
        " })()"
    )


def _colour(hex_colour: str) -> np.ndarray:
    return np.array([int(hex_colour[i : i + 2], 16) for i in (1, 3, 5)])


def check_report_against_json(browser: Chromium, report: Path, printed: dict) -> None:
    """Through the page: its placements and grades, step by step with the → key; a
    placement opened by its fragment, its board's cells and their colours on a screenshot;
    no error logged."""
    placements = printed["placements"]
    browser.open(file_url(report))
    assert browser.evaluate("Number(document.body.dataset.placements)") == len(placements)
    seen = []
    for step, _ in enumerate(placements):
        if step:
            browser.press("ArrowRight", RIGHT_ARROW)
        seen.append(
            browser.evaluate(
                "[Number(document.body.dataset.placement), location.hash,"
                " document.getElementById('grade').textContent]"
            )
        )
    assert seen == [[p["number"], f"#{p['number']}", p["grade"]] for p in placements]
    # A click on the graph opens the placement of the bar under it: the middle one's.
    middle = len(placements) // 2
    browser.evaluate("document.getElementById('graph').scrollIntoView()")
    graph = browser.evaluate(
        "(() => { const r = document.getElementById('graph').getBoundingClientRect();"
        " return [r.left, r.top, r.width, r.height]; })()"
    )
    left, top, width, height = graph
    browser.click(left + (middle + 0.5) * width / len(placements), top + height / 2)
    assert (
        browser.evaluate("Number(document.body.dataset.placement)") == placements[middle]["number"]
    )
    # A link to a placement opens it: the one with the fullest board.
    chosen = max(placements, key=lambda p: "".join(p["board"]).count("#"))
    browser.open(file_url(report, str(chosen["number"])))
    assert browser.evaluate("Number(document.body.dataset.placement)") == chosen["number"]
    assert browser.evaluate("document.getElementById('grade').textContent") == chosen["grade"]
    tiles = browser.evaluate("document.getElementById('board').dataset.cells")
    filled = [
        "".join("." if t == "0" else "#" for t in tiles[r * 10 : r * 10 + 10]) for r in range(20)
    ]
    assert filled == chosen["board"]
    box = _board_box(browser)
    shot = browser.screenshot(box["x"], box["y"], box["cell"] * 10, box["cell"] * 20)
    light, dark = (_colour(c) for c in level_colours(chosen["level"]))
    expected = {"1": _colour(WHITE), "2": light, "3": dark}
    marked = set()  # the player's and the best placement's cells, drawn over empty ones
    for place in (chosen["player"], chosen["best"]):
        if place is not None:
            marked |= set(piece_cells((place["x"], place["y"], place["orientation"])))
    for number, tile in enumerate(tiles):
        row, column = divmod(number, 10)
        middle = shot[int((row + 0.5) * box["cell"]), int((column + 0.5) * box["cell"])]
        if tile != "0":
            assert np.abs(middle.astype(int) - expected[tile]).max() <= 2, (row, column, middle)
        elif (row, column) not in marked:
            assert middle.max() <= 2, (row, column, middle)
    assert browser.errors() == []


@pytest.fixture(scope="module")
def chromium():
    with Chromium(chromium_path()) as browser:
        yield browser


def test_a_persons_fceux_movie_reports_as_its_json(chromium, rom_path, tmp_path):
    """meta_nestris's normal_play.fm2, a person's level-19 game recorded in FCEUX."""
    movie = public_folder("movies") / "death" / "normal_play.fm2"
    report = tmp_path / "r.html"
    printed = _rate_with_report(movie, report)
    assert len(printed["placements"]) > 30
    check_report_against_json(chromium, report, printed)
    # The page's summary and mistakes come from the same rating.
    mistakes = [p for p in printed["placements"] if p["grade"] in ("mistake", "blunder")]
    links = chromium.evaluate(
        "[...document.querySelectorAll('#mistakes a')].map((a) => a.getAttribute('href'))"
    )
    assert links == [f"#{p['number']}" for p in mistakes]
    if os.environ.get("NESBOT_DOC_IMAGES"):  # docs/rating.md's picture, from this page
        chromium.open(file_url(report, str(mistakes[0]["number"])))
        chromium.call(
            "Emulation.setDeviceMetricsOverride",
            width=1000,
            height=760,
            deviceScaleFactor=1,
            mobile=False,
        )
        picture = chromium.screenshot(0, 0, 1000, 760)
        cv2.imwrite(
            str(SCREENSHOT),
            cv2.cvtColor(picture, cv2.COLOR_RGB2BGR),
            [cv2.IMWRITE_PNG_COMPRESSION, 9],
        )


def test_a_logs_report_with_video_shows_the_game_where_mistakes_locked(chromium, tmp_path):
    """`--video` replays the log once more: the report keeps the screen where each
    mistake and blunder locked."""
    movie = public_folder("movies") / "death" / "normal_play.fm2"
    report, video = tmp_path / "r.html", tmp_path / "v.mp4"
    argv = ["rate", str(movie), *QUICK, "--report", str(report), "--video", str(video)]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main([*argv, "--scale", "1"]) == 0
    data = json.loads(chromium_data(chromium, report))
    costly = [p["number"] for p in data["placements"] if p["grade"] in ("mistake", "blunder")]
    assert costly and sorted(int(n) for n in data["stills"]) == costly
    chromium.open(file_url(report, str(costly[0])))
    size = chromium.evaluate(
        "(() => { const i = document.querySelector('#still img');"
        " return [i.naturalWidth, i.naturalHeight]; })()"
    )
    assert size == [256, 240] and chromium.errors() == []


def chromium_data(browser: Chromium, report: Path) -> str:
    """The rating's JSON as the page holds it."""
    browser.open(file_url(report))
    return browser.evaluate("document.getElementById('rating').textContent")


@RECORDED_GAME
def test_a_recorded_video_reports_as_its_json(chromium, recorded, tmp_path):  # noqa: F811
    """The bot's level-19 game filmed at 720 lines, read from the picture."""
    folder, pictures, _truth = recorded
    video = folder / "report.mp4"
    _encode(video, pictures[:600])
    report = tmp_path / "r.html"
    printed = _rate_with_report(video, report)
    assert printed["summary"]["speed"]["measured"] is False and printed["placements"]
    check_report_against_json(chromium, report, printed)


def test_a_real_capture_reports_as_its_json(chromium, rom_path, tmp_path):
    """nestris.org's OCR test case: a console's game captured to a .mov (10 placements)."""
    capture = public_folder("captures") / "nestrisorg_ocr_testcase_Case1_TETRISGYM_MODROM.mov"
    report = tmp_path / "r.html"
    printed = _rate_with_report(capture, report)
    assert len(printed["placements"]) == 10
    check_report_against_json(chromium, report, printed)


@RECORDED_GAME
def test_a_mistake_shows_the_videos_frame_where_it_locked(
    chromium,
    recorded,  # noqa: F811
    rom,
    tmp_path,
):
    """The frame where the next piece spawned, beside the board. The bot's own placements
    are all best: one is called a blunder here."""
    folder, pictures, _truth = recorded
    video = folder / "stills.mp4"
    _encode(video, pictures[:300])
    settings = RatingSettings(get_evaluator("nesbot-trained"), playouts=2, horizon=4)
    game = rate_video(rom, video, settings)
    first = game.ratings[0]
    blunder = replace(first, grade="blunder", points_lost=20_000.0, points_lost_se=900.0)
    game = replace(game, ratings=[blunder, *game.ratings[1:]])
    stills = video_stills(game)
    assert list(stills) == [first.number]
    kind, _, encoded = stills[first.number].partition(";base64,")
    assert kind in ("data:image/png", "data:image/jpeg")
    picture = base64.b64decode(encoded)
    still = cv2.cvtColor(
        cv2.imdecode(np.frombuffer(picture, np.uint8), cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB
    )

    def unlike(index: int) -> float:
        small = cv2.resize(pictures[index], still.shape[1::-1], interpolation=cv2.INTER_AREA)
        return float(np.abs(still.astype(int) - small.astype(int)).mean())

    # Of the pictures where pieces spawned, the still is the one after the placement.
    spawned = [i for i in game.spawns.values() if i < len(pictures)]
    assert min(spawned, key=unlike) == game.spawns[first.number + 1]
    # Every spawn's picture was kept as the video was read: the report decodes nothing.
    assert set(game.spawn_pictures) == set(game.spawns.values())
    report = tmp_path / "r.html"
    with patch("nesbot.show.video.decoding.open_input", side_effect=AssertionError):
        write_report(game, report)
    chromium.open(file_url(report, str(first.number)))
    assert chromium.evaluate("document.querySelector('#still img').naturalWidth") == 256
    assert chromium.errors() == []
