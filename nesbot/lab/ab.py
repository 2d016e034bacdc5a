"""Two evaluators compared on the positions where they choose differently.

B plays a game (level to 29, the pieces drawn for (seed, game) as --same-pieces draws
them); at each piece A's choice is found too, from the same game state with the same
pieces. Where the two lock differently, both games are played on by A for `horizon`
pieces, over the same `playouts` draws of the pieces, and valued as nesbot rate values a
game: the points from the decision on, plus, alive before level 29 at the horizon, the
rest of the pre-29 game at an all-Tetris rate's share (rating.playouts.rest_of_game).

Summed over B's game, B's lead at those pieces estimates how many more pre-29 points B
makes than A: J(B) - J(A) is the sum, over the states B's games visit, of what B's choice
gains over A's when A plays on (the performance-difference identity; exact but for the
horizon). Only the pieces where the two differ add anything, and each is paired
(StackRabbit's evolution compares weights on the states where they disagree too). What a
choice costs beyond the horizon is not seen: in the reaction format, where the top-outs
come tens of pieces after the stack that made them, short horizons favour the aggressive
weights, and long ones carry a whole game's variance (docs/strength.md).
"""

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from nesbot._core.game import Game
from nesbot._core.pieces import KILL_SCREEN_LEVEL
from nesbot._core.planner import Planner
from nesbot._core.whole_games import play
from nesbot.bot.planning import PlannerSettings, build_planner
from nesbot.evaluation.evaluators import Evaluator
from nesbot.lab.game_runs import MAX_FRAMES, game_setup, pieces_seed_of
from nesbot.lab.statistics import standard_error
from nesbot.lab.workers import map_indexed
from nesbot.nes import ram
from nesbot.rating.playouts import played_on

DEFAULT_PLAYOUTS = 4
DEFAULT_HORIZON = 12


@dataclass(frozen=True)
class ABSpec:
    """One game of the comparison: B plays it, A is asked at every piece. `settings` are
    both planners' (the reaction too), unless `b_settings` gives B its own."""

    a: Evaluator
    b: Evaluator
    settings: PlannerSettings
    level: int
    seed: int
    index: int
    playouts: int = DEFAULT_PLAYOUTS
    horizon: int = DEFAULT_HORIZON
    max_pieces: int = -1  # a game's first pieces only (tests); -1: to level 29
    b_settings: PlannerSettings | None = None


@dataclass(frozen=True)
class ABGame:
    """What one game measured: `gain` (B's lead summed over the pieces where A would have
    locked elsewhere, in pre-29 points), `gain_var` (the playouts' share of its variance),
    `differ` such pieces of `pieces`, and B's own pre-29 points."""

    pieces: int
    differ: int
    gain: float
    gain_var: float
    b_points: int


_planners: tuple[tuple, tuple[Planner, Planner]] | None = None


def _planners_for(spec: ABSpec) -> tuple[Planner, Planner]:
    """A's and B's planners, kept by each process for its last pair."""
    global _planners
    b_settings = spec.b_settings or spec.settings
    key = (spec.a, spec.b, spec.settings, b_settings)
    if _planners is None or _planners[0] != key:
        planners = (build_planner(spec.a, spec.settings), build_planner(spec.b, b_settings))
        _planners = (key, planners)
    return _planners[1]


def from_zero(game: Game) -> Game:
    """The game with a zero score, so the 999,999 cap cannot hide points."""
    return Game.from_state(game.state() | {"score": [0, 0, 0]})


def _one_piece(planner: Planner, game: Game, reaction: int, pieces_seed: int) -> Game:
    """A copy of `game` once `planner` has played its current piece."""
    after = game.copy()
    play(planner, after, MAX_FRAMES, KILL_SCREEN_LEVEL, reaction, pieces_seed, 1)
    return after


def ab_game(spec: ABSpec) -> ABGame:
    """Play one game of the comparison (module docstring)."""
    planner_a, planner_b = _planners_for(spec)
    reaction = spec.settings.reaction
    b_reaction = (spec.b_settings or spec.settings).reaction
    game = Game.start(spec.level, *game_setup(spec.seed, spec.index))
    pieces_seed = pieces_seed_of(spec.seed, spec.index)
    pieces = differ = 0
    gain = gain_var = 0.0
    b_points = 0
    while (
        not game.topped_out
        and game.state()["level"] < KILL_SCREEN_LEVEL
        and pieces != spec.max_pieces
    ):
        start = from_zero(game)
        mine = _one_piece(planner_b, start, b_reaction, pieces_seed)
        theirs = _one_piece(planner_a, start, reaction, pieces_seed)
        pieces += 1
        if mine.state()["rows"] != theirs.state()["rows"]:
            differ += 1
            draws = np.random.default_rng([spec.seed, spec.index, pieces, 2])
            seeds = draws.integers(2**62, size=spec.playouts).tolist()
            gaps = [
                played_on(planner_a, mine.copy(), seed, spec.horizon, reaction)
                - played_on(planner_a, theirs.copy(), seed, spec.horizon, reaction)
                for seed in seeds
            ]
            gain += sum(gaps) / len(gaps)
            if len(gaps) > 1:
                gain_var += float(np.var(gaps, ddof=1)) / len(gaps)
        b_points += ram.bcd_value(*mine.state()["score"])  # its decision came before 29
        game = mine
    return ABGame(pieces, differ, gain, gain_var, b_points)


def run_ab(
    specs: list[ABSpec], workers: int, on_result: Callable[[int, ABGame], None] | None = None
) -> list[ABGame]:
    """Every spec's game, in the order of `specs`, on `workers` processes;
    `on_result(index, game)` as each finishes."""
    results: dict[int, ABGame] = {}
    for index, result in map_indexed(ab_game, specs, workers):
        results[index] = result
        if on_result:
            on_result(index, result)
    return [results[i] for i in range(len(specs))]


@dataclass(frozen=True)
class ABSummary:
    """B's estimated lead over A in pre-29 points a game, with its standard error over the
    games (which holds the playouts' noise too), and what the games were."""

    games: int
    gain: float
    gain_se: float
    differ_share: float  # of B's pieces, where A would have locked elsewhere
    b_points: float  # B's mean pre-29 points over these games

    def text(self) -> str:
        return (
            f"B - A: {self.gain:+,.0f} ± {self.gain_se:,.0f} pre-29 points a game "
            f"({self.games} games; A chose otherwise at {self.differ_share:.1%} of B's "
            f"pieces; B's games: {self.b_points:,.0f} pre-29 points a game)"
        )


def summarize(games: list[ABGame]) -> ABSummary:
    gains = np.array([g.gain for g in games])
    pieces = sum(g.pieces for g in games)
    return ABSummary(
        len(games),
        float(gains.mean()),
        standard_error(gains),
        sum(g.differ for g in games) / pieces if pieces else 0.0,
        float(np.mean([g.b_points for g in games])),
    )
