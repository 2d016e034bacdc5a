"""Rating a whole game from its input log: replay it, measure the player's speed, rate every
placement at that speed (on `workers` processes), and sum it up by stage."""

import multiprocessing
import os
import warnings
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING

from nesbot._core.pieces import KILL_SCREEN_LEVEL
from nesbot.errors import NesbotError, NesbotWarning
from nesbot.nes.fm2 import InputLog
from nesbot.nes.replay import OnConflict
from nesbot.nes.rom import Rom
from nesbot.rating.grades import GRADES, accuracy, is_best_or_good
from nesbot.rating.positions import LoggedPiece, logged_pieces
from nesbot.rating.rater import PieceRating, Rater, RatingSettings
from nesbot.rating.speed import PlayerSpeed, measure_speed

if TYPE_CHECKING:
    from nesbot.rating.geometry import Geometry  # OpenCV: loaded only to read a video

STAGES = ("before the transition", "after the transition", "level 29 and beyond")


def stage_of(level: int, start_level: int) -> str:
    if level >= KILL_SCREEN_LEVEL:
        return STAGES[2]
    return STAGES[0] if level == start_level else STAGES[1]


@dataclass(frozen=True)
class GameRating:
    """A rated game: every placement's rating, the player's measured speed, and pieces that
    could not be rated (the last, where the game ended; any whose next board no single
    lock explains)."""

    ratings: list[PieceRating]
    speed: PlayerSpeed
    start_level: int
    pieces: int
    unrated: list[int]
    measured: bool = True  # the speed was measured from the buttons (a video has none)
    spawns: dict[int, int] = field(default_factory=dict)  # piece number: step (a video's frame)
    video: str | None = None  # the video the game was read from
    # A video's picture where each piece spawned (step: a data URL), the report's stills.
    spawn_pictures: dict[int, str] = field(default_factory=dict, repr=False)
    # A video: whether it shows the game's end (False: cut off mid-game, rated as far as it
    # goes). None for a log, whose end is not judged.
    complete: bool | None = None

    def write_report(self, path: "str | os.PathLike[str]") -> None:
        """Write the analysis board, one HTML file a browser opens from disk
        (nesbot.rating.analysis_board). Raises NesbotError."""
        from nesbot.rating.analysis_board import write_report

        write_report(self, path)

    def summary(self) -> dict:
        """Per stage and overall: placements, accuracy (on points, grades.accuracy), the
        share graded best or good, the mean expected points lost per placement, the count
        of each grade, misdrops and timed moves."""

        def figures(ratings: list[PieceRating]) -> dict:
            count = len(ratings)
            kept = accuracy((r.points_lost, r.level) for r in ratings)
            return {
                "placements": count,
                "accuracy": None if kept is None else round(kept, 4),
                "best_or_good": (
                    round(sum(is_best_or_good(r.grade) for r in ratings) / count, 4)
                    if count
                    else None
                ),
                "points_lost_per_placement": (
                    round(sum(r.points_lost or 0.0 for r in ratings) / count) if count else None
                ),
                "grades": {g: sum(r.grade == g for r in ratings) for g in GRADES},
                "misdrops": sum(r.heading is not None for r in ratings),
                "misdrop_points_per_placement": (
                    round(sum(r.misdrop_points or 0.0 for r in ratings) / count) if count else None
                ),
                "timed_moves": sum(r.timed_miss is not None for r in ratings),
                "risk_points_per_placement": (
                    round(sum(r.risk_points or 0.0 for r in ratings) / count) if count else None
                ),
                "misdrop_expected_points_per_placement": (
                    round(sum(r.misdrop_expected_points or 0.0 for r in ratings) / count)
                    if count
                    else None
                ),
            }

        stages = {
            stage: figures(
                [r for r in self.ratings if stage_of(r.level, self.start_level) == stage]
            )
            for stage in STAGES
        }
        return {
            "pieces": self.pieces,
            "complete": self.complete,
            "start_level": self.start_level,
            "speed": asdict(self.speed) | {"tap_hz": self.speed.tap_hz, "measured": self.measured},
            "not_found": sum(not r.found for r in self.ratings),
            "unrated": self.unrated,
            "game": figures(self.ratings),
            "stages": {stage: value for stage, value in stages.items() if value["placements"]},
        }


_rater: tuple[RatingSettings, Rater] | None = None


def _rate_one(job: tuple[RatingSettings, LoggedPiece]) -> PieceRating:
    """Rate one piece; each process keeps the rater of its last settings."""
    global _rater
    settings, piece = job
    if _rater is None or _rater[0] != settings:
        _rater = (settings, Rater(settings))
    assert piece.place is not None
    return _rater[1].rate(piece.position, piece.place, piece.number, piece)


def _rate_all(jobs: list, workers: int) -> Iterator[PieceRating]:
    if workers == 1 or len(jobs) <= 1:
        yield from map(_rate_one, jobs)
        return
    context = multiprocessing.get_context("spawn")  # as stats.map_indexed: no fork of threads
    with context.Pool(min(workers, len(jobs))) as pool:
        yield from pool.imap(_rate_one, jobs, chunksize=4)


def rate_log(
    rom: Rom,
    log: InputLog,
    settings: RatingSettings,
    workers: int = 1,
    measure: bool = True,
    replay_observers: tuple = (),
    on_rated: Callable[[int, int], None] | None = None,
    on_conflict: OnConflict | None = None,
) -> GameRating:
    """Rate the log's first game (rate_pieces on its replayed pieces; a frame nes-py cannot
    give its buttons goes to `on_conflict`, nesbot.nes.replay)."""
    if workers < 1:
        raise NesbotError(f"--workers {workers}: need at least 1")
    pieces = list(logged_pieces(rom, log, replay_observers, on_conflict))
    if not pieces:
        raise NesbotError(f"{log.source} never reaches an active piece: no game to rate")
    return rate_pieces(pieces, settings, workers, measure, on_rated)


VIDEO_SUFFIXES = (".mp4", ".mkv", ".webm", ".mov", ".avi", ".ts", ".gif")


def rate_video(
    rom: Rom,
    path: str | os.PathLike[str],
    settings: RatingSettings,
    workers: int = 1,
    on_rated: Callable[[int, int], None] | None = None,
    on_frame: Callable[[int], None] | None = None,
    crop: "Geometry | None" = None,
) -> GameRating:
    """Rate the game a video shows (nesbot.rating.screen reads it, the picture where `crop`
    says or where it is found), at the settings' speed: a video has no buttons to measure
    it from, nor to tell a misdrop by. `complete` says whether the video shows the game's
    end. A PAL capture is rated under NTSC rules, with a
    NesbotWarning that says so."""
    from nesbot.rating.screen import pal_note, video_game  # OpenCV, only for videos

    note = pal_note(path)
    if note:
        warnings.warn(note, NesbotWarning, stacklevel=2)
    game = video_game(path, rom, on_frame, crop)
    rating = rate_pieces(game.pieces, settings, workers, False, on_rated)
    searched = replace(rating.speed, tap_interval=settings.planner.tap_interval)
    return replace(
        rating,
        speed=searched,
        measured=False,
        video=os.fspath(path),
        complete=game.complete,
        spawn_pictures=game.spawn_pictures,
    )


def rate_pieces(
    pieces: list[LoggedPiece],
    settings: RatingSettings,
    workers: int = 1,
    measure: bool = True,
    on_rated: Callable[[int, int], None] | None = None,
) -> GameRating:
    """Rate a game's pieces in order. With `measure` the search runs at the speed the
    player showed (tap rate, DAS, soft drop), replacing the settings' own."""
    speed = measure_speed(piece.pads for piece in pieces)
    if measure:
        settings = replace(
            settings,
            planner=settings.planner.at_tap_hz(speed.tap_hz),
            das=speed.das,
            soft_drop=speed.soft_drop,
            timing_sd=speed.timing_sd,
        )
    placed = [piece for piece in pieces if piece.place is not None]
    unrated = [piece.number for piece in pieces if piece.place is None]
    ratings = []
    for rating in _rate_all([(settings, piece) for piece in placed], workers):
        ratings.append(rating)
        if on_rated:
            on_rated(len(ratings), len(placed))
    spawns = {piece.number: piece.step for piece in pieces}
    return GameRating(ratings, speed, pieces[0].position.level, len(pieces), unrated, spawns=spawns)
