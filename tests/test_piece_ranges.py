"""What a stack lets a vertical I reach (cython_core/piece_ranges.py): the per-column limits
measured with the search's plain paths decide reachability exactly, and the evaluator's
piece-range features read them at the level's gravity and the planner's tap rate."""

import random

import pytest

from nesbot._core.features import ALL_FEATURE_NAMES
from nesbot._core.game import Game
from nesbot._core.moves import Searcher
from nesbot._core.piece_ranges import ANY_NEXT, I_SPAWN, I_VERTICAL, reach_limits, reachable_columns
from nesbot._core.planner import Planner
from nesbot._core.probes import evaluate_py
from nesbot._core.value_terms import all_features_py
from nesbot.evaluation.weights import MEATFIGHTER_2018


def stack(heights: list[int]) -> list[int]:
    """Rows 0-19 with each column filled from the floor to its height."""
    rows = [0] * 20
    for column, height in enumerate(heights):
        for r in range(20 - height, 20):
            rows[r] |= 1 << column
    return rows


def features(heights: list[int], level: int, tap_interval: int = 2) -> dict[str, float]:
    values = all_features_py(stack(heights), level, tap_interval)
    return dict(zip(ALL_FEATURE_NAMES, values, strict=True))


@pytest.mark.parametrize("tap_interval", [2, 3, 5])
def test_the_tables_decide_reachability_as_the_search_does(tap_interval):
    """On random stacks (no full row, no overhang), the columns a vertical I reaches by
    plain paths are those the per-column limits allow, and the evaluator counts the rest."""
    searcher = Searcher(tap_interval)
    rnd = random.Random(tap_interval)
    checked = 0
    while checked < 400:
        level = rnd.choice([15, 18, 19, 28, 29, 40])
        heights = [rnd.randint(0, rnd.choice([6, 12, 16, 19])) for _ in range(10)]
        if min(heights) > 0:
            continue  # a full bottom row would be cleared, not stood on
        game = Game.spawned(stack(heights), I_SPAWN, ANY_NEXT, level)
        found = {x for x, _y, o in searcher.plain_placements_of(game) if o == I_VERTICAL}
        expected = [c in found for c in range(10)]
        assert reachable_columns(heights, level, tap_interval) == expected, (level, heights)
        unreachable = features(heights, level, tap_interval)["unreachable_columns"]
        assert unreachable == expected.count(False), (level, heights)
        checked += 1


def test_the_killscreen_closes_the_walls_sooner():
    """At 30 Hz a column-0 stack of 11 rows stops the I at level 29 (a row a frame) but
    not at 19 (a row every two frames); column 8 at 13 rows shuts column 9 off at 29."""
    left = [11] + [0] * 9
    assert reachable_columns(left, 19) == [True] * 10
    assert reachable_columns(left, 29) == [False] + [True] * 9
    right = [0] * 8 + [13, 0]
    assert reachable_columns(right, 29) == [True] * 8 + [True, False]
    assert features(right, 29)["unreachable_columns"] == 1
    assert features(right, 29)["reach_excess"] == 13 - reach_limits()[0][29][8]
    assert features(right, 19)["unreachable_columns"] == 0
    # level 29 and every level after it fall a row a frame: the same limits
    assert features(right, 39)["unreachable_columns"] == 1


def test_limits_shrink_toward_the_walls_and_with_gravity():
    passes, enters = reach_limits()
    for level in (18, 19, 29):
        assert passes[level][6] >= passes[level][7] >= passes[level][8]
        assert passes[level][4] >= passes[level][3] >= passes[level][2] >= passes[level][1]
    assert all(a >= b for a, b in zip(passes[19], passes[29], strict=True))
    assert all(p <= e for p, e in zip(passes[29], enters[29], strict=True))


def test_the_weights_reach_the_evaluation_and_the_planner():
    heights = [0] * 8 + [13, 0]
    rows = stack(heights)
    weighted = MEATFIGHTER_2018.changed(unreachable_columns=7.0, reach_excess=2.0)
    plain = evaluate_py(rows, 0, 0, MEATFIGHTER_2018, level=29)
    excess = features(heights, 29)["reach_excess"]
    assert evaluate_py(rows, 0, 0, weighted, level=29) == pytest.approx(
        plain + 7.0 * 1 + 2.0 * excess
    )
    assert evaluate_py(rows, 0, 0, weighted, level=19) == pytest.approx(
        evaluate_py(rows, 0, 0, MEATFIGHTER_2018, level=19)
    )
    # A planner built with the weights runs with them (its tap rate's limits loaded).
    game = Game.spawned(stack([0] * 10), I_SPAWN, ANY_NEXT, 29)
    assert Planner(weighted, tap_interval=2).plan(game) is not None
