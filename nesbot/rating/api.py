"""`nesbot.rate`: the one call for tools that rate a game's log or a single position."""

import os
from collections.abc import Callable

from nesbot.arguments import check_crop, check_workers
from nesbot.bot.planning import DEFAULT_SETTINGS, PlannerSettings
from nesbot.errors import NesbotError
from nesbot.evaluation.evaluators import Evaluator, get_evaluator
from nesbot.nes.fm2 import fceux_rom_md5, read_fm2
from nesbot.nes.movie_steps import Conflict
from nesbot.nes.rom import Rom, find_rom
from nesbot.rating.game import VIDEO_SUFFIXES, GameRating, rate_log, rate_video
from nesbot.rating.playouts import DEFAULT_HORIZON, DEFAULT_PLAYOUTS
from nesbot.rating.positions import Place, Position
from nesbot.rating.rater import PieceRating, Rater, RatingSettings


def rate(
    game: str | os.PathLike[str] | Position,
    place: Place | None = None,
    *,
    rom: str | Rom | None = None,
    evaluator: str | Evaluator | None = None,
    weights: str | None = None,
    settings: PlannerSettings = DEFAULT_SETTINGS,
    playouts: int = DEFAULT_PLAYOUTS,
    horizon: int = DEFAULT_HORIZON,
    seed: int = 0,
    workers: int = 1,
    measure_speed: bool = True,
    on_conflict: Callable[[Conflict], None] | None = None,
    crop: tuple[float, float, float, float] | None = None,
) -> GameRating | PieceRating:
    """Rate a game's every placement (`game` an .fm2 input log or a video of the screen: a
    GameRating) or one placement (`game` a Position and `place` its (x, y, orientation):
    a PieceRating). A video is read by nesbot.rating.screen, at `settings.tap_hz`.

    The best placement is the planner's (`evaluator`, a name or an Evaluator, or a `weights`
    file; `settings`) at the player's speed measured from the log (`measure_speed`), or at
    `settings.tap_hz` without DAS for a position; the points lost come from `playouts`
    paired playouts of `horizon` pieces chosen by `seed`. A log's frame that nes-py cannot
    give its buttons (nesbot.nes.movie_steps.Conflict) stops the rating with a NesbotError, or
    goes to `on_conflict` and the rating goes on. A video's picture is found, or is where
    `crop` (x, y, width, height: the rectangle showing the NES picture's lines 8-231) says.
    Raises NesbotError."""
    _check_arguments(game, place, settings, crop, workers)
    chosen = (
        evaluator
        if isinstance(evaluator, Evaluator)
        else get_evaluator(evaluator, weights, settings.reaction)
    )
    rating_settings = RatingSettings(
        chosen, settings, playouts=playouts, horizon=horizon, seed=seed
    )
    if isinstance(game, Position):
        if place is None:
            raise NesbotError("rating a position needs the placement: (x, y, orientation)")
        return Rater(rating_settings).rate(game, place)
    path = os.fspath(game)
    the_rom = rom if isinstance(rom, Rom) else find_rom(rom)
    if path.lower().endswith(VIDEO_SUFFIXES):
        from nesbot.rating.geometry import Geometry  # OpenCV, only for videos

        where = Geometry.of_crop(*crop) if crop else None
        return rate_video(the_rom, path, rating_settings, workers=workers, crop=where)
    if not path.lower().endswith(".fm2"):
        raise NesbotError(f"{path}: nesbot rates .fm2 input logs, videos and positions")
    if crop is not None:
        raise NesbotError("crop says where a video's picture is; an .fm2 log has none")
    log = read_fm2(path)
    log.check_rom(the_rom.md5, fceux_rom_md5(the_rom.data))
    return rate_log(
        the_rom,
        log,
        rating_settings,
        workers=workers,
        measure=measure_speed,
        on_conflict=on_conflict,
    )


def _check_arguments(
    game: object, place: object, settings: object, crop: object, workers: int
) -> None:
    """NesbotError for arguments of the wrong kind, which the command line's parser would
    have refused, and for one that the game given would silently ignore."""
    if not isinstance(game, (str, os.PathLike, Position)):
        raise NesbotError(f"game {game!r}: a path (an .fm2 log or a video) or a Position")
    if place is not None and not isinstance(game, Position):
        raise NesbotError("place is a Position's placement; a game's log or video has its own")
    check_workers(workers)
    if not isinstance(settings, PlannerSettings):
        raise NesbotError(f"settings {settings!r}: a nesbot.PlannerSettings is needed")
    check_crop(crop)
