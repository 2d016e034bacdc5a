"""The bot: a per-frame policy that plans each piece with the two-piece search chain.

When RAM first shows a new active piece (the emulator is between frames, and the next step
is the piece's first input frame), the bot builds the simulator from RAM, plans, and then
sends one planned button byte per frame. A copy of the simulator steps along with the same
buttons and says where the piece must be after each frame; if RAM shows anything else, the
bot counts a desync and plans again from what RAM shows.
"""

import time
import warnings

import numpy as np

from nesbot._core.blind import plan_blind
from nesbot._core.buttons import DOWN, LEFT, RIGHT, A, B, nes_to_pad, pad_to_nes
from nesbot._core.game import Game
from nesbot.bot.planning import PlannerSettings, build_planner
from nesbot.errors import NesbotWarning
from nesbot.evaluation.evaluators import Evaluator, get_evaluator
from nesbot.nes import ram
from nesbot.nes.timing import AND_ONSET, PLAYABLE_FRAMES

ALIGNED, STRADDLED = "aligned", "straddled"
# Once reads straddle, every press is held for a second frame and released for at least one:
# at most 20 Hz per button.
STRADDLED_TAP_INTERVAL = 3
PRESS_BUTTONS = (LEFT, RIGHT, A, B)
LOCK_WAIT_FRAMES = 1000  # more than any piece can fall, even at level 0


class Bot:
    """Callable policy: bot(ram, steps since power-on) -> the button byte for the next step.

    How the game reads the buttons of nes-py's steps changes once in a long game, as the
    step boundary drifts through the game's frame (nesbot/nes/emulator.py). `reading` says how:

    * aligned: a frame's pad poll and logic run in the same step, with that step's buttons.
    * straddled (after about 57,000 steps): the poll starts in the step before the logic.
      The game reads the pad twice and ANDs the reads, so for some hundreds of steps a
      frame sees the buttons of the step before AND those of its own step; after that, it
      sees the step before's alone; which of the two, varies from frame to frame at the
      change. The bot sends each frame's buttons one step ahead and holds every new press
      for a second frame, so both readings see the same presses on the same frames. A
      piece's first frame polls later (its NMI draws the piece count), so a plan starts
      with that frame and the next idle.

    The change comes at a known step count (nesbot.nes.timing.AND_ONSET): the bot sends no
    new press while frames may read either way, then plays straddled. Should RAM show it
    anyway (held buttons that are the AND or the step before's, or a desync whose RAM shows
    where the simulator was one step earlier), the bot switches then and plans again.

    It plays correctly only between steps 24,000 and 61,000 since power-on
    (nesbot.nes.timing.PLAYABLE_FRAMES) and warns once (NesbotWarning) when called outside
    them: `nesbot.attach` and `nesbot play` start their games there.
    """

    def __init__(
        self, evaluator: Evaluator | None = None, settings: PlannerSettings | None = None
    ) -> None:
        self.settings = settings or PlannerSettings()
        evaluator = evaluator or get_evaluator(reaction=self.settings.reaction)
        self.evaluator_name = evaluator.name
        self.tap_interval = self.settings.tap_interval
        self.planner = build_planner(evaluator, self.settings)
        self._straddled_planner = build_planner(
            evaluator, self.settings, max(self.tap_interval, STRADDLED_TAP_INTERVAL)
        )
        self.desyncs = 0
        self.reading = ALIGNED
        self.plan_seconds: list[float] = []
        # Where the current plan locks the current piece and, in the chosen pair, the next
        # one: (x, y, orientation), or None (no plan yet, or none found). For overlays.
        self.planned_lock: tuple[int, int, int] | None = None
        self.planned_next_lock: tuple[int, int, int] | None = None
        self._sent = (0, 0)  # the buttons of the last two steps, older first
        self._plan = b""  # one button byte per frame, from the simulator's next frame on
        self._next = 0
        self._expected: Game | None = None
        # The simulator's piece position before and after the last frame it stepped: RAM
        # shows `after`, or `before` once the reading straddles (the simulator runs a frame
        # ahead then).
        self._positions: tuple[tuple[int, int, int] | None, ...] = (None, None)
        self._warned = False

    def __call__(self, memory: np.ndarray, frame: int) -> int:
        """The buttons for the next step, given RAM after `frame` steps since power-on."""
        if frame not in PLAYABLE_FRAMES and not self._warned:
            self._warned = True
            warnings.warn(
                f"nesbot's Bot is playing at step {frame:,} since power-on, outside steps "
                f"{PLAYABLE_FRAMES.start:,}-{PLAYABLE_FRAMES.stop:,} where nes-py's steps "
                "line up with the game's frames: expect desyncs (nesbot.attach starts its "
                "game inside them)",
                NesbotWarning,
                stacklevel=2,
            )
        was_aligned = self.reading == ALIGNED  # what the simulator stepped for
        reading_changed = self._observe_poll(memory)
        if was_aligned and frame + 1 >= AND_ONSET.stop:
            self.reading, reading_changed = STRADDLED, True
        if not ram.piece_active(memory) or memory[ram.CURRENT_PIECE] == ram.PIECE_HIDDEN:
            # Hidden yet active: the step ended while the ROM copied a spawn back to RAM
            # (steps inside the game logic); the piece shows a step later.
            self._expected = None
            return self._send(0)
        if self._expected is None:
            self._replan(memory, blind=self.settings.reaction > 0)
        else:
            seen = ram.piece_position(memory)
            if self._next == self.settings.reaction > 0 and self._positions[was_aligned] == seen:
                self._replan(memory)  # --reaction: the next piece may be used from here
            elif seen != self._positions[was_aligned]:
                self.desyncs += 1
                if not reading_changed:
                    self._adapt_reading(seen)
                self._replan(memory)
            elif reading_changed:
                self._replan(memory)
        pad = self._plan[self._next] if self._next < len(self._plan) else 0
        self._next += 1
        if self.reading == ALIGNED and frame + 1 in AND_ONSET:
            pad &= self._sent[1]  # no new press: the own and the ANDed reading see it alike
        expected = self._expected
        assert expected is not None  # set by _replan
        before = expected.position
        expected.step(pad)
        self._positions = (before, expected.position)
        return self._send(pad)

    def _send(self, pad: int) -> int:
        self._sent = (self._sent[1], pad)
        return pad

    def _observe_poll(self, memory: np.ndarray) -> bool:
        """True when RAM's held buttons show the last poll straddling two steps: the AND of
        their buttons, or the older step's alone."""
        older, last = self._sent
        if self.reading != ALIGNED or older == last:
            return False
        held = nes_to_pad(int(memory[ram.HELD_BUTTONS]))
        if held != last and held in (older & last, older):
            self.reading = STRADDLED
            return True
        return False

    def _adapt_reading(self, seen: tuple[int, int, int]) -> None:
        before, after = self._positions
        if self.reading == ALIGNED and seen == before != after:
            self.reading = STRADDLED
        elif self.reading == STRADDLED and seen == after != before:
            self.reading = ALIGNED

    @property
    def fallbacks(self) -> int:
        """Plans whose every option the calming rules vetoed (the least bad was played)."""
        return self.planner.fallbacks + self._straddled_planner.fallbacks

    @property
    def truncated(self) -> int:
        """Plans whose search ran out of node capacity."""
        return self.planner.truncations + self._straddled_planner.truncations

    def _replan(self, memory: np.ndarray, blind: bool = False) -> None:
        if self.reading == ALIGNED:
            game, lead, planner = ram.game_from_ram(memory), b"", self.planner
        else:
            game, lead = self._straddled_start(memory)
            planner = self._straddled_planner
        self._next, self._expected = 0, game
        start = game.copy()
        start.run(lead)
        self._plan = lead
        if not start.active:
            return
        started = time.perf_counter()
        chosen = plan_blind(planner, start) if blind else planner.plan(start)
        self.plan_seconds.append(time.perf_counter() - started)
        self.planned_lock = None if chosen is None else chosen[1:4]
        self.planned_next_lock = None if chosen is None else planner.next_lock
        if chosen is not None:
            pads, x, y, orientation, _value = chosen
            if self.reading == STRADDLED:
                pads = _hold_presses(start, pads, (x, y, orientation))
            self._plan = lead + pads

    def _straddled_start(self, memory: np.ndarray) -> tuple[Game, bytes]:
        """The simulator one frame ahead of RAM, and the buttons to send first.

        The frame after RAM's polls the last step's buttons, whether alone or ANDed with
        this step's, so the bot sends them again: the frame sees them either way. RAM's
        held buttons may still be the frame before's, so they are set from what was sent.
        """
        older, last = self._sent
        patched = memory.copy()
        patched[ram.HELD_BUTTONS] = pad_to_nes(last)
        patched[ram.NEWLY_PRESSED] = pad_to_nes(last & ~older)
        game = ram.game_from_ram(patched)
        game.logic_only()
        return game, bytes([last])

    def plan_ms(self, percentile: float) -> float | None:
        if not self.plan_seconds:
            return None
        return round(float(np.percentile(self.plan_seconds, percentile)) * 1000, 3)


def _hold_presses(game: Game, pads: bytes, place: tuple[int, int, int]) -> bytes:
    """`pads` with every new press held one frame more and Down one frame past the lock,
    so that a frame that ANDs its buttons with the next frame's sees the same presses (see
    Bot). A shift held into a frame that starts the soft drop would stop it from starting,
    so there the soft drop starts a frame later. Kept only if it still locks at `place`,
    where `pads` lock (the planner's choice)."""
    held = bytearray(pads) + bytes(1)
    previous = 0
    for frame, pad in enumerate(pads):
        for button in PRESS_BUTTONS:
            if pad & button and not previous & button:
                if button in (LEFT, RIGHT):
                    if held[frame + 1] & (LEFT | RIGHT) & ~button:
                        continue  # the other direction next: holding this one would win
                    held[frame + 1] &= ~DOWN
                held[frame + 1] |= button
        previous = pad
    if pads:
        held[-1] |= pads[-1] & DOWN
    return bytes(held) if _lock_place(game, bytes(held)) == place else pads


def _lock_place(game: Game, pads: bytes) -> tuple[int, int, int]:
    """Where the piece locks when `pads` are pressed and then nothing."""
    game = game.copy()
    for frame in range(len(pads) + LOCK_WAIT_FRAMES):
        game.step(pads[frame] if frame < len(pads) else 0)
        if not game.active:
            break
    return game.position
