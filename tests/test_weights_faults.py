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


# JSON that Python's parser cannot hold, besides text that is not JSON: nesting past the
# recursion limit (a RecursionError) and an integer of over 4,300 digits (a plain
# ValueError, int's own limit). Each once ended in a traceback.
UNPARSABLE = {
    "nested too deeply": "[" * 100_000,
    "Exceeds the limit (4300 digits)": '{"ceiling": 1' + "0" * 5000 + "}",
    "Expecting value at line 1": "",
}


@pytest.mark.parametrize("why", UNPARSABLE)
@pytest.mark.parametrize(
    ("read", "what"), [(load_weights, "weights file"), (load_value_model, "value model")]
)
def test_json_python_cannot_hold_is_one_error_naming_the_file(tmp_path, read, what, why):
    path = tmp_path / "data.json"
    path.write_text(UNPARSABLE[why])
    with pytest.raises(NesbotError) as error:
        read(path)
    assert str(error.value).startswith(f"{what} {path} is not valid JSON ({why}")
    assert "\n" not in str(error.value)


def test_the_api_refuses_deeply_nested_weights_in_one_error(tmp_path):
    import nesbot

    path = tmp_path / "deep.json"
    path.write_text(UNPARSABLE["nested too deeply"])
    with pytest.raises(NesbotError, match=f"^weights file {path} is not valid JSON"):
        nesbot.rate(tmp_path / "game.fm2", weights=str(path))  # the weights are read first


@settings(max_examples=200, deadline=None)
@given(
    text=st.text(max_size=20) | st.binary(max_size=20),
    depth=st.integers(0, 200_000),
    opener=st.sampled_from(["[", '{"a": ', "-"]),
)
def test_any_text_parses_to_a_value_or_one_error(text, depth, opener):
    """Whatever precedes it (nesting of any depth), parse_json gives the JSON's value or a
    NesbotError naming the text's place, never another exception."""
    from nesbot.input_file import parse_json

    whole = opener * depth + text if isinstance(text, str) else opener.encode() * depth + text
    try:
        parse_json(whole, "the text")
    except NesbotError as error:
        assert str(error).startswith("the text is not valid JSON (") and "\n" not in str(error)
