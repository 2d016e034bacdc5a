"""Weights and value-model files, edited anyhow: refused in one NesbotError, or read into
an evaluator whose evaluation of a board is a finite number (±1e308 once made it inf or
NaN, and a placement was still chosen)."""

import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nesbot._core.features import FEATURE_NAMES
from nesbot._core.game import Game
from nesbot._core.learned import SIZE
from nesbot.bot.explain import read_board, spawn_orientation
from nesbot.bot.planning import PlannerSettings, build_planner
from nesbot.bot.value_model import ValueModelFile, load_value_model, save_value_model
from nesbot.errors import NesbotError
from nesbot.evaluation.evaluators import Evaluator
from nesbot.evaluation.weights import load_weights

BOARD = Path(__file__).parent / "data" / "example_board.txt"
NUMBERS = (
    st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from([1e308, -1e308, 1e6, -1e6, 1e6 + 1, 5e-324])
    | st.integers(-(10**400), 10**400)
    | st.booleans()
    | st.none()
    | st.text(max_size=4)
)
KEYS = st.sampled_from([*FEATURE_NAMES, "ceiling", "safe_stack_height"])


def _weights() -> dict:
    data: dict = {name: 1.0 for name in FEATURE_NAMES}
    return data | {"ceiling": 10.0, "provenance": {"source": "test"}}


def _planned_value(evaluator: Evaluator) -> float:
    rows = read_board(str(BOARD))
    game = Game.spawned(rows, spawn_orientation("T"), spawn_orientation("I"), 19)
    chosen = build_planner(evaluator, PlannerSettings(lookahead=0)).plan(game)
    assert chosen is not None
    return chosen[-1]


@settings(max_examples=150, deadline=None)
@given(changes=st.dictionaries(KEYS, NUMBERS, min_size=1, max_size=3), level_set=st.booleans())
def test_a_weights_file_is_refused_or_evaluates_to_finite_numbers(
    tmp_path_factory, changes, level_set
):
    data = _weights() | ({"kill_screen": changes} if level_set else changes)
    path = tmp_path_factory.mktemp("w") / "w.json"
    try:
        path.write_text(json.dumps(data))
    except ValueError:  # an integer too long for str(): json.dumps refuses to write it
        return
    try:
        weights = load_weights(path)
    except NesbotError as error:
        assert str(error).startswith(f"weights file {path}") and "\n" not in str(error)
        return
    assert math.isfinite(_planned_value(Evaluator.from_weights(weights, "w.json")))


@settings(max_examples=100, deadline=None)
@given(value=NUMBERS, where=st.integers(0, 10**6), scale=st.booleans())
def test_a_value_model_is_refused_or_holds_finite_numbers(tmp_path_factory, value, where, scale):
    path = tmp_path_factory.mktemp("m") / "model.json"
    save_value_model(ValueModelFile(tuple([1.0] * SIZE), 15, 29, 3.0, {}), path)
    data = json.loads(path.read_text())
    if scale:
        data["scale"] = value
    else:
        data["table"][where % SIZE] = value
    try:
        path.write_text(json.dumps(data))
    except ValueError:
        return
    try:
        model = load_value_model(path)
    except NesbotError as error:
        assert str(error).startswith(f"value model {path}") and "\n" not in str(error)
        return
    assert all(math.isfinite(x) and abs(x) <= 1e6 for x in (*model.table, model.scale))


def test_an_endless_data_file_is_refused_without_being_read_whole(tmp_path):
    from nesbot.evaluation.weights import MAX_JSON_BYTES

    endless = tmp_path / "w.json"
    endless.symlink_to("/dev/zero")
    for read in (load_weights, load_value_model):
        with pytest.raises(NesbotError, match=f"larger than {MAX_JSON_BYTES:,} bytes"):
            read(endless)
