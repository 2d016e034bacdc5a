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
from nesbot.errors import NesbotError
from nesbot.evaluators import Evaluator, get_evaluator

TAP_RATES = {30: 2, 20: 3, 15: 4, 12: 5, 10: 6}  # Hz -> frames between presses of a button


class Bot:
    """Callable policy: bot(ram) -> the button byte for the next frame.

    `latency` is how many steps late the game logic runs after the pad poll in nes-py's
    steps: 0 in the aligned window, 1 once the step boundary has drifted between the poll
    and the logic (nesbot/emulator.py). The bot notices the change by a desync whose RAM
    shows where the simulator was one step earlier (or later), and adapts.
    """

    def __init__(self, evaluator: Evaluator | None = None, tap_hz: int = 30) -> None:
        if tap_hz not in TAP_RATES:
            raise NesbotError(f"--tap-hz {tap_hz} is not one of {sorted(TAP_RATES)}")
        evaluator = evaluator or get_evaluator()
        self.evaluator_name = evaluator.name
        self.tap_interval = TAP_RATES[tap_hz]
        self.planner = Planner(evaluator, tap_interval=self.tap_interval)
        self.desyncs = 0
        self.latency = 0
        self.plan_seconds: list[float] = []
        self._plan = b""
        self._next = 0
        self._expected: Game | None = None
        # The simulator's piece position before and after the last frame it stepped: RAM
        # shows `after` at latency 0 and `before` at latency 1.
        self._positions: tuple[tuple[int, int, int] | None, ...] = (None, None)

    def __call__(self, memory: np.ndarray) -> int:
        if not ram.piece_active(memory):
            self._expected = None
            return 0
        if self._expected is None:
            self._replan(memory)
        else:
            seen = _position(memory)
            if seen != self._positions[1 - self.latency]:
                self.desyncs += 1
                self._adapt_latency(seen)
                self._replan(memory)
        pad = self._plan[self._next] if self._next < len(self._plan) else 0
        self._next += 1
        before = self._expected.position
        self._expected.step(pad)
        self._positions = (before, self._expected.position)
        return pad

    def _adapt_latency(self, seen: tuple[int, int, int]) -> None:
        before, after = self._positions
        if self.latency == 0 and seen == before != after:
            self.latency = 1
        elif self.latency == 1 and seen == after != before:
            self.latency = 0

    def _replan(self, memory: np.ndarray) -> None:
        game = ram.game_from_ram(memory)
        if self.latency:
            game.logic_only()  # the frame whose pad was already polled
            if not game.active:
                self._plan, self._next, self._expected = b"", 0, game
                return
        started = time.perf_counter()
        chosen = self.planner.plan(game)
        self.plan_seconds.append(time.perf_counter() - started)
        self._plan = b"" if chosen is None else chosen[0]
        self._next = 0
        self._expected = game

    def plan_ms(self, percentile: float) -> float | None:
        if not self.plan_seconds:
            return None
        return round(float(np.percentile(self.plan_seconds, percentile)) * 1000, 3)


def _position(memory: np.ndarray) -> tuple[int, int, int]:
    x, y = int(memory[ram.TETRIMINO_X]), int(memory[ram.TETRIMINO_Y])
    return (x - 256 if x > 127 else x, y - 256 if y > 127 else y, int(memory[ram.CURRENT_PIECE]))
