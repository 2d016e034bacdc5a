"""The bot: a per-frame policy that plans each piece with the two-piece search chain.

When RAM first shows a new active piece (the emulator is between frames, and the next step
is the piece's first input frame), the bot builds the simulator from RAM, plans, and then
sends one planned button byte per frame. A copy of the simulator steps along with the same
buttons and says where the piece must be after each frame; if RAM shows anything else, the
bot counts a desync and plans again from what RAM shows.
"""

import time

import numpy as np

from cython_core.game import Game
from cython_core.search import Planner
from nesbot import ram
from nesbot.weights import Weights

TAP_RATES = {30: 2, 20: 3, 15: 4, 12: 5, 10: 6}  # Hz -> frames between presses of a button


def make_planner(weights: Weights, tap_hz: int = 30) -> Planner:
    if tap_hz not in TAP_RATES:
        from nesbot.errors import NesbotError

        raise NesbotError(f"--tap-hz {tap_hz} is not one of {sorted(TAP_RATES)}")
    # The next piece is searched with one new press per frame: nearly as strong in
    # simulated games, and about eight times fewer nodes (scripts/bench_planner.py).
    return Planner(
        weights.as_vector(), weights.ceiling, tap_interval=TAP_RATES[tap_hz], simple_second=True
    )


class Bot:
    """Callable policy: bot(ram) -> the button byte for the next frame."""

    def __init__(self, planner: Planner) -> None:
        self.planner = planner
        self.desyncs = 0
        self.plan_seconds: list[float] = []
        self._plan = b""
        self._next = 0
        self._expected: Game | None = None

    def __call__(self, memory: np.ndarray) -> int:
        active = memory[ram.GAME_MODE] == ram.MODE_PLAY and memory[ram.PLAY_STATE] == 1
        if not active:
            self._expected = None
            return 0
        if self._expected is None:
            self._replan(memory)
        elif self._expected.position != _position(memory):
            self.desyncs += 1
            self._replan(memory)
        pad = self._plan[self._next] if self._next < len(self._plan) else 0
        self._next += 1
        self._expected.step(pad)
        return pad

    def _replan(self, memory: np.ndarray) -> None:
        game = ram.game_from_ram(memory)
        started = time.perf_counter()
        chosen = self.planner.plan(game)
        self.plan_seconds.append(time.perf_counter() - started)
        self._plan = chosen[0] if chosen is not None else b""
        self._next = 0
        self._expected = game

    def plan_ms(self, percentile: float) -> float | None:
        if not self.plan_seconds:
            return None
        return round(float(np.percentile(self.plan_seconds, percentile)) * 1000, 3)


def _position(memory: np.ndarray) -> tuple[int, int, int]:
    x, y = int(memory[ram.TETRIMINO_X]), int(memory[ram.TETRIMINO_Y])
    return (x - 256 if x > 127 else x, y - 256 if y > 127 else y, int(memory[ram.CURRENT_PIECE]))
