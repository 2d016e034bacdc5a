"""CMA-ES training: it climbs a smooth toy fitness, resumes exactly from checkpoints that
hold numbers (never a pickle), and writes weights with provenance through `nesbot train
--optimizer cmaes`."""

import json
from pathlib import Path

import numpy as np
import pytest
from test_cli import nesbot

from nesbot.bot.planning import PlannerSettings
from nesbot.errors import NesbotError
from nesbot.evaluation.weights import MEATFIGHTER_2018, TRAINABLE_NAMES, load_weights
from nesbot.lab.cmaes import cma_from_json, cma_to_json, new_cma
from nesbot.lab.train import TrainConfig, train

# Games from level 28 to level 29 are short; the two-piece chain keeps them quick.
SMALL = TrainConfig(
    start=MEATFIGHTER_2018.trainable_vector(),
    ceiling=1000.0,
    particles=3,
    games=2,
    level=28,
    seed=3,
    settings=PlannerSettings(lookahead=0),
    optimizer="cmaes",
    spread=0.2,
)


def test_cma_steps_are_relative_to_each_weights_size():
    state = new_cma([10.0, 0.1, 0.0], 0.1, 400, seed=2)
    spread = state.ask().std(axis=0)
    assert spread[0] == pytest.approx(1.0, rel=0.2)  # 0.1 x 10
    assert spread[1] == pytest.approx(0.1, rel=0.2)  # 0.1 x max(0.1, 1)
    assert spread[2] == pytest.approx(0.1, rel=0.2)
    assert state.mean() == pytest.approx([10.0, 0.1, 0.0])


def test_cma_climbs_a_smooth_fitness():
    """On a plain quadratic the strategy's best candidate approaches the optimum."""
    target = np.linspace(-1, 1, 20)
    state = new_cma([0.0] * 20, 0.5, 8, seed=1)
    for _ in range(120):
        candidates = state.ask()
        fitness = -np.sum((candidates - target) ** 2, axis=1)
        state.tell(candidates, fitness, np.zeros(len(candidates)))
    assert state.best_fitness > -0.01  # from -7.4 at the start
    assert state.history[-1]["iteration"] == 120


def _toy_fitness(candidates: np.ndarray, iteration: int) -> np.ndarray:
    return -np.sum((candidates - 1) ** 2, axis=1) + np.sin(iteration + np.arange(len(candidates)))


def _json_numbers(value) -> bool:
    """Whether `value` is made of numbers, flags, None, lists and dicts alone."""
    if isinstance(value, dict):
        return all(isinstance(k, str) and _json_numbers(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_json_numbers(item) for item in value)
    return value is None or isinstance(value, (int, float, bool))


@pytest.mark.parametrize("population", [3, 10])  # under 6, cma mirrors samples
def test_a_run_saved_as_numbers_goes_on_as_if_it_had_not_stopped(population):
    start = [1.0, -3.0, 0.5, 20.0, 2.0, 0.0]

    def run(iterations: int, stop_at: int | None = None) -> list[np.ndarray]:
        state, asked = new_cma(start, 0.3, population, seed=2), []
        for iteration in range(iterations):
            if iteration == stop_at:
                saved = json.loads(json.dumps(cma_to_json(state)))
                assert _json_numbers(saved["strategy"]) and _json_numbers(saved["numpy_random"][1:])
                np.random.seed(99)  # whatever ran in between
                state = cma_from_json(saved, start, 0.3, population, seed=2)
            asked.append(state.ask())
            state.tell(asked[-1], _toy_fitness(asked[-1], iteration), np.zeros(population))
        return asked

    straight = run(10)
    for stop_at in (1, 2, 5):
        assert all(np.array_equal(a, b) for a, b in zip(run(10, stop_at), straight, strict=True))


def test_the_shipped_checkpoints_hold_numbers_and_continue_their_runs():
    """results/training's checkpoints held pickles; converted to numbers, each asks the
    candidates its pickle asked next (tests/data/cma_next_candidates.json, written from
    the pickles when they were converted; a checkpoint written since as numbers, from what
    it asked when it was committed), up to rounding."""
    expected = json.loads((Path(__file__).parent / "data" / "cma_next_candidates.json").read_text())
    shipped = sorted(Path(__file__).parents[1].glob("results/training/cmaes_*_checkpoint.json"))
    assert [path.name for path in shipped] == sorted(expected)
    for path in shipped:
        data = json.loads(path.read_text())
        assert _json_numbers(data["strategy"])
        config = data["config"]
        state = cma_from_json(
            data, config["start"], config["spread"], config["particles"], config["seed"]
        )
        # The same candidates to the last few bits: numpy's linear algebra (the strategy's
        # eigendecomposition) rounds differently from one numpy or OpenBLAS to the next
        # (numpy 2.5 moved them by 1e-13), and a wrong restore moves them by far more.
        np.testing.assert_allclose(
            state.ask(), np.array(expected[path.name]), rtol=1e-11, atol=1e-12
        )


def test_a_checkpoint_holding_a_pickle_is_refused():
    data = cma_to_json(new_cma([1.0, 2.0], 0.1, 4, seed=1))
    data["strategy"] = "gASVAAAAAAAAAAB9lC4="  # what checkpoints held before: base64 pickle
    with pytest.raises(NesbotError, match=r"old form \(a pickle\), which nesbot no longer loads"):
        cma_from_json(data, [1.0, 2.0], 0.1, 4, seed=1)


@pytest.mark.slow
def test_cma_resume_continues_exactly(tmp_path):
    straight = train(SMALL, 2, log=lambda _line: None)
    checkpoint = tmp_path / "ck.json"
    train(SMALL, 1, checkpoint, log=lambda _line: None)
    resumed = train(SMALL, 2, checkpoint, resume=True, log=lambda _line: None)
    assert resumed.history == straight.history
    assert resumed.best == straight.best
    assert json.loads(checkpoint.read_text())["iteration"] == 2


@pytest.mark.slow
def test_train_command_with_cmaes(tmp_path):
    out = tmp_path / "w.json"
    result = nesbot(
        "train",
        "--optimizer",
        "cmaes",
        "--out",
        str(out),
        "--particles",
        "3",
        "--games",
        "2",
        "--iterations",
        "1",
        "--level",
        "28",
        "--seed",
        "4",
        "--lookahead",
        "0",
        "--workers",
        "2",
    )
    assert result.returncode == 0, result.stderr
    assert "iteration 1/1" in result.stderr and "se " in result.stderr
    weights = load_weights(out)
    assert weights.provenance["source"] == "nesbot train (CMA-ES)"
    assert weights.provenance["fitness_se"] > 0
    assert weights.provenance["planner"]["lookahead"] == 0
    assert len(weights.trainable_vector()) == len(TRAINABLE_NAMES)
    # The shipped weights are the distribution's mean, measured on games 2-3 (iteration 1's).
    assert "mean" in weights.provenance["chosen"]
    assert "games 2-3" in weights.provenance["fitness_definition"]
    assert len(weights.provenance["history"]) == 1
