"""`nesbot read-screen`: what one picture of a game shows, as text or JSON."""

import argparse
import json

from nesbot.cli.options import add_crop_option, add_rom_options, find_rom, whole_number

NAME = "read-screen"
HELP = "read the board, counters and next piece of an image or a video frame of NES Tetris"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("picture", metavar="IMAGE|VIDEO", help="an image, or a video")
    parser.add_argument(
        "--frame", type=whole_number, default=0, help="the video's frame to read (0)"
    )
    parser.add_argument("--json", action="store_true", help="print the reading as JSON")
    add_crop_option(parser)
    add_rom_options(parser)


def run(args: argparse.Namespace) -> int:
    from nesbot.rating.read_screen import read_screen

    reading = read_screen(args.picture, frame=args.frame, crop=args.crop, rom=find_rom(args))
    if args.json:
        print(json.dumps(reading.as_json()))
        return 0
    g, sure = reading.geometry, reading.confidence
    print(
        f"found at x {g.left:.1f}, y {g.top:.1f}, {g.sx:.3f} x {g.sy:.3f} pixels a NES pixel "
        f"(match {g.match:.2f})"
    )
    level = reading.level
    shown_level = (
        level
        if level is None or reading.level_text == f"{level:02d}"
        else f"{level} (shown {reading.level_text})"
    )
    for name, value in (
        ("lines", reading.lines),
        ("score", reading.score),
        ("level", shown_level),
        ("next", reading.next),
    ):
        print(
            f"{name:6s} {'unreadable' if value is None else value}  (confidence {sure[name]:.2f})"
        )
    print(f"board  (confidence {sure['board']:.2f})")
    for row in reading.board_rows():
        print("  " + row)
    return 0
