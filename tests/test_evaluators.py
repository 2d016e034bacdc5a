"""The other seeds' features (hand-computed boards and a cell-by-cell reference), the
evaluator registry, and every evaluator driving the two-piece search."""

import numpy as np
import pytest

from nesbot._core.features import ALL_FEATURE_NAMES, EXTRA_FEATURE_NAMES
from nesbot._core.game import Game
from nesbot._core.planner import Planner
from nesbot._core.probes import evaluate_py
from nesbot._core.value_terms import all_features_py, evaluate_trace
from nesbot._core.whole_games import play
from nesbot.errors import NesbotError
from nesbot.evaluation.evaluators import (
    DEFAULT_EVALUATOR,
    EVALUATORS,
    Evaluator,
    get_evaluator,
    training_start_name,
)
from nesbot.evaluation.weights import MEATFIGHTER_2018

FULL = 0x3FF


def extra(rows20: list[int]) -> dict[str, float]:
    values = all_features_py(rows20)
    return dict(zip(ALL_FEATURE_NAMES, values, strict=True))


def ref_extra(rows20: list[int]) -> dict[str, float]:
    """The extra features cell by cell, from their published definitions and El-Tetris's
    features.js."""
    grid = [[bool(rows20[r] >> c & 1) for c in range(10)] for r in range(20)]

    def filled(r: int, c: int) -> bool:
        if r > 19:
            return True  # the floor
        return c < 0 or c > 9 or grid[r][c]

    top = [next((r for r in range(20) if grid[r][c]), 20) for c in range(10)]
    covered = [(r, c) for c in range(10) for r in range(top[c] + 1, 20) if not grid[r][c]]
    wells = 0
    for r in range(20):
        for c in range(10):
            if not grid[r][c] and filled(r, c - 1) and filled(r, c + 1):
                k = r
                while k < 20 and not grid[k][c]:
                    wells += 1
                    k += 1
    row_transitions = sum(
        sum(filled(r, c) != filled(r, c + 1) for c in range(-1, 10)) for r in range(20)
    )
    column_transitions = sum(
        sum(filled(r, c) != filled(r + 1, c) for r in range(20)) for c in range(10)
    )
    right = sum(1 for c in range(9) for r in range(top[c + 1], 20) if not grid[r][c])
    left = sum(1 for c in range(1, 10) for r in range(top[c - 1], 20) if not grid[r][c])
    return {
        "landing_height": 0.0,
        "covered_cells": len(covered),
        "well_sums": wells,
        "row_transitions_all_rows": row_transitions,
        "column_transitions_from_floor": column_transitions,
        "right_side_holes": right,
        "covered_cell_heights": sum(20 - r for r, _c in covered),
        "left_side_holes": left,
    }


def test_empty_board():
    f = extra([0] * 20)
    assert f["row_transitions_all_rows"] == 40  # wall -> empty -> wall on every row
    assert f["column_transitions_from_floor"] == 10  # floor -> empty in every column
    assert f["covered_cells"] == f["well_sums"] == 0
    assert f["right_side_holes"] == f["left_side_holes"] == f["covered_cell_heights"] == 0


def test_well_sums_count_the_run_below_each_well_cell():
    # A three-deep well in column 2 (El-Tetris's "11011" x 3 example): 3 + 2 + 1.
    rows = [0] * 17 + [FULL & ~(1 << 2)] * 3
    assert extra(rows)["well_sums"] == 6


@pytest.mark.parametrize("holes", [False, True])
def test_well_sums_weighed_alone_count_as_their_definition(holes):
    """Weighed alone (computed apart from its group), well_sums counts as the cell-by-cell
    definition does, on stacks with holes and without."""
    rng = np.random.default_rng(31 + holes)
    weights = [0.0] * len(ALL_FEATURE_NAMES) + [0.0]  # no ceiling penalty
    weights[ALL_FEATURE_NAMES.index("well_sums")] = 1.0
    for _ in range(300):
        heights = rng.integers(0, 21, size=10) * (rng.random(10) < 0.8)
        rows = [sum(1 << c for c in range(10) if heights[c] >= 20 - r) for r in range(20)]
        if holes:
            r = int(rng.integers(0, 20))
            rows[r] &= ~(1 << int(rng.integers(0, 10)))
        assert evaluate_py(rows, 0, 0, weights) == ref_extra(rows)["well_sums"], rows


def test_covered_cells_and_their_heights():
    # Column 0 filled at row 10 only: rows 11..19 under it are covered, heights 9..1.
    rows = [0] * 20
    rows[10] = 1
    f = extra(rows)
    assert f["covered_cells"] == 9
    assert f["covered_cell_heights"] == sum(range(1, 10))


def test_side_holes_beside_a_tower():
    # Column 5 three high: rules 1 and 3 see the three empty cells on either side.
    rows = [0] * 17 + [1 << 5] * 3
    f = extra(rows)
    assert f["right_side_holes"] == 3  # column 4, at or below column 5's top
    assert f["left_side_holes"] == 3  # column 6
    assert f["covered_cells"] == 0


@pytest.mark.parametrize("seed", range(40))
def test_extra_features_match_the_reference_on_random_boards(seed):
    rng = np.random.default_rng(seed)
    height = int(rng.integers(0, 21))
    rows = [0] * (20 - height) + [int(m) for m in rng.integers(0, FULL + 1, height)]
    f = extra(rows)
    expected = ref_extra(rows)
    assert {k: f[k] for k in EXTRA_FEATURE_NAMES} == expected


def test_registry_has_the_seeds_evaluators():
    assert {
        "meatfighter-2018",
        "meatfighter-2014",
        "el-tetris",
        "yiyuan-lee",
        "hidamari",
        "nguyen-morua",
    } <= set(EVALUATORS)
    assert DEFAULT_EVALUATOR in EVALUATORS


def test_higher_is_better_evaluators_are_negated_for_the_search():
    el = EVALUATORS["el-tetris"]
    vector = dict(zip(ALL_FEATURE_NAMES, el.as_vector(), strict=True))
    assert vector["covered_cells"] == pytest.approx(7.899265427351652)
    assert vector["total_lines_cleared"] == pytest.approx(-3.4181268101392694)
    assert sum(1 for v in vector.values() if v) == 6


def test_meatfighter_2018_is_the_weights_file():
    mf = EVALUATORS["meatfighter-2018"]
    assert mf.as_vector() == MEATFIGHTER_2018.as_vector()
    assert mf.calming and mf.ceiling == MEATFIGHTER_2018.ceiling
    rows = [0] * 15 + [FULL & ~1] * 5
    assert evaluate_py(rows, 1, 3, mf) == evaluate_py(rows, 1, 3, MEATFIGHTER_2018)


def test_evaluation_is_the_weighted_sum_of_the_features_an_evaluator_uses():
    rows = [0] * 14 + [FULL & ~(1 << 3), 0x1FF, 0x3EF, 0x3FE, 0x37F, FULL & ~(1 << 3)]
    for evaluator in EVALUATORS.values():
        trace = evaluate_trace(rows, 2, 5, evaluator, 6.5)
        terms = [t[3] for t in trace[:-1]]
        assert sum(terms) == pytest.approx(trace[-1][3]), evaluator.name
        assert trace[-1][3] == pytest.approx(evaluate_py(rows, 2, 5, evaluator, 6.5))
        if evaluator.name != "meatfighter-2018" and not evaluator.name.startswith("nesbot"):
            assert {t[0] for t in trace[:-2]} == set(evaluator.weights), evaluator.name


def test_get_evaluator_errors():
    with pytest.raises(NesbotError, match="unknown evaluator"):
        get_evaluator("nope")
    with pytest.raises(NesbotError, match="not both"):
        get_evaluator("el-tetris", "w.json")
    with pytest.raises(ValueError, match="unknown features"):
        Evaluator("x", {"holes": 1.0}, False, False, 0.0, "test")


@pytest.mark.parametrize("name", sorted(EVALUATORS))
def test_every_evaluator_drives_the_search_through_a_game(name):
    planner = Planner(EVALUATORS[name])
    game = Game.start(19, 0x1234, 3, 777)
    result = play(planner, game, max_frames=3000)
    assert result["pieces"] > 20
    again = play(Planner(EVALUATORS[name]), Game.start(19, 0x1234, 3, 777), max_frames=3000)
    assert again == result  # deterministic


def test_the_shipped_default_is_the_right_well_evaluation_with_its_provenance():
    assert DEFAULT_EVALUATOR == "nesbot-rightwell-tall"
    for name in ("nesbot-rightwell", DEFAULT_EVALUATOR):
        rightwell = EVALUATORS[name]
        assert rightwell.weights["stack_holes"] > 0 and rightwell.weights["surface_value"] < 0
    assert "StackRabbit" in EVALUATORS["nesbot-rightwell"].provenance["source"]


def test_the_trained_weights_carry_their_provenance():
    trained = EVALUATORS["nesbot-trained"]
    assert trained.calming and set(trained.weights) == set(ALL_FEATURE_NAMES)
    provenance = trained.provenance
    for key in ("command", "seed", "games", "iterations", "evaluation"):
        assert key in provenance, key
    assert provenance["command"].startswith("nesbot train ")
    assert provenance["evaluation"]["maxout_rate"] > 0.47


def test_the_reaction_plays_stackrabbits_safe_setting_of_the_same_evaluation():
    safe = EVALUATORS["nesbot-rightwell-safe"]
    rightwell = EVALUATORS["nesbot-rightwell"]
    changed = {k for k in rightwell.weights if safe.weights.get(k) != rightwell.weights[k]}
    assert set(safe.weights) == set(rightwell.weights)
    assert changed == {"stack_height_over", "burned_lines"}
    # the height term doubled, a burned line's net price (burned minus cleared) halved
    assert safe.weights["stack_height_over"] == 2 * rightwell.weights["stack_height_over"]
    lines = rightwell.weights["total_lines_cleared"]
    assert safe.weights["burned_lines"] + lines == (rightwell.weights["burned_lines"] + lines) / 2
    assert "PLAY_SAFE" in safe.provenance["source"]


def test_the_reaction_prices_towers_and_keeps_the_stack_lower_from_level_29():
    """The default with a reaction is the safe setting with a step past 3 rows between
    columns six times as dear throughout, and a kill_screen set: from level 29 on,
    high_stack counts from 6 rows and the height term is doubled again."""
    killscreen = EVALUATORS["nesbot-rightwell-killscreen"]
    safe = EVALUATORS["nesbot-rightwell-safe"]
    assert killscreen.weights == safe.weights | {"extreme_gap": 6 * safe.weights["extreme_gap"]}
    assert killscreen.safe_stack_height == safe.safe_stack_height
    assert safe.kill_screen == {}
    assert killscreen.kill_screen == {
        "high_stack": 10.0,
        "stack_height_over": 2 * safe.weights["stack_height_over"],
        "safe_stack_height": 6.0,
    }
    assert "reach 39" in killscreen.provenance["evaluation"]["format_30hz"]


def test_the_reaction_default_prices_a_well_deeper_than_a_tetris():
    """nesbot-rightwell-wellsums is nesbot-rightwell-killscreen with El-Tetris's well
    sums (a well d deep costs d(d+1)/2 units), computed alone when it is the only one of
    its group weighed: a well 4 deep costs 10 units, and 8 deep 36."""
    wellsums = EVALUATORS["nesbot-rightwell-wellsums"]
    killscreen = EVALUATORS["nesbot-rightwell-killscreen"]
    assert wellsums.weights == killscreen.weights | {"well_sums": 0.3}
    assert wellsums.kill_screen == killscreen.kill_screen
    assert wellsums.safe_stack_height == killscreen.safe_stack_height
    assert "reach 39" in wellsums.provenance["evaluation"]["format_30hz"]
    for depth in (4, 8):
        rows = [0] * (20 - depth) + [FULL & ~(1 << 9)] * depth
        assert extra(rows)["well_sums"] == depth * (depth + 1) // 2
        assert evaluate_py(rows, 0, 0, wellsums) - evaluate_py(rows, 0, 0, killscreen) == (
            pytest.approx(0.3 * depth * (depth + 1) / 2)
        )


def _differing(a: dict[str, float], b: dict[str, float]) -> set[str]:
    """The features whose weights a and b do not share."""
    return {n for n in ALL_FEATURE_NAMES if a.get(n) != b.get(n)}


def _kill_screen(evaluator: Evaluator) -> dict[str, float]:
    """Every feature's weight from level 29 on, by name."""
    return dict(zip(ALL_FEATURE_NAMES, evaluator.kill_screen_vector(), strict=True))


def test_the_reaction_default_refits_only_the_weights_before_level_29():
    """nesbot-rightwell-rollout is nesbot-rightwell-wellsums with nine weights fitted to
    playouts (scripts/strength/rollout_weights.py), the risk's weights kept; from level 29
    on, and in the slow-tap kill-screen sets, every weight is what it was."""
    rollout = EVALUATORS["nesbot-rightwell-rollout"]
    wellsums = EVALUATORS["nesbot-rightwell-wellsums"]
    refit = _differing(rollout.weights, wellsums.weights)
    assert len(refit) == 9
    risk = {"stack_height_over", "extreme_gap", "stack_holes", "well_sums", "well_covered"}
    assert not refit & risk
    assert rollout.safe_stack_height == wellsums.safe_stack_height
    assert rollout.kill_screen_vector() == wellsums.kill_screen_vector()
    assert rollout.kill_screen_safe_stack_height == wellsums.kill_screen_safe_stack_height
    for hz in (15, 12):
        slow, before = rollout.at_tap_hz(hz), wellsums.at_tap_hz(hz)
        assert slow.kill_screen_vector() == before.kill_screen_vector()
    assert "reach 39" in rollout.provenance["evaluation"]["format_30hz"]


def test_the_reaction_default_plays_its_fitted_weights_through_the_kill_screen():
    """nesbot-rightwell-fitted is nesbot-rightwell-rollout whose kill_screen set (from level
    29 on) plays the same fitted weights with the kill screen's own risk weights on top;
    before level 29, and in the slow-tap sets, it is the same evaluation."""
    fitted = EVALUATORS["nesbot-rightwell-fitted"]
    rollout = EVALUATORS["nesbot-rightwell-rollout"]
    assert fitted.weights == rollout.weights
    assert fitted.safe_stack_height == rollout.safe_stack_height
    risk = {"high_stack": 10.0, "stack_height_over": 36.0}
    kill = _kill_screen(fitted)
    assert kill == {n: risk.get(n, fitted.weights.get(n, 0.0)) for n in ALL_FEATURE_NAMES}
    assert fitted.kill_screen_safe_stack_height == rollout.kill_screen_safe_stack_height == 6
    before = _kill_screen(rollout)
    refit = _differing(fitted.weights, EVALUATORS["nesbot-rightwell-wellsums"].weights)
    assert _differing(kill, before) == refit
    for hz in (15, 12):
        assert (
            fitted.at_tap_hz(hz).kill_screen_vector() == rollout.at_tap_hz(hz).kill_screen_vector()
        )
    assert "reach 39" in fitted.provenance["evaluation"]["format_30hz"]


def test_the_reaction_default_prices_the_kill_screens_height_half_as_much():
    """nesbot-rightwell-bold is nesbot-rightwell-fitted whose kill_screen set prices the
    stack's height half as much (high_stack 5, the height term as before level 29) at 30
    Hz; before level 29, from where high_stack counts, and at 20 Hz and slower, it is the
    same."""
    bold = EVALUATORS["nesbot-rightwell-bold"]
    fitted = EVALUATORS["nesbot-rightwell-fitted"]
    assert bold.weights == fitted.weights
    assert bold.safe_stack_height == fitted.safe_stack_height
    assert bold.kill_screen_safe_stack_height == fitted.kill_screen_safe_stack_height == 6
    kill, before = _kill_screen(bold), _kill_screen(fitted)
    assert _differing(kill, before) == {"high_stack", "stack_height_over"}
    assert kill["high_stack"] == before["high_stack"] / 2
    assert kill["stack_height_over"] == bold.weights["stack_height_over"] == 18
    for hz in (20, 15, 12):  # at 20 Hz the lower price lost games: the set before
        assert bold.at_tap_hz(hz).kill_screen_vector() == fitted.at_tap_hz(hz).kill_screen_vector()
    assert "reach 39" in bold.provenance["evaluation"]["format_30hz"]


def test_the_default_prices_the_stacks_height_half_as_much_at_levels_19_to_28():
    """nesbot-rightwell-tall is nesbot-rightwell-bold with a fast_levels set at 30 Hz: from
    level 19 until the kill screen's set, the stack's height past the scare height costs
    half; before level 19, from level 29, and at 20 Hz and slower, it is the same."""
    tall = EVALUATORS["nesbot-rightwell-tall"]
    bold = EVALUATORS["nesbot-rightwell-bold"]
    assert tall.weights == bold.weights
    assert tall.kill_screen == bold.kill_screen
    assert tall.kill_screen_by_tap_hz == bold.kill_screen_by_tap_hz
    assert tall.fast_levels == {"stack_height_over": bold.weights["stack_height_over"] / 2}
    assert tall.fast_levels_from_level == 19
    assert tall.fast_levels_safe_stack_height == bold.safe_stack_height
    assert bold.fast_levels == {}
    for hz in (20, 15, 12):  # at 20 Hz the taller stack lost games: none at slower taps
        assert tall.at_tap_hz(hz).fast_levels_vector() is None
        assert tall.at_tap_hz(hz).kill_screen_vector() == bold.at_tap_hz(hz).kill_screen_vector()
    assert tall.at_tap_hz(30).fast_levels == tall.fast_levels
    for key in ("format_30hz", "level_19"):
        assert key in tall.provenance["evaluation"]


def test_train_starts_from_the_weights_trained_for_the_format():
    assert get_evaluator().name == get_evaluator(reaction=18).name == "nesbot-rightwell-tall"
    assert get_evaluator("meatfighter-2018", reaction=18).name == "meatfighter-2018"
    assert training_start_name() == "nesbot-trained"
    assert training_start_name(18) == "nesbot-reaction18"
    provenance = EVALUATORS["nesbot-reaction18"].provenance
    assert "--reaction 18" in provenance["command"] and "--level 18" in provenance["command"]
