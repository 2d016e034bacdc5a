"""nesbot's NES features on hand-made boards: Tetris readiness, burned lines, the right
column's height, a stack past the safe height, the surface table's value, the rows that
need a burn; their weights reach the search and `nesbot explain` shows them."""

import pytest

from nesbot._core.features import ALL_FEATURE_NAMES
from nesbot._core.probes import evaluate_py
from nesbot._core.value_terms import all_features_py
from nesbot.evaluation.surface_builder import load_surface_table
from nesbot.evaluation.weights import MEATFIGHTER_2018

WELL_9 = 0b0111111111  # columns 0-8 filled, column 9 empty


def features(rows: list[int]) -> dict[str, float]:
    return dict(zip(ALL_FEATURE_NAMES, all_features_py(rows), strict=True))


def test_tetris_ready_needs_four_full_rows_over_the_well():
    assert features([0] * 16 + [WELL_9] * 4)["tetris_ready"] == 1
    assert features([0] * 17 + [WELL_9] * 3)["tetris_ready"] == 0  # three rows: no Tetris
    assert features([0] * 14 + [WELL_9] * 6)["tetris_ready"] == 1
    # a hole in one of the four rows
    assert features([0] * 16 + [WELL_9, WELL_9 & ~0b100, WELL_9, WELL_9])["tetris_ready"] == 0
    # the well is the lowest column wherever it is, the rightmost of equals
    well_0 = 0b1111111110
    assert features([0] * 16 + [well_0] * 4)["tetris_ready"] == 1
    assert features([0] * 20)["tetris_ready"] == 0


def test_tetris_ready_looks_at_the_four_rows_above_the_wells_top():
    """The well (column 9) is 3 high, over rows with a hole in column 4: the four rows
    just above its top (rows 13-16) decide."""
    under = 0b1111101111  # rows 17-19: column 4 empty (covered by row 16)
    rows = [0] * 13 + [WELL_9] * 4 + [under] * 3
    assert features(rows)["tetris_ready"] == 1
    rows[13] = WELL_9 & ~(1 << 2)  # the fourth row up has a gap: a triple at best
    assert features(rows)["tetris_ready"] == 0


def test_right_column_height():
    rows = [0] * 20
    assert features(rows)["right_column_height"] == 0
    rows[12] = 1 << 9
    assert features(rows)["right_column_height"] == 8
    rows[5] = 1 << 8  # another column's height does not count
    assert features(rows)["right_column_height"] == 8


def test_high_stack_counts_only_past_the_safe_height():
    """The stack is the mean height of the nine columns beside the well (the lowest)."""
    assert features([0] * 20)["high_stack"] == 0
    assert features([0] * 12 + [WELL_9] * 8)["high_stack"] == 0  # 8 rows: still safe
    assert features([0] * 10 + [WELL_9] * 10)["high_stack"] == 4  # (10 - 8)^2
    # A deep well does not lower the stack; a tall column raises it by a ninth of its rows.
    rows = [0] * 10 + [WELL_9] * 10
    rows[1] = rows[2] = rows[3] = rows[4] = rows[5] = rows[6] = rows[7] = rows[8] = rows[9] = 1
    assert features(rows)["high_stack"] == (10 + 9 / 9 - 8) ** 2


def test_burned_lines_and_the_nes_weights_reach_the_evaluation():
    rows = [0] * 16 + [WELL_9] * 4
    base = evaluate_py(rows, 3, 10, MEATFIGHTER_2018)
    weighted = MEATFIGHTER_2018.changed(
        tetris_ready=-50.0, burned_lines=7.0, right_column_height=2.0, high_stack=3.0
    )
    tall = [0] * 9 + [WELL_9] * 11  # 11 rows: 3 past the safe height
    got = evaluate_py(tall, 3, 10, weighted, burned=3)
    assert got == evaluate_py(tall, 3, 10, MEATFIGHTER_2018) - 50.0 + 7.0 * 3 + 3.0 * 9
    got = evaluate_py(rows, 3, 10, weighted, burned=3)
    assert got == base - 50.0 + 7.0 * 3 + 2.0 * 0
    assert features(rows)["burned_lines"] == 0  # the caller knows it, the board does not


def board_of(heights: list[int]) -> list[int]:
    """20 row masks whose columns are solid up to `heights` (10 of them)."""
    return [sum(1 << c for c, h in enumerate(heights) if h >= 20 - row) for row in range(20)]


def test_surface_value_reads_the_shipped_table_for_columns_0_to_8():
    table = load_surface_table()
    for heights in ([3] * 10, [0, 1, 2, 2, 1, 1, 2, 1, 0, 0], [4, 0, 4, 0, 4, 0, 4, 0, 4, 0]):
        got = features(board_of(heights))["surface_value"]
        assert got == pytest.approx(table.value(heights), abs=1e-6)
    gentle = features(board_of([0, 1, 2, 2, 1, 1, 2, 1, 0, 0]))["surface_value"]
    jagged = features(board_of([4, 0, 4, 0, 4, 0, 4, 0, 4, 0]))["surface_value"]
    assert gentle > 9 > 1 > jagged  # gentle steps take every piece; a comb takes I's only
    # the well (column 9) is not part of the surface, and differences clamp at 3
    assert (
        features(board_of([2] * 9 + [9]))["surface_value"]
        == features(board_of([2] * 10))["surface_value"]
    )
    assert features(board_of([0] * 8 + [4, 0]))["surface_value"] == pytest.approx(
        features(board_of([0] * 8 + [3, 0]))["surface_value"]
    )


def test_burns_needed_counts_rows_over_a_hole_or_across_the_well():
    assert features([0] * 16 + [WELL_9] * 4)["burns_needed"] == 0  # a clean Tetris setup
    assert features([0] * 16 + [0x3FF] + [WELL_9] * 3)["burns_needed"] == 1  # well covered
    # a hole in column 1 of row 17: the two rows above it with column 1 filled must go
    rows = [0] * 15 + [0b11, WELL_9, WELL_9 & ~0b10, WELL_9, WELL_9]
    assert features(rows)["burns_needed"] == 2
    rows[15] = 0b01  # column 0 alone has no hole under it
    assert features(rows)["burns_needed"] == 1


def test_the_surface_and_burn_weights_reach_the_evaluation():
    rows = [0] * 15 + [0b11, WELL_9, WELL_9 & ~0b10, WELL_9, WELL_9]
    f = features(rows)
    weighted = MEATFIGHTER_2018.changed(surface_value=-4.0, burns_needed=6.0)
    expected = evaluate_py(rows, 0, 10, MEATFIGHTER_2018) - 4.0 * f["surface_value"] + 12.0
    assert evaluate_py(rows, 0, 10, weighted) == pytest.approx(expected)


def test_high_stack_starts_where_the_weights_say():
    rows = [0] * 10 + [WELL_9] * 10  # a stack of 10 rows beside the well
    default = MEATFIGHTER_2018.changed(high_stack=1.0)
    lower = default.changed(safe_stack_height=6.0)
    plain = evaluate_py(rows, 0, 10, MEATFIGHTER_2018)
    assert evaluate_py(rows, 0, 10, default) == pytest.approx(plain + (10 - 8) ** 2)
    assert evaluate_py(rows, 0, 10, lower) == pytest.approx(plain + (10 - 6) ** 2)
    assert MEATFIGHTER_2018.safe_stack_height == 8.0  # files without the key: the default
