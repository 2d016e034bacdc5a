"""The table of evaluation features (cython_core/features.py) is the one place they are
named: the compiled slots, the evaluator's names and the weights files' keys all follow it."""

import json
from pathlib import Path

import pytest

import nesbot._core
from nesbot._core.features import (
    ALL_FEATURE_NAMES,
    FEATURES,
    GROUPS,
    PLAIN_WORDS,
    names_in,
    pxi_text,
)
from nesbot._core.value_terms import evaluate_trace
from nesbot.evaluation.weights import MEATFIGHTER_2018, Weights, load_weights, save_weights


def test_the_compiled_slots_were_written_from_this_table():
    # A build after the table changed rewrites features.pxi; a stale one shows here.
    pxi = Path(nesbot._core.__file__).parent / "features.pxi"
    assert pxi.read_text(encoding="utf-8") == pxi_text()


def test_the_table_names_each_feature_once_and_groups_them_in_order():
    assert len(set(ALL_FEATURE_NAMES)) == len(FEATURES) == 44
    assert [g for g, _ in GROUPS] == ["meatfighter", "seeds", "nes", "reach", "well"]
    assert sum(len(names_in(g)) for g, _ in GROUPS) == len(FEATURES)
    assert all(f.about for f in FEATURES)


def test_every_term_of_the_evaluator_has_a_players_words():
    """nesbot rate says why a placement lost points in these words: short, no evaluator
    names, one for every term a trace can hold."""
    trace = evaluate_trace([0] * 18 + [0x001, 0x1FF], 1, 3, [1.0] * len(ALL_FEATURE_NAMES))
    assert {name for name, *_ in trace} - {"total"} <= set(PLAIN_WORDS)
    for feature in FEATURES:
        assert PLAIN_WORDS[feature.name] == (feature.says, feature.says_less)
    for words, _says_less in PLAIN_WORDS.values():
        assert 0 < len(words) <= 40 and "_" not in words and words == words.strip()


def test_the_evaluator_computes_each_named_feature_in_its_slot():
    # Every feature weighed 1: the trace gives each name its value. Columns 0-8 one row
    # high, column 0 two; column 9 (the well) empty.
    trace = evaluate_trace([0] * 18 + [0x001, 0x1FF], 1, 3, [1.0] * len(ALL_FEATURE_NAMES))
    values = {name: value for name, value, _, _ in trace if name in ALL_FEATURE_NAMES}
    assert list(values) == list(ALL_FEATURE_NAMES)
    assert values["total_lines_cleared"] == 1 and values["total_lock_height"] == 3
    assert values["total_solid_cells"] == 10 and values["total_column_heights"] == 10
    assert values["pile_height"] == 2 and values["column_height_spread"] == 2
    assert values["covered_cells"] == 0 and values["right_column_height"] == 0
    assert values["stack_holes"] == 0 and values["unreachable_columns"] == 0


def test_a_weights_file_has_a_key_for_every_feature_and_nothing_else(tmp_path):
    path = tmp_path / "w.json"
    weights = Weights.named({name: i + 1.0 for i, name in enumerate(ALL_FEATURE_NAMES)})
    save_weights(weights, path)
    keys = list(json.loads(path.read_text()))
    assert keys == [*ALL_FEATURE_NAMES, "ceiling", "safe_stack_height", "provenance"]
    assert load_weights(path) == weights
    assert [weights[name] for name in ALL_FEATURE_NAMES] == weights.as_vector()


def test_weights_name_only_the_tables_features():
    with pytest.raises(ValueError, match="unknown features: holes"):
        Weights.named({"holes": 1.0})
    with pytest.raises(ValueError, match="unknown features: holes"):
        MEATFIGHTER_2018.changed(holes=1.0)
    changed = MEATFIGHTER_2018.changed(stack_holes=50.0, safe_stack_height=6.0)
    assert changed["stack_holes"] == 50.0 and changed.safe_stack_height == 6.0
    assert changed.provenance == MEATFIGHTER_2018.provenance
    assert MEATFIGHTER_2018["stack_holes"] == 0.0
