"""What each .mp4 encoder costs per frame and how large its file is, on the same pictures.

Records `--frames` whole frames of a level-19 bot game (seed `--seed`) once, then encodes
them in this process with nesbot's lossless writer and with x264 at a few presets, at scale
3 with and without the overlay. CPU time per frame is the encoder's alone (what the
encoder process spends beside the game); size is the file's bytes per frame. This is how
`--codec x264`'s preset was chosen (docs/videos.md).

.venv/bin/python scripts/bench_codecs.py [--frames 2000] [--seed 4]
"""

import argparse
import os
import tempfile
import time
from pathlib import Path

from bench_game import add_game_options, booted_game, fresh_bot

from nesbot.show.frames import WholeFrames
from nesbot.show.video import formats
from nesbot.show.video.muxing import Encoder

X264_SETTINGS = (
    {"preset": "ultrafast", "crf": "20"},
    {"preset": "superfast", "crf": "20"},
    {"preset": "veryfast", "crf": "20"},
    {"preset": "veryfast", "tune": "animation", "crf": "20"},
    {"preset": "superfast", "crf": "23"},
)


def encode(pictures: list, path: Path, overlay: bool, codec: str) -> tuple[float, float]:
    """CPU ms and file kB per frame of encoding `pictures` (pairs of picture and info)."""
    encoder = Encoder(path, 3, overlay, codec)
    started = time.process_time()
    for picture, info in pictures:
        encoder.encode(encoder.prepare(picture, info))
    encoder.finish()
    spent = time.process_time() - started
    return spent / len(pictures) * 1e3, os.path.getsize(path) / len(pictures) / 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--frames", type=int, default=2000, help="whole frames to encode")
    add_game_options(parser)
    args = parser.parse_args()
    pictures = []
    with booted_game(args) as game:
        bot, watch = fresh_bot(game)
        emu = game.emu
        whole = WholeFrames(watch.info)
        whole.consumers.append(lambda picture, info, step: pictures.append((picture.copy(), info)))
        whole(0, emu)
        emu.observers.append(whole)
        while len(pictures) < args.frames:
            emu.step(bot(emu.ram, emu.frame))
    print(f"{len(pictures)} whole frames of seed {args.seed}, level 19, scale 3")
    chosen = formats.FORMATS[".mp4", "x264"]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.mp4"
        for overlay in (False, True):
            label = "with the overlay" if overlay else "without the overlay"
            ms, kb = encode(pictures, path, overlay, "nesbot")
            print(f"{label}: nesbot {ms:.2f} ms/frame, {kb:.2f} kB/frame")
            for settings in X264_SETTINGS:
                formats.FORMATS[".mp4", "x264"] = formats.Format(
                    "mp4", "libx264", settings, chosen.container_options
                )
                ms, kb = encode(pictures, path, overlay, "x264")
                mark = " (--codec x264)" if settings == chosen.codec_options else ""
                print(f"{label}: x264 {settings}{mark} {ms:.2f} ms/frame, {kb:.2f} kB/frame")
    formats.FORMATS[".mp4", "x264"] = chosen


if __name__ == "__main__":
    main()
