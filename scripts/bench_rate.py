"""How long `nesbot rate` takes on a game like a person's: prints the replay's and the
rating's time and the pieces rated per second.

The game is recorded first, as a person's FCEUX log would be: from power-on, the menus
passed as soon as they allow (no wait for nes-py's aligned steps), played by an evaluator
weaker than nesbot's at a human tap rate, so that many placements differ from the best.

    .venv/bin/python scripts/bench_rate.py --pieces 500 --workers 2 [--report r.html]

With --report it also writes the analysis board and prints its time and size.
"""

import argparse
import tempfile
import time
import warnings
from pathlib import Path

from nesbot.bot.planning import PlannerSettings
from nesbot.bot.policy import Bot
from nesbot.bot.session import play_game
from nesbot.errors import NesbotWarning
from nesbot.evaluation.evaluators import get_evaluator
from nesbot.nes.emulator import Emulator
from nesbot.nes.fm2 import Fm2Writer, fceux_rom_md5, read_fm2
from nesbot.nes.menus import GameSetup, start_game
from nesbot.nes.polls import FrameRecorder
from nesbot.nes.rom import Rom, find_rom
from nesbot.rating.game import rate_pieces
from nesbot.rating.positions import logged_pieces
from nesbot.rating.rater import RatingSettings


def record(rom: Rom, path: Path, args: argparse.Namespace) -> tuple[int, int]:
    """A game of up to args.pieces pieces as an FCEUX movie: (pieces, steps since power-on).
    With args.align the menus wait for nes-py's aligned steps, where the bot plays without
    desyncs (a person's log starts soon after power-on, where the bot desyncs now and then:
    the game is still a game, only weaker play)."""
    settings = PlannerSettings(tap_hz=args.tap_hz, lookahead=args.lookahead)
    bot = Bot(get_evaluator(args.evaluator), settings)
    # The Bot warns once when it plays off the aligned steps: here that is the point.
    warnings.filterwarnings("ignore", category=NesbotWarning)
    setup = GameSetup(level=args.level, seed=args.seed)
    with Emulator(rom.path) as emu, Fm2Writer(path, fceux_rom_md5(rom.data)) as log:
        recorder = FrameRecorder(log)
        emu.observers.append(recorder)
        start_game(emu, setup, align=getattr(args, "align", False))
        watch_pieces = 0
        while watch_pieces < args.pieces:
            result = play_game(emu, setup, rom, policy=bot, max_frames=600)
            watch_pieces += result.pieces - 1
            if result.topped_out:
                break
        recorder.close()
        return watch_pieces, emu.frame


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rom")
    parser.add_argument("--log", type=Path, help="keep the recorded game here (else a temp file)")
    parser.add_argument("--pieces", type=int, default=500)
    parser.add_argument("--level", type=int, default=18)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--evaluator", default="el-tetris")
    parser.add_argument("--tap-hz", type=int, default=15)
    parser.add_argument("--lookahead", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--playouts", type=int, default=8)
    parser.add_argument("--report", type=Path, help="also write the analysis board here")
    args = parser.parse_args()
    rom = find_rom(args.rom)
    with tempfile.TemporaryDirectory() as temp:
        path = args.log or Path(temp) / "game.fm2"
        if not path.exists():
            pieces, frames = record(rom, path, args)
            print(f"recorded {pieces} pieces, {frames:,} steps since power-on: {path}")
        log = read_fm2(path)
        # the default evaluator, as `nesbot rate` judges
        settings = RatingSettings(get_evaluator(), playouts=args.playouts)
        start = time.perf_counter()
        pieces = list(logged_pieces(rom, log))
        replayed = time.perf_counter()
        rating = rate_pieces(pieces, settings, workers=args.workers)
        done = time.perf_counter()
    total = done - start
    summary = rating.summary()["game"]
    print(f"replay {replayed - start:.1f} s, rating {done - replayed:.1f} s")
    workers = f"{args.workers} worker{'s' * (args.workers != 1)}"
    print(
        f"rated {len(rating.ratings)} placements in {total:.1f} s on {workers} "
        f"({len(rating.ratings) / total:.1f}/s); accuracy {summary['accuracy']:.1%}, "
        f"{sum(r.best != r.player for r in rating.ratings)} placements not the best"
    )
    if args.report:
        start = time.perf_counter()
        rating.write_report(args.report)
        took = time.perf_counter() - start
        print(f"report {args.report}: {args.report.stat().st_size:,} bytes in {took:.2f} s")


if __name__ == "__main__":
    main()
