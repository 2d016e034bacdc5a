"""`nesbot play`: boot the ROM, start an A-TYPE game and let the bot play it."""

import argparse
import json
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING

from nesbot.cli.options import (
    add_evaluator_options,
    add_picture_options,
    add_planner_options,
    add_rom_options,
    find_rom,
    planner_settings,
    rom_input,
    whole_number,
)
from nesbot.cli.outputs import check_codec, check_overlay, file_ids, name_files, scale
from nesbot.errors import NesbotError
from nesbot.output_file import check_distinct, check_output

if TYPE_CHECKING:
    from nesbot.nes.ram import GameState
    from nesbot.progress import Progress

NAME = "play"
HELP = "boot the ROM, start an A-TYPE game and let the bot play"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_rom_options(parser)
    parser.add_argument("--level", type=whole_number, default=19, help="start level 0-19 (19)")
    parser.add_argument(
        "--seed",
        type=whole_number,
        default=0,
        help="chooses the piece sequence; same seed, same game (0)",
    )
    parser.add_argument("--music", type=whole_number, default=0, help="0-2 songs, 3 off (0)")
    parser.add_argument("--log", metavar="FILE.fm2", help="write the game's input log")
    parser.add_argument("--max-frames", type=whole_number, help="stop after this many frames")
    add_planner_options(parser)
    parser.add_argument(
        "--realtime",
        action="store_true",
        help="pace the game at the NES's 60.0988 frames per second",
    )
    parser.add_argument(
        "--video", metavar="FILE.mp4", help="record every frame of the game (.mp4 or .webm)"
    )
    parser.add_argument(
        "--still",
        metavar="FILE.png",
        help="save the frame where the score first shows 999,999 (else the last frame)",
    )
    add_picture_options(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON summary object")
    add_evaluator_options(parser)


def run(args: argparse.Namespace) -> int:
    from nesbot.bot.policy import Bot
    from nesbot.bot.session import Outputs, play, summary
    from nesbot.evaluation.evaluators import get_evaluator
    from nesbot.nes.menus import GameSetup

    if args.max_frames == 0:  # a game of no frames: 24 s of boot for nothing
        raise NesbotError("--max-frames 0: need at least 1")
    check_distinct(
        {**rom_input(args), "--weights": args.weights},
        {"--log": args.log, "--video": args.video, "--still": args.still},
    )
    if args.log:
        check_output(args.log, "log")
    check_overlay(args, "--video, --show or --still")
    check_codec(args)
    outputs = Outputs(
        log=Path(args.log) if args.log else None,
        video=Path(args.video) if args.video else None,
        still=Path(args.still) if args.still else None,
        scale=scale(args),
        overlay=args.overlay,
        show=args.show,
        codec=args.codec,
    )
    # Bad paths fail now, not after the ~40 s boot.
    if outputs.video is not None:
        from nesbot.show.video import check_video_path

        check_video_path(outputs.video, outputs.codec)
    if outputs.still is not None:
        from nesbot.show.video import check_png_path

        check_png_path(outputs.still)
    if outputs.show:
        from nesbot.show.window import check_display

        check_display()
    rom = find_rom(args)
    setup = GameSetup(level=args.level, music=args.music, seed=args.seed)
    bot = Bot(get_evaluator(args.evaluator, args.weights, args.reaction), planner_settings(args))
    progress = _PlayProgress()
    files = {"video": args.video, "log": args.log, "still": args.still}
    older = file_ids(files)  # to name only the files this game replaced
    print(f"booting and choosing level {setup.level} (seed {setup.seed})...", file=sys.stderr)
    try:
        session = play(
            rom,
            setup,
            bot,
            outputs,
            tap_hz=args.tap_hz,
            max_frames=args.max_frames,
            realtime=args.realtime,
            progress=progress.game,
            boot_progress=progress.boot,
        )
    except KeyboardInterrupt:  # Ctrl-C, or the window closed: the files are complete
        progress.close()
        name_files(files, "stopped; so far", older)
        raise
    progress.close()
    result = session.result
    if args.json:
        print(json.dumps(summary(result, bot)))
    else:
        print(
            f"score {result.score:,}, lines {result.lines}, level {result.level}, "
            f"{result.pieces} pieces in {result.frames:,} game frames, {bot.desyncs} desyncs"
            + (", topped out" if result.topped_out else "")
        )
    name_files(files, f"score {result.score:,}; wrote", older)
    return 0


class _PlayProgress:
    """play's progress on stderr (nesbot.progress): the boot, counted in the ~24,000 steps
    the menus wait for (nesbot/nes/timing.py: ALIGNED_FRAMES), then the game, in pieces."""

    def __init__(self) -> None:
        self._stack = ExitStack()
        self._boot: Progress | None = None
        self._game: Progress | None = None

    def boot(self, step: int, target: int) -> None:
        from nesbot.progress import Progress

        if self._boot is None:
            what = "getting ready (the menus wait for nes-py's whole-frame steps)"
            self._boot = self._stack.enter_context(Progress(what, target, "step"))
        self._boot.advance_to(min(step, target))

    def game(self, state: "GameState", pieces: int) -> None:
        from nesbot.progress import Progress

        if self._game is None:
            self._stack.close()  # the boot is over
            self._game = self._stack.enter_context(Progress("play", None, "piece"))
        note = f"lines {state.lines}, level {state.level}, score {state.score:,}"
        self._game.advance_to(pieces, note)

    def close(self) -> None:
        self._stack.close()
