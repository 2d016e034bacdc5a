"""Emulator and simulator in lockstep on randomized gamepad streams: zero divergences.

Each stream mixes input styles a player (or a bug) produces; the simulator takes over from
RAM at the first active frame and must show what the ROM shows after every frame.
"""

import numpy as np
import pytest
from lockstep import lockstep

from nesbot._core.buttons import DOWN, LEFT, RIGHT, UP, A, B

FRAMES_PER_LEVEL = 2500
STYLE_SPAN = 150  # frames before the stream switches style


def _taps_every_frame(rng, n):
    return rng.choice([0, LEFT, RIGHT, A, B, DOWN], size=n)


def _taps_every_other_frame(rng, n):
    pads = rng.choice([0, LEFT, RIGHT, A, B], size=n)
    pads[1::2] = 0
    return pads


def _das_holds(rng, n):
    direction = rng.choice([LEFT, RIGHT])
    pads = np.full(n, direction)
    pads[rng.integers(0, n, size=n // 10)] |= rng.choice([A, B])
    return pads


def _down_mixes(rng, n):
    combo = rng.choice([DOWN, DOWN | LEFT, DOWN | RIGHT, DOWN | UP, DOWN | A])
    pads = np.full(n, combo)
    pads[rng.integers(0, n, size=n // 8)] = 0  # releases restart soft drops
    return pads


def _shift_and_rotate(rng, n):
    pads = rng.choice([LEFT | A, RIGHT | B, A | B, LEFT | B, RIGHT | A, 0], size=n)
    pads[1::2] = 0
    return pads


def _long_idle(rng, n):
    return np.zeros(n, dtype=np.int64)


STYLES = [
    _taps_every_frame,
    _taps_every_other_frame,
    _das_holds,
    _down_mixes,
    _shift_and_rotate,
    _long_idle,
]


def _stream(seed: int, frames: int) -> list[int]:
    rng = np.random.default_rng(seed)
    parts = []
    while sum(map(len, parts)) < frames:
        style = STYLES[rng.integers(len(STYLES))]
        parts.append(style(rng, STYLE_SPAN))
    return [int(p) for p in np.concatenate(parts)[:frames]]


@pytest.mark.parametrize("level", [0, 5, 9, 12, 15, 18, 19])
def test_random_streams_match_the_rom(emulator, new_game, level):
    pads = _stream(level, FRAMES_PER_LEVEL)
    done, games, seed = 0, 0, level
    while done < len(pads):
        new_game(level, seed)
        done += lockstep(emulator, pads[done:])[1]
        games += 1
        seed += 1
    assert done == FRAMES_PER_LEVEL and games >= 1


def test_streams_avoid_unmodelled_inputs():
    for seed in range(5):
        for pad in _stream(seed, 2000):
            assert not pad & 0x0C  # no Start or Select
            assert pad & 0xF0 != DOWN | LEFT | RIGHT
