"""`nesbot play`: boot the ROM, reach the start level through the menus, and let the bot play.

The frame loop asks a policy for each frame's button byte, given the emulator's RAM between
two frames and the steps since power-on, and steps the emulator with it until top-out (or
--max-frames).
"""

import argparse
import json
import sys
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import asdict, dataclass

import numpy as np

from nesbot import ram
from nesbot.bot import Bot
from nesbot.emulator import Emulator
from nesbot.evaluators import get_evaluator
from nesbot.fm2 import Fm2Writer, fceux_rom_md5
from nesbot.menus import GameSetup, start_game
from nesbot.rom import Rom, load_rom

Policy = Callable[[np.ndarray, int], int]  # (RAM, steps since power-on) -> buttons
PROGRESS_EVERY = 30  # frames between terminal progress updates
NES_FPS = 60.0988


@dataclass(frozen=True)
class GameResult:
    """What `nesbot play --json` prints (the bot's figures are added by play())."""

    score: int
    lines: int
    level: int
    start_level: int
    pieces: int
    frames: int
    tetrises: int
    maxout: bool
    maxout_lines: int | None
    topped_out: bool
    seed: int
    rom_md5: str


def play_game(
    emu: Emulator,
    setup: GameSetup,
    rom: Rom,
    policy: Policy,
    max_frames: int | None = None,
    progress: Callable[[ram.GameState, int], None] | None = None,
    realtime: bool = False,
) -> GameResult:
    """Step a game that is on its first active frame with `policy` until top-out or
    `max_frames` frames."""
    memory = emu.ram
    pieces, frames, was_active = 1, 0, True
    maxout_lines = None
    started = time.perf_counter()
    # Per frame only the few bytes that matter are read; decoding all of RAM would cost
    # about a tenth of an emulated frame.
    while memory[ram.PLAY_STATE] != ram.PLAY_TOPPED_OUT and (
        max_frames is None or frames < max_frames
    ):
        emu.step(policy(memory, emu.frame))
        frames += 1
        if realtime:
            delay = started + frames / NES_FPS - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
        active = ram.piece_active(memory)
        if active and not was_active:
            pieces += 1
            if maxout_lines is None and memory[ram.SCORE + 2] == 0x99:
                state = ram.decode(memory)
                if state.score >= ram.SCORE_CAP and state.level < 29:  # maxout: before level 29
                    maxout_lines = state.lines
        was_active = active
        if progress is not None and frames % PROGRESS_EVERY == 0:
            progress(ram.decode(memory), pieces)
    state = ram.decode(memory)
    return GameResult(
        state.score,
        state.lines,
        state.level,
        setup.level,
        pieces,
        frames,
        state.tetrises,
        maxout_lines is not None,
        maxout_lines,
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
    bot = Bot(get_evaluator(args.evaluator, args.weights), args.tap_hz)
    show_progress = not args.json and sys.stderr.isatty()
    with ExitStack() as stack:
        emu = stack.enter_context(Emulator(rom.path))
        if args.log:
            comments = [
                ("start_level", str(setup.level)),
                ("seed", str(setup.seed)),
                ("tap_hz", str(args.tap_hz)),
                ("evaluator", bot.evaluator_name),
            ]
            log = stack.enter_context(Fm2Writer(args.log, fceux_rom_md5(rom.data), comments))
            emu.observers.append(lambda pad, _emu: log.write_frame(pad))
        game_observers = []
        if args.video:
            from nesbot.video import VideoWriter

            game_observers.append(stack.enter_context(VideoWriter(args.video, args.scale)))
        print(f"booting and choosing level {setup.level} (seed {setup.seed})...", file=sys.stderr)
        start_game(emu, setup)
        emu.observers.extend(game_observers)  # a video shows the game, not the menu frames
        result = play_game(
            emu,
            setup,
            rom,
            bot,
            max_frames=args.max_frames,
            progress=_terminal_progress if show_progress else None,
            realtime=args.realtime,
        )
    if show_progress:
        print(file=sys.stderr)
    summary = asdict(result) | {
        "desyncs": bot.desyncs,
        "plan_ms_p50": bot.plan_ms(50),
        "plan_ms_p99": bot.plan_ms(99),
    }
    if args.json:
        print(json.dumps(summary))
    else:
        print(
            f"score {result.score}, lines {result.lines}, level {result.level}, "
            f"{result.pieces} pieces in {result.frames} frames, {bot.desyncs} desyncs"
            + (", topped out" if result.topped_out else "")
        )
    return 0
