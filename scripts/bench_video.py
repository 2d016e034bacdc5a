"""What recording costs the game: `play --video` against `play` on the same game.

Boots once, saves the game's first frame, and lets a fresh bot play the same frames from
there, in turn: without video, with `--video` (H.264, scale 3), and with `--video --overlay`.
Each timing runs from the game's first frame until the video file is closed (the encoder's
queue drained and the index written), so the figure is what a user waits. The runs are
interleaved for `--rounds` rounds and the median of each kind is taken, so that a burst of
other work on the machine falls on one run, not on one kind. It also prints the CPU time per
frame of the game's thread and of the encoder process: the wall-clock ratio needs the
second core free, and the load average says whether it was.

.venv/bin/python scripts/bench_video.py [--frames 6000] [--rounds 3] [--seed 4]
"""

import argparse
import os
import resource
import statistics
import tempfile
import time
from pathlib import Path

from bench_game import BootedGame, add_game_options, booted_game, fresh_bot

from nesbot.play import play_game
from nesbot.video import VideoWriter, probe_video

KINDS = ("no video", "--video", "--video --overlay")


def timed_game(game: BootedGame, frames: int, kind: str, folder: Path):
    """Seconds for `frames` frames of the bot's game from its first frame, and the result."""
    bot, watch = fresh_bot(game)
    emu, setup, rom = game.emu, game.setup, game.rom
    path = folder / f"{kind.replace(' ', '_').strip('-')}.mp4"
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = time.thread_time()
    started = time.perf_counter()
    if kind == "no video":
        result = play_game(emu, setup, rom, bot, max_frames=frames, watch=watch)
    else:
        overlay = "overlay" in kind
        with VideoWriter(path, overlay=overlay, info=watch.info) as writer:
            emu.observers.append(writer)
            result = play_game(emu, setup, rom, bot, max_frames=frames, watch=watch)
    seconds = time.perf_counter() - started
    game_cpu = time.thread_time() - cpu
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the encoder, once it has ended
    encoder_cpu = after.ru_utime + after.ru_stime - children.ru_utime - children.ru_stime
    emu.observers.clear()
    if kind != "no video":
        facts = probe_video(path)
        assert facts.frames == result.frames, (facts.frames, result.frames)
    return seconds, game_cpu, encoder_cpu, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--frames", type=int, default=6000, help="game frames per run (6000)")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each kind (3)")
    add_game_options(parser)
    args = parser.parse_args()

    seconds: dict[str, list[float]] = {kind: [] for kind in KINDS}
    cpu: dict[str, list[tuple[float, float]]] = {kind: [] for kind in KINDS}
    with booted_game(args) as game, tempfile.TemporaryDirectory() as folder:
        results = set()
        for _ in range(args.rounds):
            for kind in KINDS:
                spent, game_cpu, encoder_cpu, result = timed_game(
                    game, args.frames, kind, Path(folder)
                )
                seconds[kind].append(spent)
                cpu[kind].append((game_cpu, encoder_cpu))
                results.add((result.frames, result.score, result.lines))
    if len(results) != 1:
        raise SystemExit(f"the runs played different games: {sorted(results)}")
    frames, score, lines = results.pop()
    base = statistics.median(seconds["no video"])
    print(f"game: seed {args.seed}, {frames} frames, score {score}, lines {lines}")
    for kind in KINDS:
        spent = statistics.median(seconds[kind])
        runs = " ".join(f"{frames / s:.0f}" for s in seconds[kind])
        game_ms = statistics.median(g for g, _ in cpu[kind]) / frames * 1e3
        encoder_ms = statistics.median(e for _, e in cpu[kind]) / frames * 1e3
        print(
            f"{kind:<18} {frames / spent:6.1f} frames/s  ({base / spent:.1%} of no video; "
            f"runs: {runs}); CPU per frame: game {game_ms:.2f} ms, encoder {encoder_ms:.2f} ms"
        )
    # The wall-clock figures need the second core free; on a shared machine the CPU times
    # say what two free cores would give: the slower of game and encoder sets the pace.
    print(f"load average while measuring: {os.getloadavg()[0]:.2f} (2 cores)")


if __name__ == "__main__":
    main()
