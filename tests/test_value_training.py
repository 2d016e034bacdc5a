"""The learned kill-screen value: its file, the planner with it, and its training loop
(seeded: the same seed makes the same model; resumable: a stopped and resumed run is one)."""

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from public_data import ROOT

from nesbot._core.game import Game
from nesbot._core.learned import ACTIVE, LAYOUT, SIZE, ValueModel, game_features
from nesbot._core.whole_games import play
from nesbot.bot.planning import PlannerSettings, build_planner
from nesbot.bot.value_model import (
    ValueModelFile,
    load_value_model,
    save_value_model,
    value_model_for,
    with_value_model,
    without_value_model,
)
from nesbot.errors import NesbotError
from nesbot.evaluation.evaluators import get_evaluator
from nesbot.lab.game_runs import GameSpec, run_identity
from nesbot.lab.value_training import (
    ValueTrainingConfig,
    iterate,
    lambda_returns,
    load_checkpoint,
    new_state,
    save_checkpoint,
)

SETTINGS = PlannerSettings(reaction=18, tap_hz=15)
LEVEL_29 = 29


def start_states(count: int) -> list[dict]:
    """Level-29 games at their first piece (empty boards: short episodes for tests)."""
    return [Game.start(LEVEL_29, 0x8988 + 977 * k).state() for k in range(count)]


def random_model(seed: int = 3, scale: float = 3.0) -> ValueModelFile:
    table = np.random.default_rng(seed).normal(0.0, 5.0, SIZE)
    return ValueModelFile(tuple(float(x) for x in table), 15, LEVEL_29, scale, {"test": True})


def test_features_read_one_entry_of_each_table():
    game = Game.start(LEVEL_29, 0x8988)
    features = game_features(game)
    assert features.shape == (ACTIVE,)
    assert len(set(features.tolist())) == ACTIVE
    assert features.min() >= 0 and features.max() < SIZE
    model = ValueModel(np.ones(SIZE))
    assert model.game_value(game) == ACTIVE


def test_model_file_round_trip(tmp_path: Path):
    model = random_model()
    path = tmp_path / "model.json"
    save_value_model(model, path)
    assert load_value_model(path) == model
    assert load_value_model(path).provenance == {"test": True}
    assert "at_leaves" not in json.loads(path.read_text())  # as written before it was one
    leaves = replace(model, at_leaves=True)
    save_value_model(leaves, path)
    assert load_value_model(path) == leaves and load_value_model(path).model().at_leaves
    assert "goal_level" not in json.loads(path.read_text())
    before_29 = replace(model, goal_level=29)
    save_value_model(before_29, path)
    assert load_value_model(path).model().goal_level == 29


def test_a_model_reads_the_lines_left_to_its_goal_level():
    """Level 27 with 3 of its lines: 117 lines to level 39 (the table's last bucket of
    fives), 17 to level 29 (bucket 3); past its goal level a model reads 0 lines left."""
    state = Game.start(LEVEL_29, 0x8988).state()
    state["level"], state["lines"] = 27, [0x53, 0x02]  # 253 lines (BCD)
    game = Game.from_state(state)
    offset = next(offset for name, offset, _ in LAYOUT if name == "lines_left")
    left = [int(game_features(game, goal)[-2]) - offset for goal in (39, 29, 20)]
    assert left == [20, 3, 0]
    table = np.zeros(SIZE)
    table[offset + 3] = 7.0
    assert ValueModel(table, goal_level=29).game_value(game) == 7.0
    assert ValueModel(table).game_value(game) == 0.0


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"format": "weights"}, "is not a nesbot-value-model file"),
        ({"version": 2}, "version 2 is not 1"),
        ({"table": [0.0] * 7}, "table must be a list of"),
        ({"scale": -1.0}, "scale -1.0 is negative"),
        ({"scale": "big"}, "scale must be a finite number"),
        ({"scale": 1e308}, "scale must be a finite number within"),
        ({"table": [1e308] * SIZE}, r"table\[0\] must be a finite number within"),
        ({"tap_hz": 17}, "tap_hz 17 is not one of"),
        ({"layout": []}, "its layout is not this nesbot's tables"),
        ({"extra": 1}, "has unknown keys: extra"),
        ({"at_leaves": 1}, "at_leaves 1 is not true or false"),
        ({"goal_level": 29.5}, "goal_level 29.5 is not a level 0-255"),
    ],
)
def test_a_bad_model_file_is_refused_in_one_line(tmp_path: Path, change: dict, message: str):
    path = tmp_path / "model.json"
    save_value_model(random_model(), path)
    data = json.loads(path.read_text()) | change
    path.write_text(json.dumps(data))
    with pytest.raises(NesbotError, match=message) as error:
        load_value_model(path)
    assert "\n" not in str(error.value)


def test_a_model_file_that_is_no_json_is_refused(tmp_path: Path):
    path = tmp_path / "model.json"
    path.write_text("{")
    with pytest.raises(NesbotError, match="is not valid JSON"):
        load_value_model(path)
    with pytest.raises(NesbotError, match="does not exist"):
        load_value_model(tmp_path / "none.json")


def test_a_non_finite_table_entry_is_refused(tmp_path: Path):
    path = tmp_path / "model.json"
    save_value_model(random_model(), path)
    text = path.read_text().replace('"table": [\n', '"table": [\n  NaN,\n', 1)
    data = json.loads(text)
    data["table"] = data["table"][:SIZE]
    path.write_text(json.dumps(data))
    with pytest.raises(NesbotError, match=r"table\[0\] must be a finite number"):
        load_value_model(path)


def play_from_29(evaluator, pieces: int = 30) -> tuple[dict, dict]:
    game = Game.start(LEVEL_29, 0x1234)
    planner = build_planner(evaluator, SETTINGS)
    result = play(planner, game, 10_000_000, 39, SETTINGS.reaction, 77, pieces)
    return result, game.state()


def test_a_zero_model_plays_as_the_evaluation_alone():
    base = without_value_model(get_evaluator(reaction=18))
    zero = ValueModelFile((0.0,) * SIZE, 15)
    assert play_from_29(base) == play_from_29(with_value_model(base, zero, "zero"))


def test_a_zero_model_at_the_leaves_plays_as_the_evaluation_alone():
    """There the bound pruning is off (no bound holds for a learned value): the same plans."""
    base = without_value_model(get_evaluator(reaction=18))
    zero = ValueModelFile((0.0,) * SIZE, 15, at_leaves=True)
    assert play_from_29(base) == play_from_29(with_value_model(base, zero, "zero"))


def test_a_model_at_the_leaves_plays_other_games_than_at_the_choices():
    base = without_value_model(get_evaluator(reaction=18))
    at_choices = with_value_model(base, random_model(scale=30.0), "random")
    at_leaves = with_value_model(base, random_model(scale=30.0), "random", at_leaves=True)
    assert at_leaves.name == at_choices.name.replace("@30", "@leaves30")
    leaves_game, leaves_state = play_from_29(at_leaves)
    assert leaves_state["level"] >= LEVEL_29 and leaves_game["pieces"] > 0
    assert leaves_game != play_from_29(at_choices)[0]
    assert leaves_game != play_from_29(base)[0]


def test_the_pruning_bound_holds_with_a_model_at_the_leaves():
    """The leaves' bound takes the learned value from the column tops (exactly the board's):
    the lookahead skips placements and still plans as if it judged them all."""
    base = without_value_model(get_evaluator(reaction=18))
    learned = with_value_model(base, random_model(scale=30.0), "random", at_leaves=True)

    def game(pruning: bool) -> tuple[dict, dict]:
        game = Game.start(LEVEL_29, 0x1234)
        planner = build_planner(learned, SETTINGS)
        planner.bound_pruning = pruning
        result = play(planner, game, 10_000_000, 39, 18, 77, 60)
        return result, game.state()

    assert game(True) == game(False)


def test_a_model_at_the_leaves_leaves_the_choices_before_its_level_alone():
    """Below from_level (as every option of a choice is judged: four lines short of a
    level-up, the next level's) the leaves are judged without it: the same game."""
    base = without_value_model(get_evaluator(reaction=18))
    learned = with_value_model(base, random_model(scale=30.0), "random", at_leaves=True)

    def game(evaluator) -> tuple[dict, dict]:
        game = Game.start(28, 0x1234)
        result = play(build_planner(evaluator, SETTINGS), game, 10_000_000, 39, 18, 77, 40)
        return result, game.state()

    assert game(learned) == game(base)


def test_the_planner_with_a_model_plays_legal_games():
    base = without_value_model(get_evaluator(reaction=18))
    learned = with_value_model(base, random_model(scale=30.0), "random")
    result, state = play_from_29(learned)
    assert result["pieces"] > 0 and state["level"] >= LEVEL_29
    # the game went on by the ROM's rules: another game than the defaults', still legal
    assert result != play_from_29(base)[0]
    assert learned.name.startswith(base.name + "+random@")
    assert build_planner(learned, SETTINGS).value_model is not None
    assert build_planner(base, SETTINGS).value_model is None


def test_the_default_evaluator_plays_its_shipped_models_at_15_and_20_hz_alone():
    default = get_evaluator(reaction=18)
    shipped = value_model_for(default, 15)
    assert shipped is not None and shipped.tap_hz == 15 and shipped.from_level == LEVEL_29
    # docs/strength-log.md, "A value that counts reaching level 39"
    assert shipped.at_leaves and shipped.scale == 8.0
    assert shipped.provenance["config"]["reach_bonus"] == 100.0
    assert "scripts/learned/train_value.py --tap-hz 15" in shipped.provenance["command"]
    assert build_planner(default, SETTINGS).value_model is not None
    at_20 = value_model_for(default, 20)
    assert at_20 is not None and at_20.tap_hz == 20 and at_20.at_leaves and at_20.scale == 3.0
    # docs/strength-log.md, "Toward 85% at 20 Hz": 15% of the 15 Hz table's judgement
    assert at_20.provenance["source"] == "scripts/learned/blend_values.py"
    assert at_20.provenance["weight"] == 0.15
    assert build_planner(default, replace(SETTINGS, tap_hz=20)).value_model is not None
    for tap_hz in (30, 12):
        assert value_model_for(default, tap_hz) is None
        assert build_planner(default, replace(SETTINGS, tap_hz=tap_hz)).value_model is None
    given = with_value_model(default, random_model(), "random")
    assert value_model_for(given, 15) == random_model()  # a model given wins over its own
    assert value_model_for(without_value_model(given), 15) is None
    assert play_from_29(default) == play_from_29(with_value_model(default, shipped, "same"))


BLEND = ROOT / "scripts" / "learned" / "blend_values.py"


def test_the_shipped_20_hz_model_is_the_blend_its_provenance_names(tmp_path: Path):
    shipped = value_model_for(get_evaluator(reaction=18), 20)
    assert shipped is not None
    made = tmp_path / "blend.json"
    argv = [shipped.provenance["first"], shipped.provenance["second"]]
    argv += ["--weight", str(shipped.provenance["weight"]), "--out", str(made)]
    run = subprocess.run([sys.executable, str(BLEND), *argv], cwd=ROOT, capture_output=True)
    assert run.returncode == 0, run.stderr
    assert load_value_model(made) == shipped  # the table, tap rate, level, scale and use
    refused = subprocess.run(
        [sys.executable, str(BLEND), *argv[:2], "--weight", "2", "--out", str(made)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert refused.returncode == 2
    assert refused.stderr == "blend_values.py: error: --weight 2.0 is not between 0 and 1\n"


def test_a_run_with_a_model_is_another_run_than_without():
    def identity(evaluator):
        return run_identity(GameSpec(evaluator, SETTINGS, 29, 1, 0, 39))

    base = without_value_model(get_evaluator(reaction=18))
    plain = identity(base)
    assert "value_model" not in plain["evaluator"]  # as games saved before models were
    learned = identity(with_value_model(base, random_model(), "random"))
    assert learned["evaluator"]["value_model"] == random_model().identity()
    assert "at_leaves" not in learned["evaluator"]["value_model"]  # as saved before
    leaves = identity(with_value_model(base, random_model(), "random", at_leaves=True))
    assert leaves["evaluator"]["value_model"]["at_leaves"] is True
    assert identity(get_evaluator(reaction=18)) != plain


def test_a_model_plays_at_its_own_tap_rate_only():
    base = get_evaluator(reaction=18)
    learned = with_value_model(base, random_model(), "random")
    with pytest.raises(NesbotError, match="trained at 15 Hz, not 30 Hz"):
        build_planner(learned, PlannerSettings(reaction=18))


def test_lambda_returns():
    rewards = np.array([0.0, 1.0, 0.0, 4.0])
    values = np.array([9.0, 9.0, 9.0, 9.0])
    # lambda 1: the points still to come, the last piece's after the last afterstate
    assert lambda_returns(values, rewards, 2.0, False, 1.0).tolist() == [7.0, 6.0, 6.0, 2.0]
    # lambda 0: one step, then the value before
    assert lambda_returns(values, rewards, 2.0, False, 0.0).tolist() == [10.0, 9.0, 13.0, 2.0]
    # cut short: the tail is the last afterstate's own value
    assert lambda_returns(values, rewards, 2.0, True, 1.0)[-1] == 9.0


CONFIG = ValueTrainingConfig(games=2, max_pieces=8, states="test", evaluator="test")


def run(iterations: int, config: ValueTrainingConfig = CONFIG):
    state = new_state(config)
    for _ in range(iterations):
        iterate(state, get_evaluator(reaction=18), start_states(3), 1)
    return state


def test_the_same_seed_makes_the_same_model_and_another_another():
    first, again = run(2), run(2)
    assert np.array_equal(first.table, again.table)
    assert first.log == again.log
    assert first.table.any()
    other = run(1, replace(CONFIG, seed=2))
    assert not np.array_equal(run(1).table, other.table)


def test_a_resumed_run_is_one_run(tmp_path: Path):
    """Two iterations in one run, and one, a checkpoint, and one more (the first iteration
    fits the points to come, the second TD returns over both iterations' afterstates)."""
    whole = run(2)
    path = tmp_path / "checkpoint.npz"
    save_checkpoint(run(1), path)
    resumed = load_checkpoint(path, CONFIG)
    iterate(resumed, get_evaluator(reaction=18), start_states(3), 1)
    assert np.array_equal(whole.table, resumed.table)
    assert whole.log == resumed.log
    save_checkpoint(resumed, path)
    again = load_checkpoint(path, CONFIG)
    assert np.array_equal(again.table, whole.table) and again.iteration == 2
    assert [len(f) for f in again.replay_features] == [len(f) for f in whole.replay_features]
    with pytest.raises(NesbotError, match="differs in seed"):
        load_checkpoint(path, replace(CONFIG, seed=5))


def test_a_run_from_a_model_starts_from_its_table_and_bootstraps_at_once():
    start = np.array(random_model().table)
    config = replace(CONFIG, init="start.json", at_leaves=True)
    state = new_state(config, start)
    assert np.array_equal(state.table, start)
    iterate(state, get_evaluator(reaction=18), start_states(3), 1)
    assert state.iteration == 1 and not np.array_equal(state.table, start)


def test_a_checkpoint_from_before_a_config_key_resumes(tmp_path: Path):
    """A key added to the config since (at_leaves, init, reach_bonus) holds its default in
    old ones."""
    path = tmp_path / "checkpoint.npz"
    save_checkpoint(run(1), path)
    data = dict(np.load(path))
    meta = json.loads(str(data["meta"]))
    for key in ("at_leaves", "init", "reach_bonus"):
        del meta["config"][key]
    data["meta"] = np.array(json.dumps(meta))
    with path.open("wb") as file:
        np.savez(file, **data)
    assert load_checkpoint(path, CONFIG).iteration == 1
    with pytest.raises(NesbotError, match="differs in at_leaves"):
        load_checkpoint(path, replace(CONFIG, at_leaves=True))


def test_a_checkpoint_whose_meta_is_nested_too_deeply_is_one_error(tmp_path: Path):
    """Its JSON once ended in a RecursionError."""
    path = tmp_path / "checkpoint.npz"
    with path.open("wb") as file:
        np.savez(file, meta=np.array("[" * 100_000), table=np.zeros(1))
    with pytest.raises(NesbotError, match=r"its meta is not valid JSON \(nested too deeply"):
        load_checkpoint(path, CONFIG)


def nesbot(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "nesbot", *args], capture_output=True, text=True, timeout=300
    )


def test_simulate_plays_with_a_model_and_refuses_a_bad_one_in_one_line(tmp_path: Path):
    path = tmp_path / "model.json"
    save_value_model(random_model(scale=1.0), path)
    common = ["simulate", "--games", "1", "--level", "29", "--tap-hz", "15", "--reaction", "18"]
    played = nesbot(*common, "--stop-level", "30", "--json", "--value-model", str(path))
    assert played.returncode == 0, played.stderr
    assert json.loads(played.stdout)["games"] == 1
    off = nesbot(*common, "--stop-level", "30", "--json", "--value-model", "off")
    assert off.returncode == 0, off.stderr
    assert json.loads(off.stdout)["games"] == 1
    path.write_text('{"format": "nesbot-value-model", "version": 1}')
    refused = nesbot(*common, "--value-model", str(path))
    assert refused.returncode == 2
    assert refused.stderr.strip().count("\n") == 0 and "lacks tap_hz" in refused.stderr


def near_level_39(count: int) -> list[dict]:
    """Level-38 games one line from level 39, over a bottom row open at its right edge."""
    states = []
    for state in start_states(count):
        state["level"], state["lines"] = 38, [0x89, 0x03]  # 389 lines (BCD)
        state["rows"] = [*state["rows"][:-1], 0x3FE]
        states.append(state)
    return states


def test_the_reach_bonus_is_the_last_reward_of_an_episode_that_reaches_level_39():
    ends = {}
    for bonus in (0.0, 50.0):
        state = new_state(replace(CONFIG, reach_bonus=bonus))
        iterate(state, get_evaluator(reaction=18), near_level_39(3), 1)
        assert state.log[0]["reach39"] == 1.0
        ends[bonus] = state.replay_ends[-1]
    assert np.array_equal(ends[50.0][:, 2] - ends[0.0][:, 2], [50.0, 50.0])
    assert np.array_equal(ends[50.0][:, :2], ends[0.0][:, :2])


def test_a_bonus_level_before_the_end_rewards_the_piece_that_reaches_it():
    """A model for the stack before level 29 (bonus_level 29) earns its bonus on the piece
    whose clear reaches level 29; the episode plays on past it."""
    starts = []
    for state in start_states(2):
        state["level"], state["lines"] = 28, [0x89, 0x02]  # 289 lines (BCD)
        state["rows"] = [*state["rows"][:-1], 0x3FE]
        starts.append(state)
    rewards = {}
    for bonus in (0.0, 50.0):
        config = replace(CONFIG, reach_bonus=bonus, from_level=28, bonus_level=29)
        state = new_state(config)
        entry = iterate(state, get_evaluator(reaction=18), starts, 1)
        assert entry["reach29"] == 1.0 and entry["reach39"] == 0.0
        assert state.replay_ends[-1][:, 1].all()  # cut at max_pieces: past level 29
        rewards[bonus] = state.replay_rewards[-1]
    added = rewards[50.0] - rewards[0.0]
    assert sorted(added[added != 0]) == [50.0, 50.0]
    # without the line points, the bonus is all an episode earns: a value of the odds
    config = replace(CONFIG, reach_bonus=50.0, from_level=28, bonus_level=29, points_weight=0.0)
    state = new_state(config)
    iterate(state, get_evaluator(reaction=18), starts, 1)
    assert np.array_equal(state.replay_rewards[-1], added)
