"""A `nesbot train` checkpoint, damaged or hand-edited, is refused in one NesbotError naming
the file, or resumes into finite numbers: never a traceback, never NaN weights."""

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nesbot.errors import NesbotError
from nesbot.evaluation.weights import MEATFIGHTER_2018
from nesbot.lab.cmaes import CmaState, new_cma
from nesbot.lab.train import Swarm, TrainConfig, load_checkpoint, new_swarm, save_checkpoint, step

PSO = TrainConfig(start=MEATFIGHTER_2018.trainable_vector()[:17], ceiling=1000.0, particles=2)
CMA = TrainConfig(
    start=MEATFIGHTER_2018.trainable_vector()[:17], ceiling=1000.0, particles=4, optimizer="cmaes"
)


def _pso_checkpoint() -> dict[str, Any]:
    """A swarm after one iteration (its fitness made up: no game is played)."""
    rng = np.random.default_rng(5)
    swarm = new_swarm(PSO, rng)
    step(swarm, np.array([1000.0, 2000.0]), PSO, rng, np.array([10.0, 20.0]))
    return _through_file(PSO, swarm, rng)


def _cma_checkpoint() -> dict[str, Any]:
    state = new_cma(CMA.start, CMA.spread, CMA.particles, CMA.seed)
    candidates = state.ask()
    fitness = np.arange(len(candidates), dtype=float) * 100
    state.tell(candidates, fitness, np.ones(len(candidates)))
    return _through_file(CMA, state, None)


def _through_file(config: TrainConfig, state: Swarm | CmaState, rng) -> dict[str, Any]:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "ck.json"
        save_checkpoint(path, config, state, rng)
        return json.loads(path.read_text())


CHECKPOINTS = {"pso": (PSO, _pso_checkpoint()), "cmaes": (CMA, _cma_checkpoint())}


def _numbers(state: Swarm | CmaState) -> list[float]:
    if isinstance(state, CmaState):
        return [*state.best, state.best_se, *np.ravel(state.strategy.mean)]
    arrays = (state.positions, state.velocities, state.best_positions, state.global_best)
    fitness = [f for f in state.best_fitness if not np.isneginf(f)]
    return [*np.concatenate([np.ravel(a) for a in arrays]), *fitness]


def _load(tmp_path: Path, config: TrainConfig, text: str | bytes) -> Swarm | CmaState:
    path = tmp_path / "ck.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    state, _ = load_checkpoint(path, config)
    return state


@pytest.mark.parametrize("kind", CHECKPOINTS)
def test_a_checkpoint_as_written_resumes(tmp_path, kind):
    config, data = CHECKPOINTS[kind]
    state = _load(tmp_path, config, json.dumps(data))
    assert state.iteration == 1 and all(math.isfinite(x) for x in _numbers(state))


NAN_FITNESS = {
    "pso": [("global_fitness",), ("best_fitness", 0), ("history", 0, "best")],
    "cmaes": [("best_fitness",), ("history", 0, "iteration_best")],
}


@pytest.mark.parametrize(("kind", "where"), [(k, w) for k in NAN_FITNESS for w in NAN_FITNESS[k]])
@pytest.mark.parametrize("bad", [math.nan, math.inf, "1000", True])
def test_a_fitness_that_is_not_a_finite_number_is_refused(tmp_path, kind, where, bad):
    config, data = CHECKPOINTS[kind]
    data = json.loads(json.dumps(data))
    owner = data
    for key in where[:-1]:
        owner = owner[key]
    owner[where[-1]] = bad
    with pytest.raises(NesbotError, match=r"^checkpoint .*ck\.json: .* must be a finite number"):
        _load(tmp_path, config, json.dumps(data))


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (b"\xff\xfe not utf-8", "cannot read checkpoint"),
        (b"[1, 2]", "must be a JSON object"),
        (b'{"version": 1}', "lacks config"),
        (b'{"version": 1, "config": 3}', "config must be an object"),
        (b"", "not valid JSON"),
        # JSON Python cannot hold: once a RecursionError and a ValueError
        pytest.param(b"[" * 100_000, r"not valid JSON \(nested too deeply", id="deep"),
        pytest.param(b'{"version": 1' + b"0" * 5000 + b"}", r"JSON \(Exceeds", id="digits"),
    ],
)
def test_a_checkpoint_of_the_wrong_shape_is_one_error(tmp_path, text, words):
    with pytest.raises(NesbotError, match=words):
        _load(tmp_path, PSO, text)


def _leaves(value: Any, where: tuple = ()) -> list[tuple]:
    """Every place in a JSON value (objects' keys, lists' indexes)."""
    places = [where]
    if isinstance(value, dict):
        for key, item in value.items():
            places += _leaves(item, (*where, key))
    elif isinstance(value, list):
        for index, item in enumerate(value[:3]):  # the first few of long lists suffice
            places += _leaves(item, (*where, index))
    return places


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    kind=st.sampled_from(sorted(CHECKPOINTS)),
    choice=st.integers(0, 10**6),
    value=JSON_VALUES,
    delete=st.booleans(),
)
def test_any_edit_of_a_checkpoint_is_refused_or_resumes_finite(kind, choice, value, delete):
    """Replace or delete any one place of a checkpoint: load_checkpoint raises NesbotError
    or gives a state of finite numbers, and nothing else."""
    import tempfile

    config, data = CHECKPOINTS[kind]
    data = json.loads(json.dumps(data))
    places = [p for p in _leaves(data) if p]
    where = places[choice % len(places)]
    owner = data
    for key in where[:-1]:
        owner = owner[key]
    if delete and isinstance(owner, dict):
        del owner[where[-1]]
    else:
        owner[where[-1]] = value
    with tempfile.TemporaryDirectory() as folder:
        try:
            state = _load(Path(folder), config, json.dumps(data))
        except NesbotError as error:
            assert str(error).startswith(("checkpoint ", "cannot read checkpoint "))
            return
    assert all(math.isfinite(x) for x in _numbers(state))


def test_a_generator_state_out_of_range_is_one_error(tmp_path):
    """Hypothesis found it: a key of the CMA-ES run's random generator below 0 (uint32)."""
    config, data = CHECKPOINTS["cmaes"]
    kind, keys, *rest = data["numpy_random"]
    bad = data | {"numpy_random": [kind, [-1, *keys[1:]], *rest]}
    with pytest.raises(NesbotError, match="its CMA-ES state does not load"):
        _load(tmp_path, config, json.dumps(bad))


@pytest.mark.parametrize("kind", CHECKPOINTS)
@pytest.mark.parametrize(
    ("change", "words"),
    [
        (
            lambda data: data | {"iteration": 10**12},
            "iteration 1,000,000,000,000 does not match its history of 1 iterations",
        ),
        (lambda data: data | {"history": []}, "iteration 1 does not match its history of 0"),
        (
            lambda data: data | {"history": [data["history"][0] | {"iteration": 2}]},
            "history[0].iteration must be 1, found 2",
        ),
        (lambda data: data | {"history": [{"best": 1.0}]}, "history[0].iteration must be 1"),
    ],
)
def test_an_iteration_its_history_does_not_hold_is_refused(tmp_path, kind, change, words):
    """Training logs one history entry per iteration it counts: a checkpoint whose count
    differs once resumed and printed "after 1000000000000 iterations"."""
    config, data = CHECKPOINTS[kind]
    with pytest.raises(NesbotError) as error:
        _load(tmp_path, config, json.dumps(change(json.loads(json.dumps(data)))))
    assert str(error.value).startswith(f"checkpoint {tmp_path / 'ck.json'}: {words}")


def _resume_edited(tmp_path: Path, capsys, edit) -> str:
    """`nesbot train --resume`'s stderr from the checkpoint of one iteration that `edit`
    changed (a dict, in place): refused (exit status 2) before any game, no weights
    written."""
    from nesbot.cli import main

    checkpoint, out = tmp_path / "ck.json", tmp_path / "w.json"
    brief = ["--particles", "2", "--games", "1", "--level", "28", "--out", str(out)]
    run = ["train", *brief, "--checkpoint", str(checkpoint)]
    assert main([*run, "--iterations", "1"]) == 0
    data = json.loads(checkpoint.read_text())
    edit(data)
    checkpoint.write_text(json.dumps(data))
    out.unlink()
    capsys.readouterr()
    assert main([*run, "--iterations", "2", "--resume"]) == 2
    err = capsys.readouterr().err
    assert "train: this iteration" not in err and not out.exists()
    return err


def test_train_refuses_an_iteration_its_history_does_not_hold_before_any_game(tmp_path, capsys):
    """The hostile run's case: iteration 10^12 beside one history entry."""
    err = _resume_edited(tmp_path, capsys, lambda data: data.update(iteration=10**12))
    assert err == (
        f"nesbot: error: checkpoint {tmp_path / 'ck.json'}: iteration 1,000,000,000,000 does "
        "not match its history of 1 iterations\n"
    )


def test_train_refuses_a_nan_checkpoint_before_any_game(tmp_path, capsys):
    """The issue's case: a NaN fitness resumed and wrote weights with "fitness": NaN."""
    err = _resume_edited(tmp_path, capsys, lambda data: data.update(global_fitness=math.nan))
    assert err.startswith(
        f"nesbot: error: checkpoint {tmp_path / 'ck.json'}: global_fitness must be a finite"
    )


SURFACE = 6  # columns of the surface tables built here (tests/test_surface.py's SMALL)


def _surface_parts(tmp_path: Path) -> dict[str, np.ndarray]:
    from nesbot.evaluation.surface_builder import SurfaceInputs, build_surface_table

    checkpoint = tmp_path / "surface.npz"
    inputs = SurfaceInputs(columns=SURFACE)
    build_surface_table(None, inputs=inputs, iterations=2, checkpoint=checkpoint, progress=False)
    with np.load(checkpoint) as data:
        return {name: data[name] for name in data.files}


def _resume_surface(path: Path) -> None:
    from nesbot.evaluation.surface_builder import SurfaceInputs, build_surface_table

    inputs = SurfaceInputs(columns=SURFACE)
    build_surface_table(
        None, inputs=inputs, iterations=3, checkpoint=path, progress=False, log=lambda _: None
    )


def _meta(parts: dict[str, np.ndarray], **changes: Any) -> dict[str, np.ndarray]:
    meta = json.loads(str(parts["meta"])) | changes
    return parts | {"meta": np.array(json.dumps(meta))}


@pytest.mark.parametrize(
    ("damage", "words"),
    [
        (lambda p: p | {"values": p["values"] * np.nan}, "finite numbers"),
        (lambda p: p | {"values": p["values"][:-1]}, "finite numbers"),
        (lambda p: p | {"values": np.zeros(10**6, np.float32)}, "larger than"),
        (lambda p: {"values": p["values"]}, "cannot read checkpoint"),
        (lambda p: p | {"meta": np.array("[1]")}, "not a surface-table checkpoint"),
        (lambda p: _meta(p, inputs=None), "names no inputs"),
        (lambda p: _meta(p, iteration=-1), "iteration must be a whole number"),
        (lambda p: _meta(p, seconds="x"), "seconds must be a number"),
        (lambda p: _meta(p, change=math.nan), "change must be a number"),
        (lambda p: p | {"meta": np.array("[" * 100_000)}, "its meta is not valid JSON"),
    ],
)
def test_a_damaged_surface_checkpoint_is_one_error(tmp_path, damage, words):
    path = tmp_path / "damaged.npz"
    with path.open("wb") as file:
        np.savez(file, **damage(_surface_parts(tmp_path)))
    with pytest.raises(NesbotError, match=words):
        _resume_surface(path)


@pytest.fixture(scope="module")
def surface_parts(tmp_path_factory) -> dict[str, np.ndarray]:
    return _surface_parts(tmp_path_factory.mktemp("built"))


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(cut=st.integers(0, 10**6), noise=st.binary(max_size=64))
def test_a_cut_or_noisy_surface_checkpoint_is_one_error(
    tmp_path_factory, surface_parts, cut, noise
):
    folder = tmp_path_factory.mktemp("surface")
    path = folder / "cut.npz"
    with path.open("wb") as file:
        np.savez(file, **surface_parts)
    whole = path.read_bytes()
    cut %= len(whole)
    path.write_bytes(whole[:cut] + noise)
    with pytest.raises(NesbotError, match="checkpoint"):
        _resume_surface(path)
