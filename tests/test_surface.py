"""The surface table (nesbot.evaluation.surface_builder, nesbot._core.surface) on hand-made
surfaces.

Tables built here are narrower than the NES's 9 columns (7 ** 5 surfaces for 6 columns),
so a build takes a fraction of a second; the shipped 9-column table is read as it is.
"""

import numpy as np
import pytest

from nesbot._core.surface import decode, encode, successors, surface_count
from nesbot.cli import main
from nesbot.errors import NesbotError
from nesbot.evaluation.surface_builder import (
    SurfaceInputs,
    board_heights,
    build_surface_table,
    load_surface_table,
    stationary_odds,
)

T, J, Z, O, S, L, I = range(7)  # noqa: E741 (the piece's name)
O_SPAWN, I_VERTICAL = 0x0A, 0x11
SMALL = 6  # columns of the tables built here


def after(heights: list[int], piece: int) -> set[int]:
    """The surfaces a piece's clean placements lead to."""
    return {surface for _, _, surface in successors(encode(heights), piece, len(heights))}


def mirrored(odds: tuple[float, ...]) -> tuple[float, ...]:
    """The odds with J and L, S and Z swapped: the pieces of the mirrored game."""
    return (odds[T], odds[L], odds[S], odds[O], odds[Z], odds[J], odds[I])


@pytest.fixture(scope="module")
def small_table():
    return build_surface_table(
        None, inputs=SurfaceInputs(columns=SMALL), checkpoint=None, progress=False
    )


@pytest.fixture(scope="module")
def shipped():
    return load_surface_table()


# ---------------------------------------------------------------- encoding and placements


def test_encoding_round_trips():
    rng = np.random.default_rng(0)
    for index in [0, surface_count() - 1, *rng.integers(surface_count(), size=200)]:
        assert encode(decode(int(index))) == index
    for heights in ([0] * 9, [3, 0, 3, 0, 3, 0, 3, 0, 3], [0, 1, 2, 3, 3, 2, 1, 0, 0]):
        assert decode(encode(heights)) == heights


def test_encoding_clamps_differences_to_three():
    assert encode([0, 5, 5, 5, 5, 5, 5, 5, 5]) == encode([0, 3, 3, 3, 3, 3, 3, 3, 3])
    assert encode([9, 0, 0, 0, 0, 0, 0, 0, 0]) == encode([3, 0, 0, 0, 0, 0, 0, 0, 0])
    assert surface_count() == 7**8 == 5_764_801


def test_o_on_a_flat_surface_fits_in_every_pair_of_columns():
    found = successors(encode([0] * 9), O)
    assert sorted(left for _, left, _ in found) == list(range(8))
    assert {orientation for orientation, _, _ in found} == {O_SPAWN}
    assert {s for _, _, s in found} == {
        encode([2 if c in (left, left + 1) else 0 for c in range(9)]) for left in range(8)
    }


def test_vertical_i_fits_every_column_and_its_step_is_clamped():
    found = [(o, left, s) for o, left, s in successors(encode([0] * 9), I) if o == I_VERTICAL]
    assert [left for _, left, _ in found] == list(range(9))
    assert found[4][2] == encode([0, 0, 0, 0, 3, 0, 0, 0, 0])  # raised 4, read back as 3


def test_s_and_z_need_a_step():
    assert after([0] * 9, S) == set() and after([0] * 9, Z) == set()
    step = [0, 0, 1, 1, 1, 1, 1, 1, 1]
    # S lies down on two level columns with a step up to their right; Z stands up on a
    # column one above its left neighbour.
    assert after(step, S) == {encode([1, 2, 2, 1, 1, 1, 1, 1, 1])}
    assert after(step, Z) == {encode([0, 2, 3, 1, 1, 1, 1, 1, 1])}


# ---------------------------------------------------------------- values


def test_values_solve_the_bellman_equation(small_table):
    odds, discount = stationary_odds(), 0.9
    values = small_table.values
    bound = small_table.provenance["error_bound"]
    for heights in ([0] * SMALL, [0, 1, 0, 1, 0, 1], [1, 0, 0, 0, 0, 1], [0, 3, 0, 3, 0, 3]):
        expected = sum(
            p * (1 + discount * max(values[s] for s in after(heights, piece)))
            for piece, p in enumerate(odds)
            if after(heights, piece)
        )
        assert values[encode(heights)] == pytest.approx(expected, abs=2 * bound + 1e-5)


def test_mirrored_surfaces_under_mirrored_odds_have_the_same_value(small_table):
    mirror = build_surface_table(
        None,
        inputs=SurfaceInputs(columns=SMALL, odds=mirrored(stationary_odds())),
        checkpoint=None,
        progress=False,
    )
    for index in range(0, surface_count(SMALL), 37):
        flipped = encode(decode(index, SMALL)[::-1])
        assert mirror.values[flipped] == pytest.approx(small_table.values[index], abs=1e-5)


def test_a_surface_only_an_i_can_take_is_the_least_valuable(small_table):
    only_i = [0, 3, 0, 3, 0, 3]
    assert all(not after(only_i, piece) for piece in (T, J, Z, O, S, L))
    assert small_table.values[encode(only_i)] == small_table.values.min()


def test_shipped_table_ranks_hand_made_surfaces(shipped):
    flat = shipped.value([0] * 9)
    assert flat > shipped.value([0, 1, 0, 1, 0, 1, 0, 1, 0])  # jagged
    assert flat > shipped.value([3, 3, 3, 3, 0, 3, 3, 3, 3])  # a 1-wide pit that needs an I
    assert flat < shipped.value([2, 1, 0, 0, 0, 0, 0, 1, 2])  # gentle steps take S and Z too
    assert shipped.values.min() == shipped.value([0, 3, 0, 3, 0, 3, 0, 3, 0])


def test_shipped_table_is_within_its_bounds_and_says_how_it_was_made(shipped):
    made = shipped.provenance
    step = made["scale"]
    assert len(shipped.values) == surface_count()
    assert shipped.values.min() >= made["inputs"]["odds"][I] - step
    assert shipped.values.max() <= 1 / (1 - made["inputs"]["discount"]) + step
    assert made["converged"] and made["command"].startswith("nesbot surface-table")
    assert {"nesbot_version", "build_seconds", "machine_cores", "built"} <= set(made)


def test_value_of_a_board_leaves_out_the_well(shipped):
    rows = [0] * 17 + [0b1000000001, 0b0111111111, 0b1111111111]
    assert board_heights(rows) == [3, 2, 2, 2, 2, 2, 2, 2, 2, 3]
    assert shipped.value(board_heights(rows)) == shipped.value([3, 2, 2, 2, 2, 2, 2, 2, 2])


# ---------------------------------------------------------------- the build


def test_a_resumed_build_equals_an_uninterrupted_one(tmp_path):
    inputs, checkpoint = SurfaceInputs(columns=SMALL), tmp_path / "check.npz"
    build_surface_table(None, inputs=inputs, iterations=5, checkpoint=checkpoint, progress=False)
    resumed = build_surface_table(
        tmp_path / "table.npz",
        inputs=inputs,
        iterations=12,
        checkpoint=checkpoint,
        progress=False,
        log=lambda line: None,
    )
    whole = build_surface_table(None, inputs=inputs, iterations=12, checkpoint=None, progress=False)
    assert resumed.provenance["iterations"] == 12
    assert np.array_equal(resumed.values, whole.values)
    assert np.abs(load_surface_table(tmp_path / "table.npz").values - whole.values).max() <= (
        load_surface_table(tmp_path / "table.npz").provenance["scale"] / 2 + 1e-6
    )


def test_workers_give_the_same_table():
    inputs = SurfaceInputs(columns=SMALL)
    one = build_surface_table(None, inputs=inputs, iterations=8, checkpoint=None, progress=False)
    two = build_surface_table(
        None, inputs=inputs, iterations=8, workers=2, checkpoint=None, progress=False
    )
    assert np.array_equal(one.values, two.values)


def test_a_checkpoint_of_other_inputs_is_refused_unless_restarted(tmp_path):
    checkpoint = tmp_path / "check.npz"
    build_surface_table(
        None,
        inputs=SurfaceInputs(columns=SMALL),
        iterations=2,
        checkpoint=checkpoint,
        progress=False,
    )
    other = SurfaceInputs(columns=SMALL, discount=0.8)
    with pytest.raises(NesbotError, match="other inputs \\(discount\\)"):
        build_surface_table(None, inputs=other, checkpoint=checkpoint, progress=False)
    table = build_surface_table(
        None, inputs=other, iterations=2, checkpoint=checkpoint, restart=True, progress=False
    )
    assert table.provenance["iterations"] == 2


def test_cli_refuses_another_builds_checkpoint(tmp_path, capsys):
    checkpoint = tmp_path / "check.npz"
    build_surface_table(
        None,
        inputs=SurfaceInputs(columns=SMALL),
        iterations=1,
        checkpoint=checkpoint,
        progress=False,
    )
    argv = ["surface-table", "--out", str(tmp_path / "t.npz"), "--checkpoint", str(checkpoint)]
    assert main(argv) == 2
    assert "other inputs (columns)" in capsys.readouterr().err


@pytest.mark.parametrize("tolerance", ["nan", "inf", "-1", "0"])
def test_a_tolerance_not_finite_and_above_0_is_refused_before_any_work(tmp_path, capsys, tolerance):
    """--tolerance nan was accepted: no error bound is above NaN, so the build did no
    iteration and wrote its table of zeros."""
    out, checkpoint = tmp_path / "t.npz", tmp_path / "c.npz"
    argv = ["surface-table", "--out", str(out), "--checkpoint", str(checkpoint)]
    assert main([*argv, "--tolerance", tolerance, "--iterations", "1"]) == 2
    assert capsys.readouterr().err == (
        f"nesbot: error: the tolerance must be a finite number above 0, not {float(tolerance):g}\n"
    )
    assert not out.exists() and not checkpoint.exists()
    with pytest.raises(NesbotError, match="the tolerance must be"):
        build_surface_table(None, tolerance=float(tolerance), checkpoint=None, progress=False)
