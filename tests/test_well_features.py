"""The right-well features (StackRabbit's factors, the well in column 9) on hand-made
boards, and their heights from the piece ranges."""

from itertools import pairwise

import pytest

from nesbot._core.features import ALL_FEATURE_NAMES
from nesbot._core.piece_ranges import well_heights
from nesbot._core.value_terms import all_features_py

LEVEL = 19
SCARE, BESIDE = 8.5, 9.0  # level 19 at 30 Hz (the docstring of well_heights)


def board_of(heights: list[int]) -> list[int]:
    """Rows 0-19 with each column filled solid from the floor to its height."""
    return [sum(1 << c for c, h in enumerate(heights) if h >= 20 - r) for r in range(20)]


def features(rows: list[int], level: int = LEVEL) -> dict[str, float]:
    return dict(zip(ALL_FEATURE_NAMES, all_features_py(rows, level=level), strict=True))


def test_the_heights_come_from_the_piece_ranges():
    scare, beside = well_heights(2)
    assert (scare[18], beside[18]) == (9.5, 9.5)
    assert (scare[LEVEL], beside[LEVEL]) == (SCARE, BESIDE)
    assert (scare[29], beside[29]) == (6.5, 7.5)
    assert all(a >= b for a, b in pairwise(scare))  # faster, lower


def test_an_empty_board_has_none():
    f = features([0] * 20)
    assert [f[n] for n in ("well_covered", "high_beside_well", "unable_to_burn")] == [0, 0, 0]
    assert f["stack_height_over"] == f["extreme_gap"] == f["stack_holes"] == 0
    assert f["well_tetris_ready"] == 0


def test_a_filled_well_costs_its_height_cubed():
    f = features(board_of([4] * 9 + [3]))
    assert f["well_covered"] == pytest.approx((3 / SCARE) ** 3)
    assert features(board_of([4] * 9 + [3]), level=29)["well_covered"] == pytest.approx(
        (3 / 6.5) ** 3
    )


def test_column_8_above_its_safe_height():
    assert features(board_of([9] * 9 + [0]))["high_beside_well"] == 0
    assert features(board_of([9] * 8 + [12, 0]))["high_beside_well"] == (12 - BESIDE) ** 2


def test_column_8_far_below_column_7_needs_burns():
    # good height min(9, 8 - 2) = 6; column 8 at 2 lacks 4 rows: 2 burns of 0.6
    assert features(board_of([8] * 8 + [2, 0]))["beside_well_low"] == pytest.approx(1.2)
    assert features(board_of([8] * 8 + [3, 0]))["beside_well_low"] == pytest.approx(1.2)
    assert features(board_of([8] * 8 + [6, 0]))["beside_well_low"] == 0


def test_stack_height_over_the_scare_height():
    # a tenth of the nine columns' heights: 0.9 x 12 = 10.8
    assert features(board_of([12] * 9 + [0]))["stack_height_over"] == pytest.approx(
        (10.8 - SCARE) ** 2
    )
    assert features(board_of([9] * 9 + [0]))["stack_height_over"] == 0  # 8.1 rows


def test_extreme_gaps_count_steps_beyond_three():
    assert features(board_of([2, 2, 2, 10, 2, 2, 2, 2, 2, 0]))["extreme_gap"] == 10
    # column 8 far below column 7 is a second well, not a gap
    assert features(board_of([8] * 8 + [1, 0]))["extreme_gap"] == 0


def test_tetris_ready_over_column_9():
    rows = board_of([4] * 9 + [0])
    assert features(rows)["well_tetris_ready"] == 1
    rows[17] &= ~(1 << 4)  # a covered hole in the four rows
    rows[16] |= 1 << 4
    assert features(rows)["well_tetris_ready"] == 0
    assert features(board_of([4] * 10))["well_tetris_ready"] == 0


def test_ready_rows_past_a_tetris_are_counted_from_the_wells_bottom():
    assert features(board_of([4] * 9 + [0]))["well_past_tetris"] == 0
    assert features(board_of([10] * 9 + [0]))["well_past_tetris"] == 6
    assert features(board_of([10] * 9 + [3]))["well_past_tetris"] == 3  # 7 ready over 3
    rows = board_of([10] * 9 + [0])
    rows[13] &= ~(1 << 4)  # row 13 (the 7th from the floor) not full: 6 ready under it
    assert features(rows)["well_past_tetris"] == 2
    rows = board_of([10] * 9 + [0])
    rows[19] &= ~(1 << 2)  # the well's bottom row not full: nothing stands ready over it
    assert features(rows)["well_past_tetris"] == 0


def test_ready_rows_under_a_capped_well_are_counted():
    assert features(board_of([10] * 9 + [0]))["covered_ready_rows"] == 0  # open: none
    rows = board_of([10] * 9 + [0])
    rows[9] |= 0b11 << 8  # a piece over columns 8-9 caps the well: the 10 ready rows wait
    assert features(rows)["covered_ready_rows"] == 10
    assert features(rows)["well_past_tetris"] == 0  # none stands ready over its top
    rows[17] &= ~(1 << 4)  # a row under the cap with a hole of its own is not ready
    assert features(rows)["covered_ready_rows"] == 9
    assert features(board_of([10] * 10))["covered_ready_rows"] == 0  # filled, not capped


def test_holes_are_counted_beside_the_well_only():
    rows = board_of([4] * 10)
    rows[18] &= ~(1 << 2)
    rows[19] &= ~(1 << 9)  # the well column's covered cell: well_covered's, not a hole
    assert features(rows)["stack_holes"] == 1


def test_a_built_out_left_is_worth_something_only_over_filled_cells():
    base = [4] * 9 + [0]
    built = features(board_of([8, *base[1:]]))["built_out_left"]
    assert built > 0
    low = features(board_of([1, *base[1:]]))["built_out_left"]
    assert low < 0
    rows = board_of([8, *base[1:]])
    rows[18] &= ~1  # a hole under column 0's top
    assert features(rows)["built_out_left"] == 0


def test_unable_to_burn_counts_what_the_middle_lacks_below_column_8():
    heights = [10, 10, 4, 10, 10, 10, 10, 10, 10, 0]
    f = features(board_of(heights))
    assert f["unable_to_burn"] == pytest.approx(100 * (10 / SCARE) ** 3)  # a 6-deep pit
    heights = [10, 10, 8, 10, 10, 10, 10, 10, 10, 0]
    f = features(board_of(heights))
    assert f["unable_to_burn"] == pytest.approx(4 * (10 / SCARE) ** 3)
    assert features(board_of([10] * 9 + [0]))["unable_to_burn"] == 0
