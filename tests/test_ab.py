"""nesbot.lab.ab: two evaluators compared on the positions where they choose differently."""

import math

from nesbot.bot.planning import PlannerSettings
from nesbot.evaluation.evaluators import get_evaluator
from nesbot.lab.ab import ABGame, ABSpec, ab_game, run_ab, summarize

QUICK = PlannerSettings(lookahead=0)


def _spec(a: str, b: str, index: int = 0, pieces: int = 40) -> ABSpec:
    return ABSpec(
        get_evaluator(a), get_evaluator(b), QUICK, 19, seed=11, index=index, playouts=3,
        horizon=6, max_pieces=pieces,
    )  # fmt: skip


def test_an_evaluator_against_itself_never_differs():
    game = ab_game(_spec("nesbot-trained", "nesbot-trained"))
    assert game.pieces == 40 and game.differ == 0 and game.gain == 0.0
    assert game.b_points > 0


def test_a_weak_evaluator_loses_where_it_chooses_otherwise():
    game = ab_game(_spec("nesbot-trained", "hidamari"))
    assert game.differ > 10 and game.gain < 0 and game.gain_var > 0
    assert ab_game(_spec("nesbot-trained", "hidamari")) == game  # seeded: the same again


def test_games_run_on_workers_in_order_and_sum_up():
    specs = [_spec("nesbot-trained", "el-tetris", index, pieces=15) for index in range(3)]
    seen = []
    games = run_ab(specs, workers=2, on_result=lambda index, _game: seen.append(index))
    assert sorted(seen) == [0, 1, 2]
    assert games == [ab_game(spec) for spec in specs]
    summary = summarize(games)
    assert summary.games == 3 and math.isclose(summary.gain, sum(g.gain for g in games) / 3)
    assert summary.gain_se >= 0 and "B - A" in summary.text()
    one = summarize([ABGame(10, 2, 500.0, 0.0, 1_000)])
    assert one.differ_share == 0.2 and one.gain_se == 0.0
