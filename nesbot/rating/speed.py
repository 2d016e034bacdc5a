"""The player's own speed, measured from the buttons of a game, and the search it allows.

A rating searches the moves the player could make: at their fastest tapping, with DAS
(holding a direction until it repeats) and soft drop only if they used them. Then every
placement the player made is found (their double taps, tucks and spins included), and no
best move is one they could not have made.
"""

import math
import statistics
from collections.abc import Iterable
from dataclasses import dataclass

from nesbot._core.buttons import DOWN, LEFT, RIGHT, A, B
from nesbot.bot.tap_rates import TAP_RATES

TAPPED = (LEFT, RIGHT, A, B)
DAS_FRAMES = 16  # a direction held this long repeats (the ROM's autorepeat, charged from 0)
FASTEST_INTERVAL = min(TAP_RATES.values())  # a button must be let go a frame between taps
SLOWEST_INTERVAL = max(TAP_RATES.values())
RUN_GAP = 12  # frames between two taps of one button that end a run of taps


@dataclass(frozen=True)
class PlayerSpeed:
    """`tap_interval`: frames from a press of a button to its next press, the fastest the
    player tapped (None: never tapped one button twice in a piece). `das`: held a
    direction until it repeated. `soft_drop`: pressed Down. `first_input_median` and
    `first_input_fastest`: frames from a piece's spawn to its first press, the median and
    the fastest tenth's (None without presses). `pieces`: the pieces measured.
    `timing_sd`: the spread of one press's timing in frames (the standard deviation), from
    the intervals within the player's runs of taps of one button: an interval is the
    difference of two presses' errors, so its variance about the run's mean is twice a
    press's (None without a run of three taps)."""

    tap_interval: int | None
    das: bool
    soft_drop: bool
    first_input_median: float | None
    first_input_fastest: float | None
    pieces: int
    timing_sd: float | None = None

    @property
    def tap_hz(self) -> int:
        """The rate the search taps at: the player's fastest, within nesbot's rates (30 Hz,
        a press every other frame, when the player never tapped twice)."""
        interval = self.tap_interval or FASTEST_INTERVAL
        interval = min(max(interval, FASTEST_INTERVAL), SLOWEST_INTERVAL)
        return next(hz for hz, frames in TAP_RATES.items() if frames == interval)

    def describe(self) -> str:
        taps = (
            f"fastest taps {60 / self.tap_interval:.0f} Hz (every {self.tap_interval} frames)"
            if self.tap_interval
            else "no button tapped twice in a piece (searched at 30 Hz)"
        )
        first = (
            f"first press {self.first_input_median:.0f} frames after the spawn (median; "
            f"fastest tenth {self.first_input_fastest:.0f})"
            if self.first_input_median is not None
            else "no presses"
        )
        spread = (
            f"press timing spread {self.timing_sd:.2f} frames"
            if self.timing_sd is not None
            else "press timing spread not measured (no run of three taps)"
        )
        return (
            f"{taps}; {spread}; {'DAS used' if self.das else 'no DAS'}; "
            f"{'soft drop used' if self.soft_drop else 'no soft drop'}; {first}; "
            f"{self.pieces} pieces"
        )


def miss_chance(slack: int, timing_sd: float | None) -> float | None:
    """The chance that a press aimed at the middle of a window of `slack` frames falls
    outside it, for a press timing spread `timing_sd` (normal; None if not measured)."""
    if timing_sd is None:
        return None
    if timing_sd == 0:
        return 0.0
    return 1.0 - math.erf(slack / (2 * math.sqrt(2) * timing_sd))


def measure_speed(pieces_pads: Iterable[bytes]) -> PlayerSpeed:
    """The speed shown by the buttons of each piece's frames (spawn to lock)."""
    fastest: int | None = None
    das = soft_drop = False
    first_inputs: list[int] = []
    runs: list[list[int]] = []  # the intervals of each run of taps of one button
    count = 0
    for pads in pieces_pads:
        count += 1
        last_press: dict[int, int] = {}
        run: dict[int, list[int]] = {button: [] for button in TAPPED}
        held_for = {LEFT: 0, RIGHT: 0}
        previous = 0
        first: int | None = None
        for frame, pad in enumerate(pads):
            newly = pad & ~previous
            if newly & (LEFT | RIGHT | A | B | DOWN) and first is None:
                first = frame
            for button in TAPPED:
                if newly & button:
                    if button in last_press:
                        interval = frame - last_press[button]
                        fastest = interval if fastest is None else min(fastest, interval)
                        if interval > RUN_GAP:
                            runs.append(run[button])
                            run[button] = []
                        else:
                            run[button].append(interval)
                    last_press[button] = frame
            for button in held_for:
                held_for[button] = held_for[button] + 1 if pad & button else 0
                das |= held_for[button] > DAS_FRAMES
            soft_drop |= bool(pad & DOWN)
            previous = pad
        runs.extend(run.values())
        if first is not None:
            first_inputs.append(first)
    median = fastest_tenth = None
    if first_inputs:
        median = statistics.median(first_inputs)
        ordered = sorted(first_inputs)
        fastest_tenth = ordered[len(ordered) // 10]
    return PlayerSpeed(fastest, das, soft_drop, median, fastest_tenth, count, _timing_sd(runs))


def _timing_sd(runs: list[list[int]]) -> float | None:
    """A press's timing spread from the runs' intervals (pooled about each run's mean)."""
    squares = degrees = 0.0
    for intervals in runs:
        if len(intervals) >= 2:
            mean = sum(intervals) / len(intervals)
            squares += sum((i - mean) ** 2 for i in intervals)
            degrees += len(intervals) - 1
    if not degrees:
        return None
    return math.sqrt(squares / degrees / 2)
