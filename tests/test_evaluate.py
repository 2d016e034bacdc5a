"""The board evaluation: hand-computed boards, a slow reference on random boards, the
calming-rule vetoes, and weights files."""

import dataclasses
import json
import math
from collections import deque

import numpy as np
import pytest

from nesbot._core import probes
from nesbot._core.features import ALL_FEATURE_NAMES, FEATURE_NAMES
from nesbot._core.pieces import ORIENTATION_CELLS, SPAWN_TABLE
from nesbot._core.probes import (
    bench_evaluate,
    blocks_spawn_py,
    board_features_py,
    ceiling_penalty_py,
    evaluate_py,
    field_split_py,
    ready_rows_py,
    touches_ceiling_py,
)
from nesbot._core.value_terms import evaluate_trace, format_trace
from nesbot._core.weight_sets import DEFAULT_CEILING_WEIGHT
from nesbot.errors import NesbotError
from nesbot.evaluation.evaluators import Evaluator
from nesbot.evaluation.weights import MEATFIGHTER_2018, Weights, load_weights, save_weights

FULL = 0x3FF


def board(cells: dict[int, int]) -> list[int]:
    """22 row masks (rows -2..19) from {row: mask}."""
    rows = [0] * 22
    for r, mask in cells.items():
        rows[r + 2] = mask
    return rows


def features(rows) -> dict[str, float]:
    return dict(zip(FEATURE_NAMES, board_features_py(rows), strict=True))


# ---------------------------------------------------------------- slow, obvious reference


def ref_features(rows: list[int]) -> list[float]:
    """Every feature of meatfighter's 17 straight from their definitions, cell by cell (the
    caller-known two are 0)."""
    grid = [[bool(rows[r + 2] >> c & 1) for c in range(10)] for r in range(20)]

    def filled(r: int, c: int) -> bool:
        return c < 0 or c > 9 or grid[r][c]  # walls count as filled

    top = [next((r for r in range(20) if grid[r][c]), 20) for c in range(10)]
    heights = [20 - t for t in top]
    wells_per_column = [
        sum(1 for r in range(top[c]) if filled(r, c - 1) and filled(r, c + 1)) for c in range(10)
    ]
    holes = [(r, c) for c in range(10) for r in range(1, 20) if not grid[r][c] and grid[r - 1][c]]
    depths = [r - top[c] for r, c in holes]
    column_transitions = sum(
        1 for c in range(10) for r in range(top[c] + 1, 20) if grid[r][c] != grid[r - 1][c]
    )
    row_transitions = 0
    for r in range(20):
        if any(grid[r]):
            line = [True, *grid[r], True]
            row_transitions += sum(line[i] != line[i + 1] for i in range(11))
    solid = [(r, c) for r in range(20) for c in range(10) if grid[r][c]]
    return [
        0,
        0,
        sum(wells_per_column),
        sum(1 for n in wells_per_column if n >= 3),
        len(holes),
        sum(r + 1 for r, _ in holes),
        sum(depths),
        min(depths, default=20),
        max(depths, default=0),
        column_transitions,
        row_transitions,
        sum(heights),
        max(heights),
        max(heights) - min(heights),
        len(solid),
        sum(20 - r for r, _ in solid),
        sum(abs(heights[c] - heights[c - 1]) for c in range(1, 10)),
    ]


def ref_ceiling(rows: list[int], ceiling_weight: float) -> float:
    return sum(
        ceiling_weight / max(r + 1, 1)
        for r in range(-2, 7)
        for c in range(10)
        if rows[r + 2] >> c & 1
    )


def ref_blocks_spawn(rows: list[int]) -> bool:
    for orientation in SPAWN_TABLE:
        for dx, dy in ORIENTATION_CELLS[orientation]:
            x, y = 5 + dx, dy
            if not (0 <= x < 10 and -2 <= y < 20) or rows[y + 2] >> x & 1:
                return True
    return False


def ref_field_split(rows: list[int]) -> bool:
    def empty(r: int, c: int) -> bool:
        return not rows[r + 2] >> c & 1

    seen = {(0, c) for c in (4, 5, 6) if empty(0, c)}
    queue = deque(seen)
    while queue:
        r, c = queue.popleft()
        for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if 0 <= nr < 20 and 0 <= nc < 10 and empty(nr, nc) and (nr, nc) not in seen:
                seen.add((nr, nc))
                queue.append((nr, nc))
    for r in range(20):
        cells = [(r, c) for c in range(10) if empty(r, c)]
        if cells and all(cell in seen for cell in cells):
            return False
    return True


def random_board(rng: np.random.Generator) -> list[int]:
    """Cells below a random surface with random density (so random holes), from the bottom;
    one board in four is pure noise (floating cells, empty rows inside the pile)."""
    rows = [0] * 22
    if rng.random() < 0.25:
        density = rng.uniform(0.05, 0.9)
        first = int(rng.integers(0, 22))
        for i in range(first, 22):
            rows[i] = int(sum(1 << c for c in range(10) if rng.random() < density))
        return rows
    base = int(rng.integers(0, 21))
    heights = np.clip(base + rng.integers(-5, 6, size=10), 0, 20)
    if rng.random() < 0.3:  # a well
        heights[int(rng.integers(0, 10))] = int(rng.integers(0, 3))
    density = rng.uniform(0.6, 1.0)
    for c in range(10):
        for r in range(19, 19 - int(heights[c]), -1):
            if r == 20 - heights[c] or rng.random() < density:
                rows[r + 2] |= 1 << c
    if rng.random() < 0.1:
        rows[int(rng.integers(0, 2))] |= 1 << int(rng.integers(0, 10))
    return rows


RANDOM_BOARDS = [random_board(rng) for rng in [np.random.default_rng(20180)] for _ in range(300)]


# ---------------------------------------------------------------- hand-made boards


def test_empty_board():
    f = features([0] * 22)
    assert f == {name: 0.0 for name in FEATURE_NAMES} | {"min_column_hole_depth": 20.0}
    assert not blocks_spawn_py([0] * 22)
    assert not field_split_py([0] * 22)
    assert not touches_ceiling_py([0] * 22)
    # The one nonzero feature: an empty board's min_column_hole_depth is 20.
    empty = evaluate_py([0] * 22, 0, 0, MEATFIGHTER_2018)
    assert empty == 20 * MEATFIGHTER_2018["min_column_hole_depth"]


def test_single_hole():
    f = features(board({18: 0b1}))
    assert f["total_column_holes"] == 1
    assert f["total_weighted_column_holes"] == 20  # row 19 is the 20th row from the top
    assert f["total_column_hole_depths"] == 1
    assert f["min_column_hole_depth"] == 1
    assert f["max_column_hole_depth"] == 1
    assert f["total_column_transitions"] == 1
    assert f["total_row_transitions"] == 2
    assert f["total_column_heights"] == 2
    assert f["pile_height"] == 2
    assert f["column_height_spread"] == 2
    assert f["total_solid_cells"] == 1
    assert f["total_weighted_solid_cells"] == 2
    assert f["column_height_variance"] == 2
    assert f["total_well_cells"] == 0


def test_hole_run_under_overhang_is_one_hole():
    # Only the empty cell directly below a filled one is a hole; its depth is from the top.
    f = features(board({15: 0b1, 16: 0, 17: 0, 18: 0b1}))
    assert f["total_column_holes"] == 2  # rows 16 and 19
    assert f["total_weighted_column_holes"] == 17 + 20
    assert f["total_column_hole_depths"] == 1 + 4
    assert (f["min_column_hole_depth"], f["max_column_hole_depth"]) == (1, 4)
    assert f["total_column_transitions"] == 3


def test_well_of_depth_3_at_the_wall():
    f = features(board({17: 0x3FE, 18: 0x3FE, 19: 0x3FE}))
    assert f["total_well_cells"] == 3
    assert f["total_deep_wells"] == 1
    assert f["total_column_holes"] == 0
    assert f["total_column_transitions"] == 0
    assert f["total_row_transitions"] == 6
    assert f["total_column_heights"] == 27
    assert f["pile_height"] == 3
    assert f["column_height_spread"] == 3
    assert f["total_solid_cells"] == 27
    assert f["total_weighted_solid_cells"] == 54
    assert f["column_height_variance"] == 3


def test_two_deep_well_is_not_deep_and_right_wall_counts():
    f = features(board({18: 0x1FF, 19: 0x1FF}))
    assert (f["total_well_cells"], f["total_deep_wells"]) == (2, 0)


def test_gapped_well_is_one_deep_well():
    # Column 5 is empty; its left wall has a gap in row 17, so its well cells are rows 15,
    # 16, 18 and 19: one well of four cells (meatfighter: a column's well cells need not be
    # contiguous), although no run of them is 3 long.
    gap = 0x3DF & ~(1 << 4)
    rows = board({15: 0x3DF, 16: 0x3DF, 17: gap, 18: 0x3DF, 19: 0x3DF})
    f = features(rows)
    assert (f["total_well_cells"], f["total_deep_wells"]) == (4, 1)
    assert board_features_py(rows) == ref_features(rows)


def test_checkerboard():
    rows = board({16: 0x155, 17: 0x2AA, 18: 0x155, 19: 0x2AA})
    f = features(rows)
    assert f["total_row_transitions"] == 40
    assert f["total_column_transitions"] == 25
    assert f["total_column_holes"] == 15
    assert f["total_weighted_column_holes"] == 5 * (18 + 20) + 5 * 19
    assert f["total_column_hole_depths"] == 5 * (1 + 3) + 5 * 1
    assert (f["min_column_hole_depth"], f["max_column_hole_depth"]) == (1, 3)
    assert f["total_column_heights"] == 35
    assert (f["pile_height"], f["column_height_spread"]) == (4, 1)
    assert f["column_height_variance"] == 9
    assert (f["total_solid_cells"], f["total_weighted_solid_cells"]) == (20, 50)
    assert (f["total_well_cells"], f["total_deep_wells"]) == (5, 0)


def test_full_bottom_row():
    f = features(board({19: FULL}))
    assert f == {name: 0.0 for name in FEATURE_NAMES} | {
        "min_column_hole_depth": 20,
        "total_column_heights": 10,
        "pile_height": 1,
        "total_solid_cells": 10,
        "total_weighted_solid_cells": 10,
    }


def test_hidden_rows_do_not_enter_features():
    assert board_features_py(board({-2: FULL, -1: 0x155})) == board_features_py([0] * 22)


def test_twenty_rows_mean_empty_hidden_rows():
    rows = RANDOM_BOARDS[7]
    assert board_features_py(rows[2:]) == board_features_py([0, 0, *rows[2:]])
    assert evaluate_py(rows[2:], 1, 2, MEATFIGHTER_2018) == evaluate_py(
        [0, 0, *rows[2:]], 1, 2, MEATFIGHTER_2018
    )


# ---------------------------------------------------------------- random boards


@pytest.mark.parametrize("index", range(0, 300, 50))
def test_random_boards_match_reference(index):
    for rows in RANDOM_BOARDS[index : index + 50]:
        assert board_features_py(rows) == ref_features(rows), rows


def test_random_boards_cover_the_features():
    refs = [ref_features(rows) for rows in RANDOM_BOARDS]
    for i, name in enumerate(FEATURE_NAMES[2:], start=2):
        assert len({ref[i] for ref in refs}) > 2, name


def test_evaluate_is_weighted_sum_plus_ceiling_penalty():
    rng = np.random.default_rng(7)
    for rows in RANDOM_BOARDS:
        lines, lock = int(rng.integers(0, 9)), int(rng.integers(0, 40))
        for weights, ceiling in (
            (MEATFIGHTER_2018.as_vector()[:17], MEATFIGHTER_2018.ceiling),
            (list(rng.normal(size=17)), float(rng.uniform(0, 2000))),
        ):
            f = ref_features(rows)
            f[0], f[1] = lines, lock
            expected = sum(w * x for w, x in zip(weights, f, strict=True))
            expected += ref_ceiling(rows, ceiling)
            got = evaluate_py(rows, lines, lock, [*weights, ceiling])
            assert got == pytest.approx(expected, rel=1e-12, abs=1e-9)


COLUMN_FEATURES = (
    "total_column_holes",
    "total_column_heights",
    "pile_height",
    "column_height_spread",
    "column_height_variance",
)


def test_a_set_weighing_only_column_features_computes_them_alone_alike():
    """A set whose board features are only the column tops' and the holes' (the slow
    taps' kill screen) computes those from the column tops alone: the same values."""
    rng = np.random.default_rng(8)
    columns = [FEATURE_NAMES.index(name) for name in COLUMN_FEATURES]
    for rows in RANDOM_BOARDS:
        weights = [0.0] * 17
        for i in columns:
            weights[i] = float(rng.normal())
        f = ref_features(rows)
        expected = sum(w * x for w, x in zip(weights, f, strict=True)) + ref_ceiling(rows, 5.0)
        got = evaluate_py(rows, 0, 0, [*weights, 5.0])
        assert got == pytest.approx(expected, rel=1e-12, abs=1e-9), rows


def test_each_set_weighs_with_the_feature_groups_it_needs():
    """The sets before and from the kill screen's level each compute the groups they
    weigh: a kill set of column features alone, after a base set of every group and the
    surface table, evaluates as those weights alone do, and the base as itself."""
    full = MEATFIGHTER_2018.changed(
        surface_value=-3.0, well_sums=0.5, high_stack=4.0, covered_cells=2.0, stack_holes=9.0
    )
    light = {name: 0.0 for name in ALL_FEATURE_NAMES} | dict.fromkeys(COLUMN_FEATURES, 7.0)
    kill = dataclasses.replace(full, kill_screen=light)
    alone = Weights.named(light, ceiling=full.ceiling)
    for rows in RANDOM_BOARDS[:60]:
        assert evaluate_py(rows, 2, 5, kill, level=19) == evaluate_py(rows, 2, 5, full, level=19)
        assert evaluate_py(rows, 2, 5, kill, level=29) == evaluate_py(rows, 2, 5, alone, level=29)
    reverse = dataclasses.replace(alone, kill_screen=full.by_name())
    for rows in RANDOM_BOARDS[:60]:
        assert evaluate_py(rows, 2, 5, reverse, level=29) == evaluate_py(rows, 2, 5, full, level=29)


def test_the_fast_levels_set_weighs_from_its_level_until_the_kill_screens():
    """fast_levels weighs the positions from level 19 (or its from_level) until the
    kill_screen set's level; the base set before it, the kill set from 29."""
    base = MEATFIGHTER_2018.changed(high_stack=4.0, surface_value=-3.0)
    fast = {"high_stack": 9.0, "safe_stack_height": 5.0, "well_sums": 2.0}
    kill = {"high_stack": 1.0}
    weights = dataclasses.replace(base, kill_screen=kill, fast_levels=fast)
    as_fast = base.changed(**fast)
    as_kill = base.changed(**kill)
    for played in (weights, Evaluator.from_weights(weights, "fast")):
        for rows in RANDOM_BOARDS[:40]:
            for level, alone in ((18, base), (19, as_fast), (28, as_fast), (29, as_kill)):
                got = evaluate_py(rows, 1, 4, played, level=level)
                assert got == evaluate_py(rows, 1, 4, alone, level=level), (level, rows)
    later = dataclasses.replace(weights, fast_levels=fast | {"from_level": 25})
    rows = RANDOM_BOARDS[5]
    assert evaluate_py(rows, 1, 4, later, level=24) == evaluate_py(rows, 1, 4, base, level=24)
    assert evaluate_py(rows, 1, 4, later, level=25) == evaluate_py(rows, 1, 4, as_fast, level=25)


def test_weights_forms_agree():
    rows = RANDOM_BOARDS[3]
    vec = MEATFIGHTER_2018.as_vector()
    assert MEATFIGHTER_2018.ceiling == DEFAULT_CEILING_WEIGHT
    assert (
        evaluate_py(rows, 2, 9, MEATFIGHTER_2018)
        == evaluate_py(rows, 2, 9, vec)
        == evaluate_py(rows, 2, 9, [*vec, DEFAULT_CEILING_WEIGHT])
    )


def test_ceiling_penalty():
    assert ceiling_penalty_py(board({0: 0b1})) == 1000
    assert ceiling_penalty_py(board({6: 0b11}), 700) == 200
    assert ceiling_penalty_py(board({7: FULL})) == 0
    assert ceiling_penalty_py(board({-1: 0b1, -2: 0b1})) == 2000
    for rows in RANDOM_BOARDS:
        assert ceiling_penalty_py(rows, 3.0) == pytest.approx(ref_ceiling(rows, 3.0), rel=1e-12)


def test_trace_adds_up():
    rows = board({0: 0b1, 17: 0x3FE, 18: 0x3FE, 19: 0x2FE})
    trace = evaluate_trace(rows, 3, 11, MEATFIGHTER_2018)
    assert [t[0] for t in trace] == [*FEATURE_NAMES, "ceiling_penalty", "total"]
    assert trace[0][1:] == (
        3,
        MEATFIGHTER_2018["total_lines_cleared"],
        3 * MEATFIGHTER_2018["total_lines_cleared"],
    )
    assert trace[17] == ("ceiling_penalty", 1.0, 1000.0, 1000.0)
    total = trace[-1][3]
    assert total == evaluate_py(rows, 3, 11, MEATFIGHTER_2018)
    assert sum(t[3] for t in trace[:-1]) == pytest.approx(total, rel=1e-12)
    assert math.isnan(trace[-1][1])
    text = format_trace(trace)
    assert "ceiling_penalty" in text and text.count("\n") == len(trace)


def test_bad_inputs_raise_value_error():
    with pytest.raises(ValueError, match="22 masks"):
        board_features_py([0] * 21)
    with pytest.raises(ValueError, match="outside"):
        board_features_py([0] * 19 + [0x400])
    with pytest.raises(ValueError, match=f"17 or {len(ALL_FEATURE_NAMES)} floats"):
        evaluate_py([0] * 22, 0, 0, [1.0] * 16)


def test_bench_evaluate_evaluates_the_board_n_times():
    """The benchmark's loop does the work it times: the sum of its n evaluations (all-ones
    weights, lines cleared cycling 0-3, kept in _bench_sink) is the reference's."""
    rows = RANDOM_BOARDS[0]
    bench_evaluate(rows, 1000)
    board_terms = sum(ref_features(rows)) + ref_ceiling(rows, DEFAULT_CEILING_WEIGHT)
    expected = sum(board_terms + (i & 3) for i in range(1000))
    assert probes._bench_sink == pytest.approx(expected, rel=1e-12)


# ---------------------------------------------------------------- calming rules 3 and 4


def test_blocks_spawn_single_cells():
    assert blocks_spawn_py(board({0: 1 << 3}))  # the I piece's left cell
    assert not blocks_spawn_py(board({0: 1 << 7}))
    assert blocks_spawn_py(board({1: 1 << 6}))  # J's hook
    assert not blocks_spawn_py(board({1: 1 << 3}))
    assert not blocks_spawn_py(board({-1: FULL, -2: FULL, 2: FULL}))
    for r in range(-2, 20):
        for c in range(10):
            rows = board({r: 1 << c})
            assert blocks_spawn_py(rows) == ref_blocks_spawn(rows), (r, c)


def test_blocks_spawn_random_boards():
    for rows in RANDOM_BOARDS:
        assert blocks_spawn_py(rows) == ref_blocks_spawn(rows)


def test_ready_rows_count_up_from_the_wells_top():
    ready = FULL & ~(1 << 9)  # full but for column 9
    assert ready_rows_py(board({r: ready for r in range(14, 20)})) == 6
    # column 9 filled on row 17 (column 8 open there): rows 15-16 stand above its top
    assert ready_rows_py(board({15: ready, 16: ready, 17: FULL & ~(1 << 8), 18: ready})) == 2
    # a row open elsewhere stops the count
    assert ready_rows_py(board({18: ready & ~(1 << 3), 19: ready})) == 1
    assert ready_rows_py([0] * 22) == 0


def test_touches_ceiling():
    assert touches_ceiling_py(board({1: 1 << 9}))
    assert touches_ceiling_py(board({-2: 1}))
    assert not touches_ceiling_py(board({2: FULL}))


def test_field_split_crafted():
    wall = 1 << 3
    closed = board({r: wall for r in range(20)})
    assert field_split_py(closed)
    # Columns 0-2 of row 19 filled: that row's empty cells are all on the spawn side.
    closed[21] |= 0b111
    assert not field_split_py(closed)
    # A gap in row 0 lets the fill over the wall.
    assert not field_split_py(board({r: wall for r in range(1, 20)}))
    # Spawn columns filled: nothing is reachable.
    assert field_split_py(board({0: 0x070}))


def upward_pocket_board() -> list[int]:
    """Row 10's empty cells (columns 4-7 and 9) are reached only down column 9, along row 19
    to column 7 and back up column 7; every other row keeps one enclosed empty cell."""
    rows = board({0: 0b10, 1: FULL & ~(1 << 9) & ~1})
    for r in range(2, 20):
        rows[r + 2] = FULL & ~(1 << 9) & ~(1 << (1 if r % 2 == 0 else 3))
        if r > 10:
            rows[r + 2] &= ~(1 << 7)
    rows[10 + 2] = FULL & ~0b1011110000
    rows[19 + 2] &= ~(1 << 8)
    return rows


def test_field_split_needs_upward_fill():
    rows = upward_pocket_board()
    assert not field_split_py(rows)
    assert ref_field_split(rows) is False
    rows[10 + 2] |= 1 << 7  # closes the pocket
    assert field_split_py(rows)
    assert ref_field_split(rows) is True


def tall_noise_board(rng: np.random.Generator) -> list[int]:
    """Random cells from row 0 down, dense enough that the fill often fails."""
    density = rng.uniform(0.3, 0.6)
    return [0, 0] + [
        int(sum(1 << c for c in range(10) if rng.random() < density)) for _ in range(20)
    ]


def test_field_split_random_boards():
    rng = np.random.default_rng(4)
    boards = RANDOM_BOARDS + [tall_noise_board(rng) for _ in range(300)]
    results = [ref_field_split(rows) for rows in boards]
    assert 50 < sum(results) < 550  # both outcomes are exercised
    for rows, expected in zip(boards, results, strict=True):
        assert field_split_py(rows) == expected, rows


# ---------------------------------------------------------------- weights files


def test_meatfighter_weights():
    assert MEATFIGHTER_2018["total_lines_cleared"] == 0.2861270952978939
    assert MEATFIGHTER_2018["total_solid_cells"] == -2.645656132241128
    assert MEATFIGHTER_2018["column_height_variance"] == 0.28783812616443144
    assert len(MEATFIGHTER_2018.as_vector()) == len(ALL_FEATURE_NAMES)
    assert MEATFIGHTER_2018.provenance["trained"] == "PSO by the author"
    assert MEATFIGHTER_2018.as_vector()[:17] == [MEATFIGHTER_2018[n] for n in FEATURE_NAMES]
    assert MEATFIGHTER_2018.as_vector()[17:] == [0.0] * (len(ALL_FEATURE_NAMES) - 17)


def test_weights_round_trip(tmp_path):
    w = Weights.from_vector(
        list(np.random.default_rng(1).normal(size=17)),
        ceiling=123.456,
        provenance={"source": "test", "seed": 1, "games": [1, 2]},
    )
    path = tmp_path / "w.json"
    save_weights(w, path)
    assert load_weights(path) == w
    save_weights(MEATFIGHTER_2018, path)
    assert load_weights(path) == MEATFIGHTER_2018
    assert hash(MEATFIGHTER_2018) == hash(load_weights(path))
    lower = w.changed(safe_stack_height=6.5)
    save_weights(lower, path)
    assert load_weights(path) == lower
    assert Evaluator.from_weights(lower, "lower").safe_stack_height == 6.5
    kill = dataclasses.replace(lower, kill_screen={"high_stack": 10.0, "safe_stack_height": 3.0})
    save_weights(kill, path)
    assert load_weights(path).kill_screen == kill.kill_screen
    assert Evaluator.from_weights(load_weights(path), "kill").kill_screen == kill.kill_screen
    earlier = dataclasses.replace(kill, kill_screen=kill.kill_screen | {"from_level": 28})
    save_weights(earlier, path)
    assert load_weights(path).kill_screen_from_level == 28
    assert Evaluator.from_weights(load_weights(path), "k").kill_screen_from_level == 28
    assert kill.kill_screen_from_level == 29
    slow = dataclasses.replace(kill, kill_screen_by_tap_hz={15: {"high_stack": 30.0}})
    save_weights(slow, path)
    assert load_weights(path) == slow
    assert load_weights(path).kill_screen_by_tap_hz == {15: {"high_stack": 30.0}}
    evaluator = Evaluator.from_weights(load_weights(path), "slow")
    assert evaluator.kill_screen_by_tap_hz == slow.kill_screen_by_tap_hz
    fast = dataclasses.replace(slow, fast_levels={"stack_height_over": 9.0, "from_level": 20})
    save_weights(fast, path)
    assert load_weights(path) == fast
    assert Evaluator.from_weights(load_weights(path), "fast").fast_levels_from_level == 20
    assert load_weights(path).at_tap_hz(15).fast_levels == fast.fast_levels
    slow_fast = dataclasses.replace(fast, fast_levels_by_tap_hz={20: {}, 12: {"high_stack": 1.0}})
    save_weights(slow_fast, path)
    assert load_weights(path) == slow_fast
    played = Evaluator.from_weights(load_weights(path), "slow fast")
    assert played.at_tap_hz(30).fast_levels == fast.fast_levels
    assert (
        played.at_tap_hz(15).fast_levels == {} and played.at_tap_hz(15).fast_levels_vector() is None
    )
    assert played.at_tap_hz(12).fast_levels == {"high_stack": 1.0}


def test_a_tap_rates_kill_screen_set_covers_it_and_slower_taps():
    """kill_screen_by_tap_hz: a bot tapping at a listed rate, or slower down to the next
    rate listed, plays that rate's set; a faster one plays kill_screen."""
    base = MEATFIGHTER_2018.changed(high_stack=5.0)
    sets = {20: {"high_stack": 20.0}, 12: {"high_stack": 12.0, "from_level": 27}}
    weights = dataclasses.replace(
        base, kill_screen={"high_stack": 30.0}, kill_screen_by_tap_hz=sets
    )
    evaluator = Evaluator.from_weights(weights, "by tap rate")
    for played in (weights, evaluator):
        expected = {30: {"high_stack": 30.0}, 20: sets[20], 15: sets[20], 12: sets[12]}
        expected[10] = sets[12]
        for tap_hz, kill_screen in expected.items():
            at = played.at_tap_hz(tap_hz)
            assert at.kill_screen == kill_screen and at.kill_screen_by_tap_hz == {}
    assert evaluator.at_tap_hz(12).kill_screen_from_level == 27
    assert evaluator.at_tap_hz(30).kill_screen_from_level == 29


def _good() -> dict:
    data = {name: 1.0 for name in FEATURE_NAMES}
    data["ceiling"] = 10.0
    data["provenance"] = {"source": "test"}
    return data


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "is not valid JSON"),
        ("[1, 2]", "must hold a JSON object"),
        (json.dumps({k: v for k, v in _good().items() if k != "pile_height"}), "lacks pile_height"),
        (json.dumps({k: v for k, v in _good().items() if k != "provenance"}), "lacks provenance"),
        (json.dumps(_good() | {"holes": 1.0}), "unknown keys: holes"),
        (json.dumps(_good() | {"ceiling": "big"}), "ceiling must be a finite number"),
        (json.dumps(_good() | {"pile_height": True}), "pile_height must be a finite number"),
        (json.dumps(_good() | {"pile_height": math.nan}), "pile_height must be a finite number"),
        (json.dumps(_good() | {"pile_height": 1e308}), "pile_height must be a finite number"),
        (json.dumps(_good() | {"ceiling": -1e308}), r"within \+-1,000,000, got -1e\+308"),
        (
            json.dumps(_good() | {"kill_screen": {"high_stack": 2e6}}),
            "kill_screen.high_stack must be a finite number within",
        ),
        (json.dumps(_good() | {"provenance": "me"}), "provenance must be a JSON object"),
        (json.dumps(_good() | {"kill_screen": [1]}), "kill_screen must be a JSON object"),
        (
            json.dumps(_good() | {"kill_screen": {"holes": 1}}),
            "kill_screen has unknown keys: holes",
        ),
        (
            json.dumps(_good() | {"kill_screen": {"high_stack": "x"}}),
            "kill_screen.high_stack must be a finite number",
        ),
        (
            json.dumps(_good() | {"kill_screen": {"from_level": 30}}),
            "kill_screen from_level must be a level 0-29, got 30",
        ),
        (
            json.dumps(_good() | {"kill_screen": {"from_level": 27.5}}),
            "kill_screen from_level must be a level 0-29, got 27.5",
        ),
        (
            json.dumps(_good() | {"kill_screen_by_tap_hz": [1]}),
            "kill_screen_by_tap_hz must be a JSON object",
        ),
        (
            json.dumps(_good() | {"kill_screen_by_tap_hz": {"fast": {}}}),
            "kill_screen_by_tap_hz keys must be tap rates in Hz, got 'fast'",
        ),
        (
            json.dumps(_good() | {"kill_screen_by_tap_hz": {"15": {"holes": 1}}}),
            "kill_screen_by_tap_hz.15 has unknown keys: holes",
        ),
        (
            json.dumps(_good() | {"kill_screen_by_tap_hz": {"15": {"high_stack": None}}}),
            "kill_screen_by_tap_hz.15.high_stack must be a finite number",
        ),
        (
            json.dumps(_good() | {"kill_screen_by_tap_hz": {"15": {"from_level": 31}}}),
            "kill_screen from_level must be a level 0-29, got 31",
        ),
        (json.dumps(_good() | {"fast_levels": 3}), "fast_levels must be a JSON object"),
        (
            json.dumps(_good() | {"fast_levels_by_tap_hz": {"x": {}}}),
            "fast_levels_by_tap_hz keys must be tap rates in Hz, got 'x'",
        ),
        (
            json.dumps(_good() | {"fast_levels_by_tap_hz": {"20": {"from_level": 29}}}),
            "fast_levels from_level must be a level 0-28, before the kill_screen set's 29, got 29",
        ),
        (
            json.dumps(_good() | {"fast_levels": {"holes": 1}}),
            "fast_levels has unknown keys: holes",
        ),
        (
            json.dumps(_good() | {"fast_levels": {"high_stack": False}}),
            "fast_levels.high_stack must be a finite number",
        ),
        (
            json.dumps(_good() | {"fast_levels": {"from_level": 29}}),
            "fast_levels from_level must be a level 0-28, before the kill_screen set's 29, got 29",
        ),
        (
            json.dumps(
                _good()
                | {
                    "fast_levels": {"from_level": 27},
                    "kill_screen_by_tap_hz": {"12": {"from_level": 27}},
                }
            ),
            "fast_levels from_level must be a level 0-26, before the kill_screen set's 27, got 27",
        ),
    ],
)
def test_malformed_weights_files(tmp_path, text, message):
    path = tmp_path / "w.json"
    path.write_text(text)
    with pytest.raises(NesbotError, match=message) as info:
        load_weights(path)
    assert str(path) in str(info.value) and "\n" not in str(info.value)


def test_missing_weights_file(tmp_path):
    with pytest.raises(NesbotError, match="does not exist"):
        load_weights(tmp_path / "nope.json")


def test_good_weights_file_loads(tmp_path):
    path = tmp_path / "w.json"
    path.write_text(json.dumps(_good()))
    w = load_weights(path)
    assert w.as_vector()[:17] == [1.0] * 17 and w.ceiling == 10.0


def test_a_kill_screen_set_weighs_the_positions_from_level_29_on():
    """kill_screen changes weights and high_stack's height from level 29 (a row a frame)
    on, and nothing below it; evaluate_trace shows the set it used."""
    base = MEATFIGHTER_2018.changed(high_stack=5.0)
    kill = dataclasses.replace(base, kill_screen={"high_stack": 10.0, "safe_stack_height": 3.0})
    rows = [0] * 12 + [0x3FE] * 8  # 8 rows with column 9 empty: past both safe heights
    for level in (19, 28):
        assert evaluate_py(rows, 0, 0, kill, level=level) == evaluate_py(
            rows, 0, 0, base, level=level
        )
    lowered = base.changed(high_stack=10.0, safe_stack_height=3.0)
    for level in (29, 39):
        assert evaluate_py(rows, 0, 0, kill, level=level) == evaluate_py(
            rows, 0, 0, lowered, level=level
        )
        assert evaluate_py(rows, 0, 0, kill, level=level) > evaluate_py(
            rows, 0, 0, base, level=level
        )
    terms = {name: weight for name, _, weight, _ in evaluate_trace(rows, 0, 0, kill, level=29)}
    assert terms["high_stack"] == 10.0
