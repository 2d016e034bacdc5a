"""`nesbot play`: boot the ROM, reach the start level through the menus, and run the game.

The frame loop asks a policy for each frame's button byte. Until the planner lands the
policy sends nothing, so the game runs with pieces falling where they spawn.
"""

import argparse
import json
import sys
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import asdict, dataclass

from nesbot import ram
from nesbot.emulator import Emulator
from nesbot.fm2 import Fm2Writer, fceux_rom_md5
from nesbot.menus import GameSetup, start_game
from nesbot.rom import Rom, load_rom

Policy = Callable[[ram.GameState], int]
PROGRESS_EVERY = 30  # frames between terminal progress updates


@dataclass(frozen=True)
class GameResult:
    """What `nesbot play --json` prints."""

    score: int
    lines: int
    level: int
    start_level: int
    pieces: int
    frames: int
    tetrises: int
    topped_out: bool
    seed: int
    rom_md5: str


def idle_policy(state: ram.GameState) -> int:
    return 0


def run_game(
    emu: Emulator,
    setup: GameSetup,
    rom: Rom,
    policy: Policy = idle_policy,
    max_frames: int | None = None,
    progress: Callable[[ram.GameState, int], None] | None = None,
) -> GameResult:
    """Start a game through the menus and step it with `policy` until top-out or
    `max_frames` game frames."""
    state = start_game(emu, setup)
    pieces, frames, was_active = 1, 0, True
    while not state.topped_out and (max_frames is None or frames < max_frames):
        emu.step(policy(state))
        frames += 1
        state = ram.decode(emu.ram)
        if state.active and not was_active:
            pieces += 1
        was_active = state.active
        if progress is not None and frames % PROGRESS_EVERY == 0:
            progress(state, pieces)
    return GameResult(
        state.score,
        state.lines,
        state.level,
        setup.level,
        pieces,
        frames,
        state.tetrises,
        state.topped_out,
        setup.seed,
        rom.md5,
    )


def _terminal_progress(state: ram.GameState, pieces: int) -> None:
    print(
        f"\rpieces {pieces:4d}  lines {state.lines:3d}  level {state.level:2d}  "
        f"score {state.score:7d}",
        end="",
        file=sys.stderr,
        flush=True,
    )


def play(args: argparse.Namespace) -> int:
    rom = load_rom(args.rom, any_rom=args.any_rom)
    print(rom.describe(), file=sys.stderr)
    setup = GameSetup(level=args.level, music=args.music, seed=args.seed)
    show_progress = not args.json and sys.stderr.isatty()
    with ExitStack() as stack:
        emu = stack.enter_context(Emulator(rom.path))
        if args.log:
            comments = [("start_level", str(setup.level)), ("seed", str(setup.seed))]
            log = stack.enter_context(Fm2Writer(args.log, fceux_rom_md5(rom.data), comments))
            emu.observers.append(lambda pad, _emu: log.write_frame(pad))
        print(f"booting and choosing level {setup.level} (seed {setup.seed})...", file=sys.stderr)
        result = run_game(
            emu,
            setup,
            rom,
            max_frames=args.max_frames,
            progress=_terminal_progress if show_progress else None,
        )
    if show_progress:
        print(file=sys.stderr)
    if args.json:
        print(json.dumps(asdict(result)))
    else:
        print(
            f"score {result.score}, lines {result.lines}, level {result.level}, "
            f"{result.pieces} pieces in {result.frames} frames"
            + (", topped out" if result.topped_out else "")
        )
    return 0
