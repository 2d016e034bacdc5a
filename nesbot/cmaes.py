"""CMA-ES (the `cma` package) over evaluation weights, as an alternative to PSO.

The strategy maximizes fitness (cma minimizes, so it is told the negated fitness). Each
weight's step is `sigma` times its own scale, max(|start weight|, 1): the weights differ in
size by two orders of magnitude, and one absolute step would barely move the large ones or
flip the sign of the small ones. Its whole state, the numpy generator `cma` samples from
included, goes into the training checkpoint, so a resumed run continues exactly as an
uninterrupted one.
"""

import base64
import pickle
from dataclasses import dataclass, field
from typing import Any

import numpy as np


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
    import cma

    options = {
        "popsize": population,
        "seed": seed + 1,  # cma seeds 0 at random
        "verbose": -9,
        "CMA_stds": [max(abs(w), 1.0) for w in start],
    }
    return CmaState(cma.CMAEvolutionStrategy(list(start), sigma, options), best=list(start))


def cma_to_json(state: CmaState) -> dict[str, Any]:
    # cma samples from numpy's global generator: keep its state with the strategy.
    kind, keys, position, has_gauss, cached = np.random.get_state()
    return {
        "strategy": base64.b64encode(pickle.dumps(state.strategy)).decode("ascii"),
        "numpy_random": [kind, keys.tolist(), position, has_gauss, cached],
        "iteration": state.iteration,
        "best": state.best,
        "best_fitness": None if np.isinf(state.best_fitness) else state.best_fitness,
        "best_se": state.best_se,
        "history": state.history,
    }


def cma_from_json(data: dict[str, Any]) -> CmaState:
    kind, keys, position, has_gauss, cached = data["numpy_random"]
    np.random.set_state((kind, np.array(keys, dtype=np.uint32), position, has_gauss, cached))
    best_fitness = data["best_fitness"]
    return CmaState(
        strategy=pickle.loads(base64.b64decode(data["strategy"])),
        iteration=data["iteration"],
        best=data["best"],
        best_fitness=-np.inf if best_fitness is None else best_fitness,
        best_se=data["best_se"],
        history=data["history"],
    )
