"""`nesbot rate --report`: a rated game as an analysis board, one HTML file that opens from
disk with no network (report_page.html draws it).

The page holds the rating as JSON and draws each placement's board from it in the level's
NES colours (nes_colours), so a 500-placement game is a few hundred kilobytes, not 500
pictures. A game read from a video (or a log rated with --video, which replays it once
more) also holds, for each of its costliest mistakes and blunders, the game's picture where
the piece locked (nesbot.rating.stills).
"""

import json
import os
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from nesbot.bot.explain import spawn_orientation
from nesbot.errors import NesbotError
from nesbot.output_file import write_output
from nesbot.rating.grades import GRADES
from nesbot.rating.nes_colours import LEVEL_COLOURS, PIECE_TILE, WHITE, piece_cells, tiled_boards
from nesbot.rating.rater import PieceRating, describe_place
from nesbot.rating.speed import PlayerSpeed
from nesbot.rating.stills import screen_still

if TYPE_CHECKING:
    from nesbot.nes.emulator import Emulator  # nes-py: only a log's replay gives stills

STILL_GRADES = ("mistake", "blunder")  # the placements a video's frame is kept for
STILLS_KEPT = 40  # the costliest of them: at most about 1.1 MB of the page
DATA_MARK = "/*RATING*/null"  # where the page's template takes the JSON


class RatedGame(Protocol):
    """What the page is made of: a nesbot.rating.game.GameRating (whose write_report calls
    write_report here; named by what it has, so that this module need not import that)."""

    @property
    def ratings(self) -> list[PieceRating]: ...
    @property
    def speed(self) -> PlayerSpeed: ...
    @property
    def measured(self) -> bool: ...
    @property
    def spawns(self) -> dict[int, int]: ...
    @property
    def spawn_pictures(self) -> dict[int, str]: ...
    def summary(self) -> dict: ...


def _cells(place: tuple[int, int, int] | None) -> list[int] | None:
    return None if place is None else [row * 10 + column for row, column in piece_cells(place)]


def _placement(rating: PieceRating, board: str) -> dict:
    return {
        "number": rating.number,
        "level": rating.level,
        "lines": rating.lines,
        "score": rating.score,
        "piece": rating.piece,
        "next": rating.next,
        "grade": rating.grade,
        "lost": None if rating.points_lost is None else round(rating.points_lost),
        "lostSe": None if rating.points_lost_se is None else round(rating.points_lost_se),
        "reasons": list(rating.reasons),
        "found": rating.found,
        "board": board,
        "player": _cells(rating.player),
        "playerText": describe_place(rating.player),
        "best": _cells(rating.best),
        "bestText": describe_place(rating.best) if rating.best is not None else None,
        "headingText": describe_place(rating.heading) if rating.heading is not None else None,
        "misdropLost": None if rating.misdrop_points is None else round(rating.misdrop_points),
    }


def report_data(game: RatedGame, title: str, stills: dict[int, str] | None = None) -> dict:
    """What the page draws: every placement (its board as tiles), the summary, the player's
    speed, the colours, and `stills` (placement number: a picture's data URL)."""
    boards = tiled_boards(game.ratings)
    return {
        "title": title,
        "grades": list(GRADES),
        "colours": {"white": WHITE, "levels": [list(pair) for pair in LEVEL_COLOURS]},
        "pieceTiles": PIECE_TILE,
        # The next box's piece: its cells as the ROM spawns it, at x 5, y 0.
        "spawnCells": {p: _cells((5, 0, spawn_orientation(p))) for p in PIECE_TILE},
        "speed": game.speed.describe() if game.measured else None,
        "summary": game.summary(),
        "placements": [_placement(r, b) for r, b in zip(game.ratings, boards, strict=True)],
        "stills": stills or {},
    }


def report_html(game: RatedGame, title: str, stills: dict[int, str] | None = None) -> str:
    """The page, the rating's JSON inside it."""
    template = resources.files("nesbot.rating").joinpath("report_page.html").read_text("utf-8")
    # "</" would end the script element the JSON sits in; JSON reads "<\/" as "</".
    data = json.dumps(report_data(game, title, stills), separators=(",", ":"))
    return template.replace(DATA_MARK, data.replace("</", "<\\/"))


def still_steps(game: RatedGame) -> dict[int, int]:
    """The placements a still is kept for (the STILLS_KEPT costliest mistakes and blunders)
    and the step where each locked: the next piece's spawn (a video's frame, for a game
    read from one)."""
    costly = sorted(
        (r for r in game.ratings if r.grade in STILL_GRADES and r.number + 1 in game.spawns),
        key=lambda r: r.points_lost or 0.0,
        reverse=True,
    )
    return {r.number: game.spawns[r.number + 1] for r in costly[:STILLS_KEPT]}


def video_stills(game: RatedGame) -> dict[int, str]:
    """For a game read from a video, its picture where each placement of still_steps locked
    (kept as the video was read: no second decode)."""
    return {
        number: game.spawn_pictures[step]
        for number, step in still_steps(game).items()
        if step in game.spawn_pictures
    }


class ReplayStills:
    """An emulator observer for a log's replay: the screen where each placement of
    still_steps locked (nesbot rate LOG.fm2 --video --report), as data URLs."""

    def __init__(self, game: RatedGame) -> None:
        self._numbers = {step: number for number, step in still_steps(game).items()}
        self.stills: dict[int, str] = {}

    def __call__(self, _pad: int, emulator: "Emulator") -> None:
        number = self._numbers.get(emulator.frame)
        if number is not None:
            self.stills[number] = screen_still(emulator.screen)


def write_report(
    game: RatedGame,
    path: str | os.PathLike[str],
    title: str | None = None,
    stills: dict[int, str] | None = None,
) -> None:
    """Write the analysis board to `path` whole or not at all (nesbot.output_file),
    with `stills` (ReplayStills'), or for a game read from a video its frames. Raises
    NesbotError when it cannot be written."""
    if not game.ratings:
        raise NesbotError(f"cannot write report {path}: no placement of the game was rated")
    title = title or Path(path).stem
    page = report_html(game, title, video_stills(game) if stills is None else stills)
    write_output(path, "report", page)
