"""The lookahead's bound (evaluate.value_bound): never above the evaluation of a board with
the column tops it is computed from, exact for the features of the tops, and the planner's
plans the same with the placements it skips as without."""

import math

import numpy as np
import pytest

from nesbot._core.blind import plan_blind
from nesbot._core.game import Game
from nesbot._core.pieces import ORIENTATION_CELLS, SPAWN_TABLE
from nesbot._core.probes import evaluate_py, value_bound_py
from nesbot.bot.planning import PlannerSettings, build_planner
from nesbot.evaluation.evaluators import EVALUATORS
from nesbot.evaluation.weights import Weights

I_VERTICAL = 0x11

# The features value_bound computes exactly (evaluate.pyx's is_top_feature) but
# built_out_left, which it counts at the lesser of its two values.
TOP_FEATURES = (
    "total_lines_cleared",
    "total_lock_height",
    "landing_height",
    "burned_lines",
    "total_column_heights",
    "pile_height",
    "column_height_spread",
    "total_solid_cells",
    "column_height_variance",
    "right_column_height",
    "high_stack",
    "surface_value",
    "unreachable_columns",
    "reach_excess",
    "well_covered",
    "high_beside_well",
    "beside_well_low",
    "stack_height_over",
    "extreme_gap",
    "stack_holes",
)


def stack(rng: np.random.Generator, tallest: int = 19) -> list[int]:
    """Rows 0-19 of a stack as the lookahead meets them: a bumpy top, a well or not, a
    few holes, sometimes tall."""
    rows = [0] * 20
    base = int(rng.integers(0, tallest - 2))
    heights = np.clip(base + rng.integers(-4, 5, size=10), 0, tallest)
    if rng.random() < 0.5:
        heights[int(rng.integers(0, 10))] = int(rng.integers(0, 4))
    density = rng.uniform(0.85, 1.0)
    for c in range(10):
        for r in range(19, 19 - int(heights[c]), -1):
            if r == 20 - heights[c] or rng.random() < density:
                rows[r] |= 1 << c
    return [row if row != 0x3FF else row & ~(1 << int(rng.integers(0, 10))) for row in rows]


def fits(rows: list[int], orientation: int, x: int, y: int) -> bool:
    for dx, dy in ORIENTATION_CELLS[orientation]:
        cx, cy = x + dx, y + dy
        if not (0 <= cx < 10 and -2 <= cy < 20) or (cy >= 0 and rows[cy] >> cx & 1):
            return False
    return True


def drops(rows: list[int], rng: np.random.Generator, count: int):
    """`count` placements (orientation, x, y) that fit and rest on the stack or the floor."""
    found = 0
    while found < count:
        orientation = int(rng.integers(0, len(ORIENTATION_CELLS)))
        x = int(rng.integers(0, 10))
        y = -2
        if not fits(rows, orientation, x, y):
            continue
        while fits(rows, orientation, x, y + 1):
            y += 1
        found += 1
        yield orientation, x, y


def placed(rows: list[int], orientation: int, x: int, y: int) -> tuple[list[int], int]:
    """The 22 rows (-2..19) after the piece locks, and the rows it completes (not cleared)."""
    board = [0, 0, *rows]
    for dx, dy in ORIENTATION_CELLS[orientation]:
        board[y + dy + 2] |= 1 << (x + dx)
    return board, sum(row == 0x3FF for row in board[2:])


def evaluators():
    for name, evaluator in EVALUATORS.items():
        yield name, evaluator
        if evaluator.kill_screen_by_tap_hz:
            yield f"{name} at 15 Hz", evaluator.at_tap_hz(15)


@pytest.mark.parametrize("name,evaluator", list(evaluators()))
def test_the_bound_is_never_above_the_evaluation(name, evaluator):
    rng = np.random.default_rng(sum(map(ord, name)))
    bounded = 0
    for _ in range(40):
        rows = stack(rng)
        for orientation, x, y in drops(rows, rng, 6):
            level = int(rng.choice([18, 19, 28, 29, 33]))
            tap_interval = int(rng.choice([2, 4]))
            sums = dict(lock_height_total=int(rng.integers(0, 30)), burned=int(rng.integers(0, 4)))
            sums |= dict(lines_cleared=sums["burned"] + 4 * int(rng.integers(0, 2)))
            sums |= dict(landing_height_total=float(rng.integers(0, 40)) / 2)
            bound = value_bound_py(
                rows, orientation, x, y, evaluator, level=level, tap_interval=tap_interval, **sums
            )
            board, full = placed(rows, orientation, x, y)
            if full or y + min(dy for _, dy in ORIENTATION_CELLS[orientation]) < 0:
                assert bound is None  # not bounded: the lookahead evaluates these
                continue
            value = evaluate_py(
                board,
                sums["lines_cleared"],
                sums["lock_height_total"],
                evaluator,
                sums["landing_height_total"],
                sums["burned"],
                level,
                tap_interval,
            )
            assert bound is not None and bound <= value + 1e-9 * (1 + abs(value))
            bounded += bound > -math.inf
    assert bounded > 100 or bounded == 0  # a set with no finite bound has none anywhere


def test_the_bound_is_the_evaluation_for_the_features_of_the_tops():
    """Random weights on every feature value_bound computes exactly (the stack's holes
    from the tops and the cells among them), no ceiling penalty: bound and evaluation
    agree to rounding."""
    rng = np.random.default_rng(37)
    for _ in range(60):
        weights = {name: float(rng.uniform(-20, 20)) for name in TOP_FEATURES}
        evaluator = Weights.named(weights, ceiling=0.0)
        rows = stack(rng)
        for orientation, x, y in drops(rows, rng, 4):
            board, full = placed(rows, orientation, x, y)
            bound = value_bound_py(rows, orientation, x, y, evaluator, 3, 12, 9.5, 1, 24)
            if bound is None:
                assert full or y < 2
                continue
            value = evaluate_py(board, 3, 12, evaluator, 9.5, 1, 24)
            assert bound == pytest.approx(value, rel=1e-9, abs=1e-9)


def test_the_bound_holds_under_capped_ready_rows_weighed_negatively():
    """covered_ready_rows is read from the cells, not the tops: under a negative weight the
    bound counts it at its most, and stays at or below the evaluation."""
    rng = np.random.default_rng(44)
    rows = [0] * 9 + [0x300] + [0x1FF] * 10  # ten ready rows under a cap on columns 8-9
    evaluator = Weights.named({"covered_ready_rows": -10.0, "stack_holes": 5.0})
    checked = 0
    for orientation, x, y in drops(rows, rng, 20):
        bound = value_bound_py(rows, orientation, x, y, evaluator)
        board, full = placed(rows, orientation, x, y)
        if bound is None or full:
            continue
        value = evaluate_py(board, 0, 0, evaluator, 0.0, 0, 19, 2)
        assert -math.inf < bound <= value + 1e-9 * (1 + abs(value))
        checked += 1
    assert checked > 5


def test_a_feature_without_a_ceiling_weighed_negatively_leaves_no_bound():
    rows = [0] * 16 + [0x1FF] * 4
    for name, weight, bounded in [
        ("well_sums", -1.0, False),
        ("well_sums", 1.0, True),
        ("tetris_ready", -5.0, True),  # 0 or 1: at least -5
        ("burns_needed", -2.0, True),  # at most a field's rows
        ("well_past_tetris", 4.0, True),
        ("well_past_tetris", -4.0, True),  # at most the rows above 4
        ("covered_ready_rows", 10.0, True),
        ("covered_ready_rows", -10.0, True),  # at most a field's rows
    ]:
        evaluator = Weights.named({name: weight})
        bound = value_bound_py(rows, I_VERTICAL, 0, 14, evaluator)
        assert bound is not None and (bound > -math.inf) == bounded, name


@pytest.mark.parametrize(
    "level,settings",
    [
        (19, PlannerSettings()),
        (18, PlannerSettings(reaction=18)),
        (29, PlannerSettings(reaction=18)),
        (29, PlannerSettings(reaction=18, tap_hz=15)),
    ],
    ids=["level 19", "level 18 --reaction 18", "level 29 --reaction 18", "15 Hz level 29"],
)
def test_the_planner_plans_the_same_without_the_bound(level, settings):
    """Every plan (and blind plan) on random stacks, with the skipped placements and with
    every placement judged: the same path, placement and value to the bit."""
    rng = np.random.default_rng(level + settings.tap_hz)
    evaluator = EVALUATORS["nesbot-rightwell-wellsums"]
    pruned, full = build_planner(evaluator, settings), build_planner(evaluator, settings)
    full.bound_pruning = False
    for _ in range(12):
        rows = stack(rng, tallest=14)
        piece, following = (SPAWN_TABLE[int(t)] for t in rng.integers(0, 7, size=2))
        game = Game.spawned(rows, piece, following, level)
        assert pruned.plan(game) == full.plan(game)
        assert plan_blind(pruned, game) == plan_blind(full, game)
