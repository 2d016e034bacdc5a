"""What a busy second core costs the game: `play` alone and beside three kinds of load.

The video encoder runs on the second core (nesbot/show/video/); on a machine whose two cores
share caches, memory or a physical core, any work there slows the game, whatever that work
is. This separates the kinds: a Python busy loop (the core's pipeline), a copy loop over
64 MB (memory bandwidth) and one over 1 MB (the shared caches, the size of x264's working
set at 720 lines). Each runs in a process of its own while the bot plays `--frames` frames
of the same game; the kinds are interleaved for `--rounds` rounds, medians printed.

.venv/bin/python scripts/bench_contention.py [--frames 4000] [--rounds 3] [--seed 4]
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

from bench_game import add_game_options, booted_game, fresh_bot

from nesbot.bot.session import play_game

COPY_LOOP = (
    "import numpy as np\n"
    "a = np.zeros({size}, np.uint8)\n"
    "b = np.empty_like(a)\n"
    "while True:\n"
    "    np.copyto(b, a)\n"
)
LOADS = {
    "alone": None,
    "busy loop": "while True: pass",
    "copy 64 MB": COPY_LOOP.format(size=64 << 20),
    "copy 1 MB": COPY_LOOP.format(size=1 << 20),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--frames", type=int, default=4000, help="game frames per run (4000)")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each kind (3)")
    add_game_options(parser)
    args = parser.parse_args()

    runs: dict[str, list[tuple[float, float]]] = {kind: [] for kind in LOADS}
    with booted_game(args) as game:
        for _ in range(args.rounds):
            for kind, code in LOADS.items():
                load = subprocess.Popen([sys.executable, "-c", code]) if code else None
                try:
                    time.sleep(0.5)  # the load is running before the game starts
                    bot, watch = fresh_bot(game)
                    started, cpu = time.perf_counter(), time.thread_time()
                    result = play_game(
                        game.emu, game.setup, game.rom, bot, max_frames=args.frames, watch=watch
                    )
                    seconds = time.perf_counter() - started
                    cpu_ms = (time.thread_time() - cpu) / result.frames * 1e3
                    runs[kind].append((result.frames / seconds, cpu_ms))
                finally:
                    if load:
                        load.kill()
                        load.wait()
    alone = statistics.median(rate for rate, _ in runs["alone"])
    for kind, measured in runs.items():
        rate = statistics.median(r for r, _ in measured)
        cpu_ms = statistics.median(c for _, c in measured)
        print(
            f"{kind:<11} {rate:6.0f} frames/s ({rate / alone:.0%} of alone); "
            f"game CPU per frame {cpu_ms:.2f} ms"
        )
    print(f"load average while measuring: {os.getloadavg()[0]:.2f} (2 cores)")


if __name__ == "__main__":
    main()
