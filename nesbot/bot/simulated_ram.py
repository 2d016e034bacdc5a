"""A simulated game seen through the ROM's RAM map, so that a RAM policy (the bot) can play
simulated games exactly as it plays the ROM in nes-py.

The bot reads RAM between two frames and answers with the next frame's buttons; here the
RAM is written from the simulator's Game after every step (nesbot.nes.ram.game_to_ram), at a
step count inside nes-py's aligned window, where one step is one whole game frame. This
is how the tests hold the bot on the ROM and the simulated games (nesbot._core.whole_games)
to the same decisions, and how scripts/bench_planner.py times the bot's planning.
"""

from collections.abc import Callable

import numpy as np

from nesbot._core.game import Game
from nesbot.nes import ram
from nesbot.nes.timing import ALIGNED_FRAMES

Policy = Callable[[np.ndarray, int], int]  # (RAM, steps since power-on) -> buttons


def blank_ram() -> np.ndarray:
    """RAM of a running A-TYPE game with nothing else in it (the playfield page empty)."""
    memory = np.zeros(ram.RAM_SIZE, dtype=np.uint8)
    memory[ram.PLAYFIELD : ram.PLAYFIELD + 0x100] = ram.EMPTY_TILE
    memory[ram.GAME_MODE] = ram.MODE_PLAY
    return memory


def run_policy(
    policy: Policy, game: Game, max_frames: int, first_step: int = ALIGNED_FRAMES.start
) -> int:
    """Step `game` (in place) with the policy's buttons until top-out or `max_frames`;
    returns the frames stepped. `first_step` is the step count the policy is told for the
    first frame (the bot acts on nes-py's step boundary through it)."""
    memory = blank_ram()
    frames = 0
    while frames < max_frames and not game.topped_out:
        memory = ram.game_to_ram(game, memory)
        game.step(policy(memory, first_step + frames))
        frames += 1
    return frames
