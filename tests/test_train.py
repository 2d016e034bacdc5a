"""PSO training: the update rule, fitness, checkpoints and resume, workers and Ray."""

import dataclasses
import json
import math
import statistics

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_cli import _assert_one_line_error, nesbot

from nesbot.bot.planning import PlannerSettings
from nesbot.errors import NesbotError
from nesbot.evaluation.evaluators import EVALUATORS, Evaluator
from nesbot.evaluation.weights import MEATFIGHTER_2018, load_weights, save_weights
from nesbot.lab.game_runs import run_games
from nesbot.lab.train import (
    TrainConfig,
    evaluate_swarm,
    fitness_of,
    new_swarm,
    particle_evaluator,
    ray_runner,
    step,
    train,
    trained_weights,
)

# Games from level 28 to level 29 (a few hundred pieces) with the two-piece chain, the
# cheapest planner, so tests stay quick: what they check does not depend on the planner.
SMALL_RUN = {
    "particles": 2,
    "games": 2,
    "level": 28,
    "seed": 3,
    "settings": PlannerSettings(lookahead=0),
}
SMALL = TrainConfig(start=MEATFIGHTER_2018.trainable_vector()[:17], ceiling=1000.0, **SMALL_RUN)


def quiet(_line: str) -> None:
    pass


@pytest.fixture(scope="module")
def local_ray():
    """The runner on a local Ray instance (2 CPUs), shared by a module's tests: Ray takes
    10-20 s to start (ray_runner reuses a running Ray), and is shut down after the module,
    whose idle workers would take CPU from the rest of the run (tests/test_simulate.py
    imports this fixture). Tests using it are in xdist_group "ray", so a parallel run
    starts Ray on one worker at a time."""
    import ray  # the test extra installs it: Ray is tested, never skipped

    yield ray_runner("local", 2)
    ray.shutdown()


def test_fitness_is_the_mean_with_its_standard_error():
    mean, se = fitness_of([1, 2, 3, 4, 5, 6])
    assert mean == 3.5
    assert se == pytest.approx(statistics.stdev([1, 2, 3, 4, 5, 6]) / math.sqrt(6))
    assert fitness_of([7]) == (7, 0)


def test_the_swarm_starts_at_and_around_the_start_weights():
    swarm = new_swarm(SMALL, np.random.default_rng(0))
    assert swarm.positions.shape == (2, 17)
    assert list(swarm.positions[0]) == SMALL.start
    assert np.all(np.abs(swarm.velocities) <= SMALL.max_velocity)


def test_step_is_the_published_update_with_clamped_velocity():
    """v' = clip(0.729844 v + 1.496180 r1 (own best - x) + 1.496180 r2 (global best - x)),
    x' = x + v' (van den Bergh and Engelbrecht's constants, as meatfighter uses them). A
    first step makes every particle its own best, so only inertia and the pull to the
    global best remain; r1 and r2 are the step's two draws from its generator."""
    config = TrainConfig(start=[0.0] * 17, ceiling=0.0, particles=3, max_velocity=0.25)
    swarm = new_swarm(config, np.random.default_rng(1))
    swarm.velocities[:] = 0.1
    before = swarm.positions.copy()
    step(swarm, np.array([1.0, 5.0, 2.0]), config, np.random.default_rng(2))
    assert swarm.global_fitness == 5.0
    assert np.array_equal(swarm.global_best, before[1])
    draws = np.random.default_rng(2)
    _r1, r2 = draws.random((3, 17)), draws.random((3, 17))
    unclamped = 0.729844 * 0.1 + 1.496180 * r2 * (before[1] - before)
    assert np.any(np.abs(unclamped) > 0.25)  # the clamp is exercised
    assert np.allclose(swarm.velocities, np.clip(unclamped, -0.25, 0.25))
    assert np.allclose(swarm.positions, before + swarm.velocities)
    # particle 1 is its own and the global best: inertia alone moves it
    assert np.allclose(swarm.positions[1], before[1] + 0.729844 * 0.1)
    # A worse second step keeps the bests; now each particle is also pulled to its own.
    x, v = swarm.positions.copy(), swarm.velocities.copy()
    step(swarm, np.array([0.0, 0.0, 0.0]), config, np.random.default_rng(3))
    draws = np.random.default_rng(3)
    r1, r2 = draws.random((3, 17)), draws.random((3, 17))
    unclamped = 0.729844 * v + 1.496180 * r1 * (before - x) + 1.496180 * r2 * (before[1] - x)
    assert np.allclose(swarm.velocities, np.clip(unclamped, -0.25, 0.25))


def test_a_stagnant_swarm_restarts_with_random_positions_and_keeps_its_best():
    config = TrainConfig(start=[0.0] * 17, ceiling=0.0, particles=2, patience=2)
    swarm = new_swarm(config, np.random.default_rng(1))
    rng = np.random.default_rng(2)
    step(swarm, np.array([3.0, 1.0]), config, rng)
    best = swarm.global_best.copy()
    step(swarm, np.array([2.0, 1.0]), config, rng)
    step(swarm, np.array([2.0, 1.0]), config, rng)
    assert swarm.restarts == 1
    assert np.array_equal(swarm.global_best, best) and swarm.global_fitness == 3.0
    assert np.all(np.isinf(swarm.best_fitness))


@pytest.mark.slow
def test_resume_continues_exactly(tmp_path):
    straight = train(SMALL, 2, log=quiet)
    checkpoint = tmp_path / "ck.json"
    train(SMALL, 1, checkpoint, log=quiet)
    resumed = train(SMALL, 2, checkpoint, resume=True, log=quiet)
    assert resumed.history == straight.history
    assert np.array_equal(resumed.positions, straight.positions)
    assert json.loads(checkpoint.read_text())["iteration"] == 2


def test_a_checkpoint_from_before_the_newer_settings_resumes(tmp_path):
    """Checkpoints written before --same-pieces, safe_stack_height, --premove, --hedge and
    the piece-range weights existed ran with their defaults, so they resume."""
    straight = train(SMALL, 2, log=quiet)
    checkpoint = tmp_path / "ck.json"
    train(SMALL, 1, checkpoint, log=quiet)
    data = json.loads(checkpoint.read_text())
    del data["config"]["same_pieces"], data["config"]["safe_stack_height"]
    del data["config"]["unreachable_columns"], data["config"]["reach_excess"]
    del data["config"]["settings"]["premove"], data["config"]["settings"]["hedge"]
    checkpoint.write_text(json.dumps(data))
    assert train(SMALL, 2, checkpoint, resume=True, log=quiet).history == straight.history


@pytest.mark.slow
def test_checkpoint_guards(tmp_path):
    checkpoint = tmp_path / "ck.json"
    train(SMALL, 1, checkpoint, log=quiet)
    with pytest.raises(NesbotError, match="--resume"):
        train(SMALL, 2, checkpoint, log=quiet)
    other = TrainConfig(**{**vars(SMALL), "games": 3})
    with pytest.raises(NesbotError, match="other settings"):
        train(other, 2, checkpoint, resume=True, log=quiet)


@pytest.mark.slow
@pytest.mark.xdist_group("ray")
def test_workers_and_ray_give_the_same_fitness(local_ray):
    positions = new_swarm(SMALL, np.random.default_rng(0)).positions
    alone = evaluate_swarm(SMALL, positions, lambda specs: run_games(specs, 1))
    pooled = evaluate_swarm(SMALL, positions, lambda specs: run_games(specs, 2))
    on_ray = evaluate_swarm(SMALL, positions, local_ray)
    assert [list(a) for a in alone] == [list(a) for a in pooled] == [list(a) for a in on_ray]
    fitness, se = alone
    assert np.all(fitness > 0) and np.all(se > 0)


def train_briefly(out, *options: str):
    """`nesbot train`'s one iteration of two candidates, a game each from level 28."""
    brief = ("--particles", "2", "--games", "1", "--iterations", "1", "--level", "28")
    return nesbot("train", "--out", str(out), *brief, *options)


@pytest.mark.slow
def test_train_command_writes_weights_with_provenance(tmp_path):
    out = tmp_path / "w.json"
    result = train_briefly(out, "--seed", "4", "--workers", "2")
    assert result.returncode == 0, result.stderr
    assert "iteration 1/1" in result.stderr
    weights = load_weights(out)
    provenance = weights.provenance
    assert provenance["seed"] == 4 and provenance["games"] == 1
    assert provenance["iterations"] == 1 and provenance["particles"] == 2
    assert provenance["command"].startswith("nesbot train --out")


@pytest.mark.slow
def test_train_command_learns_the_well_features_of_a_right_well_evaluation(tmp_path):
    out = tmp_path / "w.json"
    evaluator = ("--evaluator", "nesbot-rightwell-tall", "--optimizer", "cmaes")
    result = train_briefly(out, *evaluator, "--lookahead", "0", "--seed", "6")
    assert result.returncode == 0, result.stderr
    trained = load_weights(out)
    assert trained.provenance["source"] == "nesbot train (CMA-ES)"
    assert "well_tetris_ready" in trained.provenance["learned"]
    assert trained["high_beside_well"] != RIGHT_WELL.weights["high_beside_well"]
    assert trained.kill_screen == RIGHT_WELL.kill_screen
    assert trained.fast_levels == RIGHT_WELL.fast_levels


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--evaluator", "el-tetris"], ["17-feature form"]),
        (["--evaluator", "nesbot-rightwell-tall"], ["--optimizer cmaes"]),
        (["--particles", "1"], ["--particles"]),
        (["--out", "/nonexistent/dir/w.json"], ["cannot write weights"]),
        (["--ray", "127.0.0.1:1"], ["cannot join the Ray cluster at 127.0.0.1:1"]),
    ],
)
def test_train_bad_input(tmp_path, args, words):
    base = ["train", "--out", str(tmp_path / "w.json"), "--iterations", "1"]
    _assert_one_line_error(nesbot(*base, *args), *words)


@settings(max_examples=200, deadline=None)
@given(
    option=st.sampled_from(["spread", "max_velocity"]),
    value=st.floats() | st.sampled_from([0.0, -0.0, 10.0, 10.000001, 5e-324, 1e300]),
)
def test_a_spread_or_velocity_is_taken_only_when_above_0_and_at_most_10(option, value):
    """Both once reached numpy unchecked: a traceback, or (NaN) a run whose checkpoint its
    own --resume refused."""
    try:
        TrainConfig(start=[0.0] * 17, ceiling=0.0, **{option: value})
    except NesbotError as error:
        assert not 0 < value <= 10
        flag = "--" + option.replace("_", "-")
        assert str(error) == f"{flag} {value:g} must be a number above 0 and at most 10"
        return
    assert 0 < value <= 10


@pytest.mark.parametrize(
    "options",
    [
        ["--spread", "-1"],
        ["--spread", "nan"],
        ["--spread", "1e300"],
        ["--max-velocity", "inf"],
        ["--max-velocity", "-1"],
    ],
)
def test_train_refuses_a_spread_or_velocity_out_of_range_before_any_work(tmp_path, capsys, options):
    from nesbot.cli import main

    out, checkpoint = tmp_path / "w.json", tmp_path / "ck.json"
    brief = ["--particles", "2", "--games", "1", "--iterations", "1"]
    brief += ["--checkpoint", str(checkpoint)]
    assert main(["train", "--out", str(out), *brief, *options]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"nesbot: error: {options[0]} ") and err.count("\n") == 1
    assert err.endswith(" must be a number above 0 and at most 10\n")
    assert not out.exists() and not checkpoint.exists()


@pytest.mark.parametrize(
    ("checkpoint", "words"),
    [
        ([], "--resume continues a --checkpoint: give one"),
        (["--checkpoint", "none.json"], "--resume: checkpoint none.json does not exist"),
    ],
)
def test_train_resume_refuses_a_missing_checkpoint(
    tmp_path, capsys, monkeypatch, checkpoint, words
):
    """Both once started a fresh run, unsaid."""
    from nesbot.cli import main

    monkeypatch.chdir(tmp_path)
    brief = ["--particles", "2", "--games", "1", "--iterations", "1", "--resume"]
    assert main(["train", "--out", "w.json", *brief, *checkpoint]) == 2
    assert capsys.readouterr().err == f"nesbot: error: {words}\n"
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(NesbotError, match="--resume"):
        train(SMALL, 1, None, resume=True, log=quiet)


@pytest.mark.parametrize("level_set", ["kill_screen", "fast_levels"])
def test_training_keeps_a_starts_level_sets(level_set):
    start = dataclasses.replace(EVALUATORS["nesbot-trained"], **{level_set: {"high_stack": 10.0}})
    config = TrainConfig.starting_from(start)
    assert config.level_sets == {level_set: {"high_stack": 10.0}}
    candidate = particle_evaluator(np.array(config.start), config)
    assert getattr(candidate, level_set) == {"high_stack": 10.0}
    assert candidate.as_vector() == start.as_vector()


# The default evaluator: StackRabbit's right-well features, a fast_levels set, a kill_screen
# set and sets for slower taps.
RIGHT_WELL = EVALUATORS["nesbot-rightwell-tall"]


def test_a_right_well_start_trains_every_weight_it_weighs_the_well_features_among_them():
    """Its start point is the start itself, to the level sets; the piece-range weights
    and the weights at 0 are not trained."""
    config = TrainConfig.starting_from(RIGHT_WELL, optimizer="cmaes")
    assert {"well_tetris_ready", "high_beside_well", "well_covered", "burned_lines"} <= set(
        config.learned
    )
    assert "unreachable_columns" not in config.learned
    # levels 19-28 play the fast_levels set's stack_height_over at 30 Hz, a pre-29 game
    # hardly sees the start's own
    assert RIGHT_WELL.fast_levels == {"stack_height_over": 9.0}
    assert "stack_height_over" not in config.learned
    at_20hz = TrainConfig.starting_from(
        RIGHT_WELL, optimizer="cmaes", settings=PlannerSettings(tap_hz=20)
    )
    assert "stack_height_over" in at_20hz.learned  # no fast_levels set at 20 Hz
    assert all(RIGHT_WELL.weights[name] for name in config.learned)
    assert config.start == [RIGHT_WELL.weights[name] for name in config.learned]
    candidate = particle_evaluator(np.array(config.start), config)
    for tap_hz in (30, 20, 15, 12):
        ours, theirs = candidate.at_tap_hz(tap_hz), RIGHT_WELL.at_tap_hz(tap_hz)
        assert ours.as_vector() == theirs.as_vector()
        assert ours.kill_screen_vector() == theirs.kill_screen_vector()
        assert ours.fast_levels_vector() == theirs.fast_levels_vector()
        assert ours.kill_screen_safe_stack_height == theirs.kill_screen_safe_stack_height
    moved = particle_evaluator(np.array(config.start) * 2, config)
    assert moved.weights["well_tetris_ready"] == 2 * RIGHT_WELL.weights["well_tetris_ready"]
    assert moved.weights["unreachable_columns"] == RIGHT_WELL.weights["unreachable_columns"]
    assert moved.weights["stack_height_over"] == RIGHT_WELL.weights["stack_height_over"]
    assert moved.kill_screen == RIGHT_WELL.kill_screen
    with pytest.raises(NesbotError, match="--optimizer cmaes"):
        TrainConfig.starting_from(RIGHT_WELL)  # PSO searches meatfighter's scale


@pytest.mark.slow
def test_a_right_well_run_resumes_exactly_and_ends_with_its_level_sets(tmp_path):
    config = TrainConfig.starting_from(RIGHT_WELL, optimizer="cmaes", spread=0.2, **SMALL_RUN)
    straight = train(config, 2, log=quiet)
    checkpoint = tmp_path / "ck.json"
    train(config, 1, checkpoint, log=quiet)
    resumed = train(config, 2, checkpoint, resume=True, log=quiet)
    assert resumed.history == straight.history
    weights = trained_weights(resumed, config, "nesbot train ...")
    out = tmp_path / "w.json"
    save_weights(weights, out)
    trained = Evaluator.from_weights(load_weights(out), "trained")
    assert trained.weights["well_tetris_ready"] != RIGHT_WELL.weights["well_tetris_ready"]
    assert trained.kill_screen == RIGHT_WELL.kill_screen
    assert trained.fast_levels_by_tap_hz == RIGHT_WELL.fast_levels_by_tap_hz
    assert trained.weights["reach_excess"] == RIGHT_WELL.weights["reach_excess"]


def test_training_keeps_the_piece_range_weights_and_the_safe_height():
    """Pre-29 games cannot see the piece-range features, so every candidate, and the
    weights a run ends with, carry the start's weights for them unchanged."""
    config = TrainConfig(
        start=[0.0] * 17,
        ceiling=0.0,
        safe_stack_height=10.0,
        unreachable_columns=20.0,
        reach_excess=3.0,
    )
    candidate = particle_evaluator(np.ones(17), config)
    assert candidate.weights["unreachable_columns"] == 20.0
    assert candidate.weights["reach_excess"] == 3.0
    assert candidate.safe_stack_height == 10.0
    assert candidate.weights["total_column_holes"] == 1.0
