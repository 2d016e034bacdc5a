"""What recording costs the game: `play --video` against `play` on the same game.

Boots once, saves the game's first frame, and lets a fresh bot play the same frames from
there, in turn: without video, with `--video` (H.264, scale 3) and `--video --overlay`, each
with nesbot's own writer and with `--codec x264`.
Each timing runs from the game's first frame until the video file is closed (the encoder's
queue drained and the index written), so the figure is what a user waits; the encoder
process has started before, as in `play`, which starts it before the boot. The kinds take
turns for `--rounds` rounds; a kind's share is the median over the rounds of its speed
against the round's run without video, so that a slow spell of the machine, which falls on
one round, does not tilt one kind. It also prints the CPU time per frame of the game's
thread and of the encoder process: the wall-clock ratio needs the second core free, and the
load average says whether it was.

.venv/bin/python scripts/bench_video.py [--frames 6000] [--rounds 5] [--seed 4]
"""

import argparse
import contextlib
import os
import resource
import statistics
import tempfile
import time
from pathlib import Path

from bench_game import BootedGame, add_game_options, booted_game, fresh_bot

from nesbot.bot.session import play_game
from nesbot.show.frames import WholeFrames
from nesbot.show.video import VideoWriter, probe_video

KINDS = (
    "no video",
    "--video",
    "--video --overlay",
    "--video --codec x264",
    "--video --overlay --codec x264",
)


def timed_game(game: BootedGame, frames: int, kind: str, folder: Path):
    """Seconds for `frames` frames of the bot's game from its first frame, and the result.

    As `play` does, the video writer is started before the game (play starts it before the
    boot), and the clock stops once the file is closed."""
    bot, watch = fresh_bot(game)
    emu, setup, rom = game.emu, game.setup, game.rom
    path = folder / f"{kind.replace(' ', '_').replace('-', '')}.mp4"
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    with contextlib.ExitStack() as stack:
        if kind != "no video":
            overlay = "overlay" in kind
            writer = VideoWriter(path, overlay=overlay, codec="x264" if "x264" in kind else None)
            stack.enter_context(writer)
            writer.wait_started()
            whole = WholeFrames(watch.info if overlay else None)
            whole(0, emu)  # the game's first picture, as in play
            whole.consumers.append(writer)
            emu.observers.append(whole)
        cpu = time.thread_time()
        started = time.perf_counter()
        result = play_game(emu, setup, rom, bot, max_frames=frames, watch=watch)
    seconds = time.perf_counter() - started
    game_cpu = time.thread_time() - cpu
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the encoder, once it has ended
    encoder_cpu = max(0.0, after.ru_utime + after.ru_stime - children.ru_utime - children.ru_stime)
    emu.observers.clear()
    size = 0
    if kind != "no video":
        facts = probe_video(path)
        assert facts.frames == result.frames, (facts.frames, result.frames)
        size = path.stat().st_size
    return seconds, game_cpu, encoder_cpu, result, size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--frames", type=int, default=6000, help="game frames per run (6000)")
    parser.add_argument("--rounds", type=int, default=5, help="runs of each kind (5)")
    add_game_options(parser)
    args = parser.parse_args()

    seconds: dict[str, list[float]] = {kind: [] for kind in KINDS}
    cpu: dict[str, list[tuple[float, float]]] = {kind: [] for kind in KINDS}
    sizes: dict[str, int] = {}
    with booted_game(args) as game, tempfile.TemporaryDirectory() as folder:
        results = set()
        for round_ in range(args.rounds):
            # Each round starts with another kind, so that none always runs first or last.
            first = round_ % len(KINDS)
            for kind in KINDS[first:] + KINDS[:first]:
                spent, game_cpu, encoder_cpu, result, sizes[kind] = timed_game(
                    game, args.frames, kind, Path(folder)
                )
                seconds[kind].append(spent)
                cpu[kind].append((game_cpu, encoder_cpu))
                results.add((result.frames, result.score, result.lines))
    if len(results) != 1:
        raise SystemExit(f"the runs played different games: {sorted(results)}")
    frames, score, lines = results.pop()
    print(f"game: seed {args.seed}, {frames} frames, score {score}, lines {lines}")
    for kind in KINDS:
        spent = statistics.median(seconds[kind])
        # Each round's own ratio: the runs of a round are seconds apart, so a slow spell of
        # the machine falls on all of its kinds alike.
        shares = [b / s for s, b in zip(seconds[kind], seconds["no video"], strict=True)]
        runs = " ".join(f"{share:.0%}" for share in shares)
        game_ms = statistics.median(g for g, _ in cpu[kind]) / frames * 1e3
        encoder_ms = statistics.median(e for _, e in cpu[kind]) / frames * 1e3
        print(
            f"{kind:<18} {frames / spent:6.1f} frames/s  ({statistics.median(shares):.1%} of no "
            f"video, median of the rounds: {runs}); CPU per frame: game {game_ms:.2f} ms, "
            f"encoder {encoder_ms:.2f} ms"
            + (f"; file {sizes[kind] / frames / 1e3:.2f} kB/frame" if sizes[kind] else "")
        )
    # The wall-clock figures need the second core free; on a shared machine the CPU times
    # say what two free cores would give: the slower of game and encoder sets the pace.
    print(f"load average while measuring: {os.getloadavg()[0]:.2f} (2 cores)")


if __name__ == "__main__":
    main()
