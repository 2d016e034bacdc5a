"""CMA-ES training: it climbs a smooth toy fitness, resumes exactly, and writes weights
with provenance through `nesbot train --optimizer cmaes`."""

import json

import numpy as np
import pytest
from test_cli import nesbot

from nesbot.cmaes import new_cma
from nesbot.planning import PlannerSettings
from nesbot.train import TrainConfig, train
from nesbot.weights import MEATFIGHTER_2018, TRAINABLE_NAMES, load_weights

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
