"""Emulator and simulator stepped together, compared after every frame."""

from nesbot.nes import ram
from nesbot.nes.replay import first_difference


def lockstep(emulator, pads, game=None) -> tuple[object, int]:
    """Step both with `pads` from the emulator's current (between-frames) state; fail on the
    first divergence. Stops at top-out. Returns (game, frames stepped)."""
    if game is None:
        game = ram.game_from_ram(emulator.ram)
    if game.topped_out:  # the curtain after top-out is not modelled
        return game, 0
    for count, pad in enumerate(pads, start=1):
        emulator.step(pad)
        game.step(pad)
        divergence = first_difference(emulator, game, emulator.frame)
        assert divergence is None, str(divergence)
        if game.topped_out:
            return game, count
    return game, len(pads)
