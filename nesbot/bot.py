"""The bot: a per-frame policy that plans each piece with the two-piece search chain.

When RAM first shows a new active piece (the emulator is between frames, and the next step
is the piece's first input frame), the bot builds the simulator from RAM, plans, and then
sends one planned button byte per frame. A copy of the simulator steps along with the same
buttons and says where the piece must be after each frame; if RAM shows anything else, the
bot counts a desync and plans again from what RAM shows.
"""

import time

import numpy as np

from cython_core.buttons import DOWN, LEFT, RIGHT, A, B
from cython_core.game import Game
from cython_core.pieces import ROTATE_A, ROTATE_B
from cython_core.search import Planner
from nesbot import ram
from nesbot.errors import NesbotError
from nesbot.weights import MEATFIGHTER_2018, Weights

TAP_RATES = {30: 2, 20: 3, 15: 4, 12: 5, 10: 6}  # Hz -> frames between presses of a button


class Bot:
    """Callable policy: bot(ram) -> the button byte for the next frame.

    `latency` is how many steps late the game logic runs after the pad poll in nes-py's
    steps: 0 in the aligned window, 1 once the step boundary has drifted between the poll
    and the logic (nesbot/emulator.py). The bot notices the change by a desync whose RAM
    shows where the simulator was one step earlier (or later), and adapts.
    """

    def __init__(self, weights: Weights = MEATFIGHTER_2018, tap_hz: int = 30) -> None:
        if tap_hz not in TAP_RATES:
            raise NesbotError(f"--tap-hz {tap_hz} is not one of {sorted(TAP_RATES)}")
        self.tap_interval = TAP_RATES[tap_hz]
        # The next piece is searched with one new press per frame: as strong in simulated
        # games, with several times fewer nodes (scripts/bench_planner.py).
        self.planner = Planner(
            weights.as_vector(), weights.ceiling, tap_interval=self.tap_interval, simple_second=True
        )
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
        if chosen is None:
            self._plan = b""
        else:
            pads, x, y, orientation, _value = chosen
            plain = direct_path(game, (x, y, orientation), self.tap_interval)
            self._plan = plain if plain is not None else pads
        self._next = 0
        self._expected = game

    def plan_ms(self, percentile: float) -> float | None:
        if not self.plan_seconds:
            return None
        return round(float(np.percentile(self.plan_seconds, percentile)) * 1000, 3)


def direct_path(game: Game, target: tuple[int, int, int], tap_interval: int) -> bytes | None:
    """The plain way to a placement: rotate and shift toward it as early as the tap rate
    allows, then hold Down (soft-drop points). None unless the simulator says the piece
    locks exactly at `target` = (x, y, orientation); tucks and spins need the search's path.
    """
    x, _y, orientation = target
    turns_a = _turns(game.position[2], orientation, ROTATE_A)
    turns_b = _turns(game.position[2], orientation, ROTATE_B)
    rotate = A if turns_a <= turns_b else B
    g = game.copy()
    pads = bytearray()
    last_press = {LEFT: -tap_interval, RIGHT: -tap_interval, A: -tap_interval, B: -tap_interval}
    while g.active and len(pads) < 400:
        at_x, _at_y, at_orientation = g.position
        frame = len(pads)
        pad = 0
        if at_orientation != orientation and frame - last_press[rotate] >= tap_interval:
            pad |= rotate
        shift = LEFT if x < at_x else RIGHT if x > at_x else 0
        if shift and frame - last_press[shift] >= tap_interval:
            pad |= shift
        if not pad and at_orientation == orientation and at_x == x:
            pad = DOWN  # held from here on: soft drop to the lock
        for button in (LEFT, RIGHT, A, B):
            if pad & button:
                last_press[button] = frame
        pads.append(pad)
        g.step(pad)
    if g.active or g.position != target:
        return None
    return bytes(pads)


def _turns(start: int, goal: int, table: tuple[int, ...]) -> int:
    orientation, turns = start, 0
    while orientation != goal and turns < 4:
        orientation, turns = table[orientation], turns + 1
    return turns


def _position(memory: np.ndarray) -> tuple[int, int, int]:
    x, y = int(memory[ram.TETRIMINO_X]), int(memory[ram.TETRIMINO_Y])
    return (x - 256 if x > 127 else x, y - 256 if y > 127 else y, int(memory[ram.CURRENT_PIECE]))
