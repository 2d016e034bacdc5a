"""`nesbot rate`: every placement of a game (an .fm2 log, or a video of the screen) rated
against the best at the player's speed."""

import argparse
import os
import sys
import warnings
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING

from nesbot.cli.options import (
    add_conflict_option,
    add_crop_option,
    add_evaluator_options,
    add_planner_options,
    add_rom_options,
    add_scale_and_codec,
    find_rom,
    log_and_rom,
    on_conflict,
    planner_settings,
    rom_input,
    whole_number,
)
from nesbot.cli.outputs import check_codec, replay_pictures, scale, step_progress
from nesbot.errors import NesbotError, NesbotWarning
from nesbot.output_file import check_distinct, check_output

if TYPE_CHECKING:
    from nesbot.rating.game import GameRating
    from nesbot.rating.rater import RatingSettings

NAME = "rate"
HELP = (
    "rate every placement of a game (an .fm2 log, or a video of the screen) against the "
    "best at the player's speed"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "game",
        metavar="GAME",
        help="FCEUX .fm2 input log of the game, or a video of its screen (.mp4, .mkv, ...)",
    )
    add_rom_options(parser)
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print one JSON object")
    output.add_argument("--csv", action="store_true", help="print one CSV row per placement")
    parser.add_argument(
        "--playouts",
        type=whole_number,
        default=8,
        help="random piece sequences each differing placement is played out on (8)",
    )
    parser.add_argument(
        "--horizon", type=whole_number, default=16, help="pieces played in each playout (16)"
    )
    parser.add_argument(
        "--seed", type=whole_number, default=0, help="chooses the playouts' pieces (0)"
    )
    parser.add_argument("--workers", type=whole_number, default=1, help="processes (1)")
    parser.add_argument(
        "--video",
        metavar="FILE.mp4",
        help="the game again, each piece's best placement and the player's outlined, its "
        "grade on the panel (.mp4 or .webm)",
    )
    add_scale_and_codec(
        parser, "the .mp4's encoder: nesbot (default: lossless) or x264 (a smaller file)"
    )
    parser.add_argument(
        "--report",
        metavar="FILE.html",
        help="also write an analysis board: one HTML file a browser opens from disk, every "
        "placement's board, a graph of the points lost, the summary",
    )
    parser.add_argument(
        "--given-speed",
        action="store_true",
        help="search at --tap-hz without DAS, not at the speed measured from the log",
    )
    add_conflict_option(parser)
    add_crop_option(parser)
    add_planner_options(parser)
    add_evaluator_options(parser)


def run(args: argparse.Namespace) -> int:
    from nesbot.arguments import check_workers
    from nesbot.rating.game import VIDEO_SUFFIXES, rate_log

    check_workers(args.workers)
    check_distinct(
        {"GAME": args.game, **rom_input(args), "--weights": args.weights},
        {"--video": args.video, "--report": args.report},
    )
    if args.report:
        check_output(args.report, "report")
        if not args.report.lower().endswith((".html", ".htm")):
            raise NesbotError(f"--report {args.report}: the analysis board is an .html file")
    if args.game.lower().endswith(VIDEO_SUFFIXES):
        return _rate_video(args)
    if not args.game.lower().endswith(".fm2"):
        raise NesbotError(
            f"{args.game}: nesbot rate reads .fm2 input logs and videos "
            f"({', '.join(VIDEO_SUFFIXES)})"
        )
    if args.crop:
        raise NesbotError("--crop says where a video's picture is; an .fm2 log has none")
    # --video is a replay's, with the ratings on its overlay
    args.overlay, args.show, args.realtime = True, False, False
    check_codec(args)
    if args.video:
        from nesbot.show.video import check_video_path

        check_video_path(Path(args.video), args.codec)
        scale(args)
    log, rom = log_and_rom(args.game, args)
    settings = _rating_settings(args)
    with ExitStack() as stack:
        replay_bars = stack.enter_context(ExitStack())
        replaying = step_progress("rate: replay", log, replay_bars)
        rated = _rating_progress(stack, replay_bars)
        rating = rate_log(
            rom,
            log,
            settings,
            workers=args.workers,
            measure=not args.given_speed,
            replay_observers=(replaying,),
            on_rated=rated,
            on_conflict=on_conflict(args, log),
        )
    stills = None
    if args.video:
        from nesbot.nes.replay import replay_on_emulator
        from nesbot.rating.analysis_board import ReplayStills
        from nesbot.rating.marks import RatingWatch

        with ExitStack() as stack:
            watch = RatingWatch(rating.ratings)
            observers = replay_pictures(args, stack, watch, game_only=True)
            observers += (step_progress("rate: video", log, stack),)
            if args.report:  # the report's stills: the game's screen where mistakes locked
                keeper = ReplayStills(rating)
                observers += (keeper,)
                stills = keeper.stills
            # The conflicts, if any, were named (or stopped the rating) above.
            replay_on_emulator(rom, log, None, observers, lambda conflict: None)
        print(f"wrote {args.video}", file=sys.stderr)
    _print_rating(args, rating, stills)
    return 0


def _rating_progress(stack: ExitStack, reading: ExitStack) -> Callable[[int, int], None]:
    """rate's on_rated: at the first placement rated, the bars of reading the game (in
    `reading`) make way for the rating's (in `stack`)."""
    from nesbot.progress import Progress

    bars: list[Progress] = []

    def rated(done: int, total: int) -> None:
        if not bars:
            reading.close()
            bars.append(stack.enter_context(Progress("rate", total, "placement")))
        bars[0].advance_to(done)

    return rated


def _rating_settings(args: argparse.Namespace) -> "RatingSettings":
    from nesbot.evaluation.evaluators import get_evaluator
    from nesbot.rating.rater import RatingSettings

    return RatingSettings(
        get_evaluator(args.evaluator, args.weights, args.reaction),
        planner_settings(args),
        playouts=args.playouts,
        horizon=args.horizon,
        seed=args.seed,
    )


def _rate_video(args: argparse.Namespace) -> int:
    """nesbot rate GAME.mp4: the game read from the screen, rated at the given speed."""
    from nesbot.progress import Progress
    from nesbot.rating.game import rate_video
    from nesbot.rating.geometry import Geometry
    from nesbot.rating.screen import video_frames

    if args.video:
        raise NesbotError("--video films a replayed .fm2 log; a video has no log to replay")
    settings = _rating_settings(args)
    rom = find_rom(args)
    crop = Geometry.of_crop(*args.crop) if args.crop else None
    with ExitStack() as stack, warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always", NesbotWarning)
        reading_bars = stack.enter_context(ExitStack())
        reading = reading_bars.enter_context(
            Progress("rate: reading the video", video_frames(args.game), "frame")
        )
        rated = _rating_progress(stack, reading_bars)
        rating = rate_video(
            rom,
            args.game,
            settings,
            args.workers,
            on_rated=rated,
            on_frame=reading.advance_to,
            crop=crop,
        )
    for warning in said:  # a PAL capture: one line, not Python's two
        print(f"nesbot: warning: {warning.message}", file=sys.stderr)
    _print_rating(args, rating)
    return 0


def _print_rating(
    args: argparse.Namespace, rating: "GameRating", stills: dict[int, str] | None = None
) -> None:
    """The rating as asked: the report (with `stills`, a replay's, or a video's own
    frames), then a table, JSON or CSV."""
    from nesbot.rating.report import table, to_csv, to_json

    if args.report:
        from nesbot.rating.analysis_board import write_report

        write_report(rating, args.report, title=os.path.basename(args.game), stills=stills)
        print(f"wrote {args.report}", file=sys.stderr)
    if args.json:
        print(to_json(rating))
    elif args.csv:
        sys.stdout.write(to_csv(rating))
    else:
        print(table(rating))
