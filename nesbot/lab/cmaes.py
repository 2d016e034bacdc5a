"""CMA-ES (the `cma` package) over evaluation weights, as an alternative to PSO.

The strategy maximizes fitness (cma minimizes, so it is told the negated fitness). Each
weight's step is `sigma` times its own scale, max(|start weight|, 1): the weights differ in
size by two orders of magnitude, and one absolute step would barely move the large ones or
flip the sign of the small ones.

The training checkpoint keeps the strategy as numbers, never as a pickle (loading a pickle
someone shares runs whatever it holds): the mean, the step size, the covariance and its
eigendecomposition, the evolution paths, the counts of iterations and evaluations, and the
state of numpy's generator, which `cma` samples from. Loaded into a new strategy with the
run's options, they continue the run exactly as if it had not stopped.
"""

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nesbot.errors import NesbotError

# The attributes of cma's CMAEvolutionStrategy (cma 4.x) that a run changes and its next
# ask and tell read; a new strategy with the run's options holds the rest. (Found by
# comparing a strategy after some iterations with a new one; tests/test_cmaes.py checks
# that a run resumed from them is the same run.)
STRATEGY_STATE = (
    "mean",  # the search distribution's mean
    "sigma",  # the step size
    "sm.C",  # the covariance,
    "sm.B",  # its eigenvectors
    "sm.D",  # and the square roots of its eigenvalues
    "pc",  # the covariance's evolution path
    "adapt_sigma.ps",  # the step size's evolution path
    "countiter",  # iterations told
    "countevals",  # candidates evaluated
    # bookkeeping the update reads
    "sm.last_update",
    "sm.count_tell",
    "sm.count_eigen",
    "adapt_sigma._ps_updated_iteration",
    "adapt_sigma.delta",
    "adapt_sigma._last_multiplier",
    "mean_after_tell",
    "mean_old",
    "mean_old_old",
    "_sigma_old",
    "_isotropic_mean_shift_iteration",
    "pc2",
    "dC",
    "itereigenupdated",
    "sent_solutions.last_iteration",
    "sent_solutions.last_solution_index",
    # the directions the next ask injects (selective mirrors, with populations under 6)
    "pop_injection_directions",
    "_is_independent_sample",
    "_mirrormethod1_done",
    "_indices_of_selective_mirrors",
)


@dataclass
class CmaState:
    """A CMA-ES run: the strategy, the best candidate evaluated so far, the history."""

    strategy: Any  # cma.CMAEvolutionStrategy
    iteration: int = 0
    best: list[float] = field(default_factory=list)
    best_fitness: float = -np.inf
    best_se: float = 0.0
    history: list[dict[str, Any]] = field(default_factory=list)

    def ask(self) -> np.ndarray:
        """The candidates of the next iteration (population x weights)."""
        return np.array(self.strategy.ask())

    def tell(self, candidates: np.ndarray, fitness: np.ndarray, se: np.ndarray) -> None:
        """Take in the candidates' fitness (higher is better) and their standard errors."""
        self.strategy.tell(list(candidates), list(-fitness))
        leader = int(np.argmax(fitness))
        if fitness[leader] > self.best_fitness:
            self.best = [float(v) for v in candidates[leader]]
            self.best_fitness = float(fitness[leader])
            self.best_se = float(se[leader])
        self.iteration += 1
        self.history.append(
            {
                "iteration": self.iteration,
                "best": self.best_fitness,
                "iteration_best": float(fitness[leader]),
                "iteration_best_se": float(se[leader]),
                "iteration_mean": float(np.mean(fitness)),
                "sigma": float(self.strategy.sigma),
            }
        )

    def mean(self) -> list[float]:
        """The search distribution's mean: the strategy's estimate of the best weights,
        less lucky than the single best candidate (whose fitness is the best of many noisy
        draws)."""
        return [float(v) for v in self.strategy.result.xfavorite]


def new_cma(start: list[float], sigma: float, population: int, seed: int) -> CmaState:
    return CmaState(_strategy(start, sigma, population, seed), best=list(start))


def _strategy(start: list[float], sigma: float, population: int, seed: int) -> Any:
    import cma

    options = {
        "popsize": population,
        "seed": seed + 1,  # cma seeds 0 at random
        "verbose": -9,
        "CMA_stds": [max(abs(w), 1.0) for w in start],
    }
    return cma.CMAEvolutionStrategy(list(start), sigma, options)


def cma_to_json(state: CmaState) -> dict[str, Any]:
    strategy = {}
    for path in STRATEGY_STATE:
        owner, name = _owner(state.strategy, path)
        if hasattr(owner, name):  # some appear only after the first iterations
            strategy[path] = _to_json(getattr(owner, name))
    # The generator it samples from: numpy's global one, which a new strategy draws on.
    kind, keys, position, has_gauss, cached = state.strategy.sm.randn.__self__.get_state()
    return {
        "strategy": strategy,
        "numpy_random": [kind, keys.tolist(), position, has_gauss, cached],
        "iteration": state.iteration,
        "best": state.best,
        "best_fitness": None if np.isinf(state.best_fitness) else state.best_fitness,
        "best_se": state.best_se,
        "history": state.history,
    }


def cma_from_json(
    data: dict[str, Any], start: list[float], sigma: float, population: int, seed: int
) -> CmaState:
    """The run a checkpoint holds, made with new_cma(start, sigma, population, seed)."""
    saved = data["strategy"]
    if not isinstance(saved, dict) or not set(saved) <= set(STRATEGY_STATE):
        raise NesbotError(
            "the checkpoint holds the CMA-ES strategy in an old form (a pickle), which "
            "nesbot no longer loads"
        )
    strategy = _strategy(start, sigma, population, seed)
    for path, value in saved.items():
        owner, name = _owner(strategy, path)
        restored = _from_json(value)
        _check_like(path, restored, getattr(owner, name, None))
        setattr(owner, name, restored)
    strategy.C, strategy.B, strategy.D = strategy.sm.C, strategy.sm.B, strategy.sm.D  # aliases
    if strategy.countiter:
        from cma.utilities.utils import ElapsedWCTime

        strategy.timer = ElapsedWCTime()  # made by the first ask, which the run has had
    kind, keys, position, has_gauss, cached = data["numpy_random"]
    generator = strategy.sm.randn.__self__
    generator.set_state((kind, np.array(keys, dtype=np.uint32), position, has_gauss, cached))
    best_fitness = data["best_fitness"]
    return CmaState(
        strategy=strategy,
        iteration=data["iteration"],
        best=data["best"],
        best_fitness=-np.inf if best_fitness is None else best_fitness,
        best_se=data["best_se"],
        history=data["history"],
    )


def _owner(strategy: Any, path: str) -> tuple[Any, str]:
    """The object holding a dotted attribute of the strategy, and the attribute's name."""
    *parents, name = path.split(".")
    for parent in parents:
        strategy = getattr(strategy, parent)
    return strategy, name


def _to_json(value: Any) -> Any:
    """A number, a flag or None as it is; arrays, lists of them and ranges tagged."""
    if isinstance(value, np.ndarray):
        return {"array": value.tolist()}
    if isinstance(value, range):
        return {"range": [value.start, value.stop, value.step]}
    if isinstance(value, list):
        return [_to_json(item) for item in value]
    return value.item() if isinstance(value, np.generic) else value


def _is_a_number(value: Any) -> bool:
    return isinstance(value, int | float | np.number) and not isinstance(value, bool | np.bool_)


def _check_like(path: str, value: Any, like: Any) -> None:
    """Refuse a saved attribute unlike the new strategy's (an array of another shape, not a
    number) or holding a number that is not finite: the run would go on with NaN weights."""
    if isinstance(like, np.ndarray):
        if not isinstance(value, np.ndarray) or value.shape != like.shape:
            raise NesbotError(f"the CMA-ES state's {path} must be {like.shape} numbers")
    elif _is_a_number(like) and not _is_a_number(value):
        raise NesbotError(f"the CMA-ES state's {path} must be a number, found {value!r:.40}")
    numbers = value if isinstance(value, np.ndarray) else np.array([value]).ravel()
    if numbers.dtype.kind == "f" and not np.all(np.isfinite(numbers)):
        raise NesbotError(f"the CMA-ES state's {path} holds a number that is not finite")


def _from_json(value: Any) -> Any:
    if isinstance(value, dict) and set(value) == {"array"}:
        return np.array(value["array"], dtype=float)
    if isinstance(value, dict) and set(value) == {"range"}:
        return range(*value["range"])
    if isinstance(value, list):
        return [_from_json(item) for item in value]
    if isinstance(value, dict):
        raise NesbotError(f"the checkpoint's CMA-ES state holds an unknown value {value!r:.60}")
    return value
