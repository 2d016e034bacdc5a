"""What play, replay and rate write and show, from their options: paths checked before a
long run, the pictures of a replayed log (nesbot.show.destinations does the wiring), progress on
stderr, and the files kept, named at the end."""

import argparse
import sys
from collections.abc import Callable
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any

from nesbot.errors import NesbotError
from nesbot.output_file import file_identity

if TYPE_CHECKING:
    from nesbot.nes.emulator import Emulator
    from nesbot.nes.fm2 import InputLog
    from nesbot.show.watch import GameWatch

Observer = Callable[[int, "Emulator"], None]


def scale(args: argparse.Namespace) -> int:
    from nesbot.show.overlay import check_scale

    return check_scale(args.scale)


def check_codec(args: argparse.Namespace) -> None:
    if args.codec is not None and not args.video:
        raise NesbotError("--codec chooses the encoder of --video: give --video FILE.mp4 too")


def check_overlay(args: argparse.Namespace, outputs: str) -> None:
    if args.overlay and not any(getattr(args, name, None) for name in ("video", "show", "still")):
        raise NesbotError(f"--overlay draws on {outputs}: give one of them")


def replay_pictures(
    args: argparse.Namespace,
    stack: ExitStack,
    watch: "GameWatch | None" = None,
    game_only: bool = False,
) -> tuple[Observer, ...]:
    """The emulator observers a replay's --video, --show, --overlay and --realtime ask for;
    `watch` says what the overlay draws (a GameWatch: the figures alone by default);
    `game_only` leaves the menus out of the video."""
    observers: list[Any] = []
    if args.realtime:
        from nesbot.show.pace import Pacer

        observers.append(Pacer())
    if not (args.video or args.show):
        return tuple(observers)
    from nesbot.show.destinations import open_window, whole_frames
    from nesbot.show.watch import GameWatch

    size = scale(args)
    watch = watch or GameWatch()  # the panel's figures; a replay has no plan to outline
    window = open_window(stack, size, args.overlay, args.realtime) if args.show else None
    frames, _ = whole_frames(
        stack,
        watch,
        video=args.video,
        scale=size,
        overlay=args.overlay,
        codec=args.codec,
        window=window,
        game_only=game_only,
    )
    observers[:0] = [watch, frames]  # first: the pacer waits after the picture is out
    return tuple(observers)


def step_progress(what: str, log: "InputLog", stack: ExitStack) -> Observer:
    """An emulator observer showing progress through the log's steps (nesbot.progress)."""
    from nesbot.nes.movie_steps import log_steps
    from nesbot.progress import Progress

    steps = log_steps(log, lambda conflict: None).steps
    bar = stack.enter_context(Progress(what, steps, "step"))
    return lambda pad, emu: bar.advance_to(emu.frame)


FileIds = dict[str, tuple[int, int] | str]


def file_ids(paths: dict[str, str | None]) -> FileIds:
    """Each given path's file now (nesbot.output_file.file_identity), for name_files."""
    return {what: file_identity(path) for what, path in paths.items() if path}


def name_files(paths: dict[str, str | None], ending: str, before: FileIds) -> None:
    """Say where the files the run wrote are: those not the file `before` (file_ids) found
    there, as each is renamed into place, a new file. An older file left alone, such as a
    video stopped before its first frame, is not named."""
    now = file_ids(paths)
    kept = [
        f"{what} {paths[what]}"
        for what, found in now.items()
        if isinstance(found, tuple) and found != before[what]
    ]
    if kept:
        print(f"{ending}: " + ", ".join(kept), file=sys.stderr)
