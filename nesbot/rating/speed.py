"""The player's own speed, measured from the buttons of a game, and the search it allows.

A rating searches the moves the player could make: at their fastest tapping, with DAS
(holding a direction until it repeats) and soft drop only if they used them. Then every
placement the player made is found (their double taps, tucks and spins included), and no
best move is one they could not have made.
"""

import statistics
from collections.abc import Iterable
from dataclasses import dataclass

from nesbot._core.buttons import DOWN, LEFT, RIGHT, A, B
from nesbot.planning import TAP_RATES

TAPPED = (LEFT, RIGHT, A, B)
DAS_FRAMES = 16  # a direction held this long repeats (the ROM's autorepeat, charged from 0)
FASTEST_INTERVAL = min(TAP_RATES.values())  # a button must be let go a frame between taps
SLOWEST_INTERVAL = max(TAP_RATES.values())


@dataclass(frozen=True)
class PlayerSpeed:
    """`tap_interval`: frames from a press of a button to its next press, the fastest the
    player tapped (None: never tapped one button twice in a piece). `das`: held a
    direction until it repeated. `soft_drop`: pressed Down. `first_input_median` and
    `first_input_fastest`: frames from a piece's spawn to its first press, the median and
    the fastest tenth's (None without presses). `pieces`: the pieces measured."""

    tap_interval: int | None
    das: bool
    soft_drop: bool
    first_input_median: float | None
    first_input_fastest: float | None
    pieces: int

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
        return (
            f"{taps}; {'DAS used' if self.das else 'no DAS'}; "
            f"{'soft drop used' if self.soft_drop else 'no soft drop'}; {first}; "
            f"{self.pieces} pieces"
        )


def measure_speed(pieces_pads: Iterable[bytes]) -> PlayerSpeed:
    """The speed shown by the buttons of each piece's frames (spawn to lock)."""
    fastest: int | None = None
    das = soft_drop = False
    first_inputs: list[int] = []
    count = 0
    for pads in pieces_pads:
        count += 1
        last_press: dict[int, int] = {}
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
                    last_press[button] = frame
            for button in held_for:
                held_for[button] = held_for[button] + 1 if pad & button else 0
                das |= held_for[button] > DAS_FRAMES
            soft_drop |= bool(pad & DOWN)
            previous = pad
        if first is not None:
            first_inputs.append(first)
    median = fastest_tenth = None
    if first_inputs:
        median = statistics.median(first_inputs)
        ordered = sorted(first_inputs)
        fastest_tenth = ordered[len(ordered) // 10]
    return PlayerSpeed(fastest, das, soft_drop, median, fastest_tenth, count)
