"""What a placement is worth in points: the bot plays on from it over random pieces.

The worth of locking a position's piece at a place is the expected number of points the
game makes from there before level 29 (after level 29: over the horizon alone). It is
estimated by playouts: the piece locks there (Game.lock_at), then the bot plays `horizon`
more pieces, drawn by the NES picker from states that depend on the playout's seed and the
piece's number only (whole_games.play's pieces seed), so two places are compared on the same
pieces. A playout still alive at the horizon before level 29 adds the rest of the pre-29
game at REST_EFFICIENCY of an all-Tetris game's points for the lines left (the ROM's
level-up rule says at which levels they come): a burned line is a line fewer to score.
A top-out adds nothing.
"""

import math
from dataclasses import dataclass, replace

from nesbot._core.game import Game
from nesbot._core.pieces import KILL_SCREEN_LEVEL
from nesbot._core.planner import Planner
from nesbot._core.whole_games import play
from nesbot.nes import ram
from nesbot.rating.grades import TETRIS_POINTS_PER_LINE
from nesbot.rating.positions import Place, Position

# nesbot's pre-29 points as a share of an all-Tetris game's over the same lines: 0.67 in
# the reaction-18 format, 0.73 from level 19 (docs/strength.md); the rest of a game is
# valued at this rate. It matters little: two places differ in the rest by a line or two.
REST_EFFICIENCY = 0.7
DEFAULT_HORIZON = 16
DEFAULT_PLAYOUTS = 8


def rest_of_game(game: Game, stop_level: int = KILL_SCREEN_LEVEL) -> float:
    """The points valued for the lines a live game has left before `stop_level` (29)."""
    return REST_EFFICIENCY * sum(
        TETRIS_POINTS_PER_LINE * (level + 1) for level in game.line_levels(stop_level)
    )


def _score(game: Game) -> int:
    return ram.bcd_value(*game.state()["score"])


def playout_points(
    planner: Planner,
    position: Position,
    place: Place,
    seed: int,
    horizon: int = DEFAULT_HORIZON,
    reaction: int = 0,
) -> float:
    """One playout's points from locking the position's piece at `place`."""
    # From a zero score, so the 999,999 cap cannot hide points.
    return played_on(planner, replace(position, score=0).after(place), seed, horizon, reaction)


def played_on(
    planner: Planner,
    game: Game,
    seed: int,
    horizon: int = DEFAULT_HORIZON,
    reaction: int = 0,
    stop_level: int = KILL_SCREEN_LEVEL,
) -> float:
    """One playout's points: `game`'s score (counted from where its worth is measured) once
    the planner has played `horizon` more of its pieces (drawn for `seed`), plus, alive
    before `stop_level` (29), the rest of the game to it. Plays `game` in place."""
    before_stop = game.state()["level"] < stop_level
    if not game.topped_out and horizon > 0:
        play(
            planner,
            game,
            stop_level=stop_level if before_stop else 255,
            reaction=reaction,
            pieces_seed=seed,
            max_pieces=horizon,
        )
    points = float(_score(game))
    if before_stop and not game.topped_out:
        points += rest_of_game(game, stop_level)
    return points


@dataclass(frozen=True)
class Comparison:
    """Two places on the same playouts: `gap` is a's expected points minus b's (negative:
    a is worse), with the standard error of the paired mean."""

    a_points: float
    b_points: float
    gap: float
    gap_se: float
    playouts: int


def compare_places(
    planner: Planner,
    position: Position,
    a: Place,
    b: Place,
    seeds: list[int],
    horizon: int = DEFAULT_HORIZON,
    reaction: int = 0,
) -> Comparison:
    """Places a and b, each played out over the same `seeds`."""
    a_points = [playout_points(planner, position, a, s, horizon, reaction) for s in seeds]
    b_points = [playout_points(planner, position, b, s, horizon, reaction) for s in seeds]
    gaps = [x - y for x, y in zip(a_points, b_points, strict=True)]
    n = len(gaps)
    mean = sum(gaps) / n
    se = math.sqrt(sum((g - mean) ** 2 for g in gaps) / (n - 1) / n) if n > 1 else math.nan
    return Comparison(sum(a_points) / n, sum(b_points) / n, mean, se, n)
