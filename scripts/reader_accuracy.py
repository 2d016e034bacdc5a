"""How well `nesbot rate GAME.mp4` reads games from videos: per cell and per placement, on
nesbot's own recordings (whose true game its input log replays) and on copies degraded as
captures are. Prints a table; the recordings and copies stay in --dir (resumable).

    .venv/bin/python scripts/reader_accuracy.py --dir reader-games --games 10

Game k starts at level 10 + k % 10 (every level palette of the ROM), seed k x --seed-step
modulo 1,000 (the real ROM's seeds), and is recorded for --frames frames at 720 lines by
`nesbot play --video --log`. A fresh set, apart from the one the reader was tuned on
(games 1-10, seeds 1-10):

    .venv/bin/python scripts/reader_accuracy.py --dir reader-fresh --first 11 --games 30 \
        --seed-step 97

(a seed is the frames the level menu waits; waits a few frames apart deal nearly the same
pieces, so the step keeps the fresh games' waits far from the first set's). The copies:

* 480:       rescaled to 480 lines (INTER_AREA), H.264 at 600 kbit/s;
* interlace: 480 lines, each frame two fields of two game frames (30 frames/s), 1.5 Mbit/s;
* colour:    480 lines, the channels scaled and shifted and a gamma, 600 kbit/s;
* all:       480 lines, interlaced, colour-shifted, 1 Mbit/s;
* and the captures of nesbot.rating.capture_model.KINDS: card (an NTSC console through a
  capture card: 720x480, 8:7, borders, the top cut, composite blur and chroma bleed,
  lifted black, gamma, noise, 1 Mbit/s), card-interlaced (the same, a field a game frame),
  pal (720x576, the picture in 480 lines, borders all round, composite) and stretch
  (1280x720, 16:9, the overscan cut, 2 Mbit/s).

A placement is right when the reader's piece, the stack it fell on and where it locked are
the log's; invented when the reader accepts a placement the log does not have. A cell is
right when the stack the reader read at a spawn has it as the log's stack does; a digit
when the lines (3), score (6) or level (2) read at a spawn have it as the log's do there
(an unreadable counter: all its digits wrong); the next piece likewise.
"""

import argparse
import itertools
import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import av
import cv2
import numpy as np

from nesbot.nes.fm2 import read_fm2
from nesbot.nes.rom import find_rom
from nesbot.rating.capture_model import KINDS, capture
from nesbot.rating.positions import logged_pieces
from nesbot.rating.screen import pieces_from_spawns, read_states, spawns

NES_RATE = Fraction(39375000, 655171)  # frames per second of the NTSC NES
SEEDS = 1000  # the real ROM's seeds are 0-999 (nesbot.nes.menus)


def record(directory: Path, game: int, frames: int, seed: int) -> tuple[Path, Path]:
    video, log = directory / f"game{game}.mp4", directory / f"game{game}.fm2"
    if not video.exists():
        level = 10 + game % 10
        parts = [path.with_name(f"{path.stem}.part{path.suffix}") for path in (video, log)]
        subprocess.run(
            [sys.executable, "-m", "nesbot", "play", "--level", str(level), "--seed", str(seed),
             "--max-frames", str(frames), "--video", str(parts[0]), "--log", str(parts[1])],
            check=True, stdout=subprocess.DEVNULL,
        )  # fmt: skip
        parts[1].rename(log)
        parts[0].rename(video)  # last: a stopped run records the game again
    return video, log


def _shift_colour(rgb: np.ndarray) -> np.ndarray:
    out = rgb.astype(np.float32) / 255
    out = out**0.85 * np.array([0.9, 1.08, 0.82]) + np.array([0.03, -0.02, 0.05])
    return np.clip(out * 255, 0, 255).astype(np.uint8)


def degrade(clean: Path, out: Path, kind: str) -> Path:
    """A degraded copy of `clean` (see the module's docstring)."""
    if out.exists():
        return out
    if kind in KINDS:
        model, rng = KINDS[kind], np.random.default_rng(0)

        def picture_of(rgb: np.ndarray) -> np.ndarray:
            nes = cv2.resize(rgb, (256, 240), interpolation=cv2.INTER_AREA)  # 1x, exactly
            return capture(nes, model, rng)

        interlaced, bit_rate = model.interlaced, model.bit_rate
    else:
        colour = kind in ("colour", "all")

        def picture_of(rgb: np.ndarray) -> np.ndarray:
            width = round(rgb.shape[1] * 480 / rgb.shape[0] / 2) * 2
            picture = cv2.resize(rgb, (width, 480), interpolation=cv2.INTER_AREA)
            return _shift_colour(picture) if colour else picture

        interlaced = kind in ("interlace", "all")
        bit_rate = {"480": 600_000, "interlace": 1_500_000, "colour": 600_000, "all": 1_000_000}[
            kind
        ]
    _encode(clean, out, picture_of, interlaced, bit_rate)
    return out


def _encode(clean: Path, out: Path, picture_of, interlaced: bool, bit_rate: int) -> None:
    """Each frame of `clean` through `picture_of`, two a picture (a field each) when
    `interlaced`, as H.264 at `bit_rate`."""
    partial = out.with_name(f"{out.stem}.part{out.suffix}")  # a stopped run leaves no copy
    with av.open(str(clean)) as source, av.open(str(partial), "w") as target:
        stream = target.add_stream("libx264", rate=NES_RATE / 2 if interlaced else NES_RATE)
        stream.bit_rate = bit_rate
        stream.pix_fmt = "yuv420p"
        held = None
        for frame in source.decode(video=0):
            picture = picture_of(frame.to_ndarray(format="rgb24"))
            if not stream.codec_context.is_open:
                stream.height, stream.width = picture.shape[:2]
            if interlaced:
                if held is None:
                    held = picture
                    continue
                woven = held.copy()
                woven[1::2] = picture[1::2]  # top field the earlier frame, bottom the later
                picture, held = woven, None
            for packet in stream.encode(av.VideoFrame.from_ndarray(picture, format="rgb24")):
                target.mux(packet)
        for packet in stream.encode():
            target.mux(packet)
    partial.rename(out)


def accuracy(video: Path, truth: list, rom, frames_per_picture: int) -> dict:
    _geometry, states = read_states(video, rom)
    found = spawns(states)
    read = pieces_from_spawns(found)
    placed = {(p.position.rows, p.position.piece, p.place) for p in truth if p.place}
    right = sum((p.position.rows, p.position.piece, p.place) in placed for p in read if p.place)
    accepted = sum(p.place is not None for p in read)
    # A truth placement the video can show: its next piece appears before the video ends.
    last_frame = states[-1].frame * frames_per_picture if states else 0
    first_step = truth[0].step
    visible = sum(
        1
        for piece, following in itertools.pairwise(truth)
        if piece.place and following.step - first_step + 2 <= last_frame
    )
    # Cells: each read stack against the log's stack at the nearest spawn.
    steps = np.array([p.step - first_step for p in truth])
    cells = cells_right = digits = digits_right = nexts = nexts_right = 0
    for spawn in found:
        at = spawn.frame * frames_per_picture
        nearest = int(np.argmin(np.abs(steps - at)))
        if abs(steps[nearest] - at) <= frames_per_picture + 1:
            position = truth[nearest].position
            mine = np.array(spawn.stack)
            theirs = np.array(position.rows)
            differing = np.bitwise_xor(mine, theirs)
            cells += 200
            cells_right += 200 - sum(bin(int(row)).count("1") for row in differing)
            for read, true, width in (
                (spawn.lines, position.lines, 3),
                (spawn.score, position.score, 6),
                (spawn.level, position.level, 2),
            ):
                digits += width
                if read is not None:
                    pairs = zip(f"{read:0{width}d}", f"{true:0{width}d}", strict=False)
                    digits_right += sum(a == b for a, b in pairs)
            nexts += 1
            nexts_right += spawn.next == position.next
    return {
        "placements": visible,
        "right": right,
        "invented": accepted - right,
        "cells": cells,
        "cells_right": cells_right,
        "digits": digits,
        "digits_right": digits_right,
        "nexts": nexts,
        "nexts_right": nexts_right,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", type=Path, required=True)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--first", type=int, default=1, help="start at this game (split a run)")
    parser.add_argument("--frames", type=int, default=6000)
    parser.add_argument(
        "--seed-step", type=int, default=1, help="game k plays seed k x this, modulo 1,000"
    )
    parser.add_argument(
        "--kinds", nargs="*", default=["clean", "480", "interlace", "colour", "all"]
    )
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    rom = find_rom(None)
    results = args.dir / "results.jsonl"
    done = set()
    if results.exists():
        done = {(r["game"], r["kind"]) for r in map(json.loads, results.open())}
    for game in range(args.first, args.games + 1):
        clean, log = record(args.dir, game, args.frames, game * args.seed_step % SEEDS)
        truth: list | None = None
        for kind in args.kinds:
            if (game, kind) in done:
                continue
            video = (
                clean
                if kind == "clean"
                else degrade(clean, args.dir / f"game{game}-{kind}.mp4", kind)
            )
            interlaced = kind in ("interlace", "all") or (kind in KINDS and KINDS[kind].interlaced)
            step = 2 if interlaced else 1
            truth = truth or list(logged_pieces(rom, read_fm2(log)))
            row = {"game": game, "kind": kind} | accuracy(video, truth, rom, step)
            with results.open("a") as out:
                out.write(json.dumps(row) + "\n")
            print(json.dumps(row), flush=True)
    latest = {(r["game"], r["kind"]): r for r in map(json.loads, results.open())}
    rows = list(latest.values())
    names = ("copy", "games", "placements", "right", "invented", "cells right", "all right")
    print(
        f"{names[0]:15} {names[1]:>5} {names[2]:>10} {names[3]:>8} {names[4]:>8} "
        f"{names[5]:>12} {names[6]:>9} {'digits right':>13} {'next right':>11}"
    )
    for kind in args.kinds:
        mine = [r for r in rows if r["kind"] == kind]
        if not mine:
            continue
        total = sum(r["placements"] for r in mine)
        right = sum(r["right"] for r in mine)
        cells = sum(r["cells_right"] for r in mine) / max(1, sum(r["cells"] for r in mine))
        whole = sum(r["right"] == r["placements"] and not r["invented"] for r in mine)
        digits = sum(r.get("digits_right", 0) for r in mine) / max(
            1, sum(r.get("digits", 0) for r in mine)
        )
        nexts = sum(r.get("nexts_right", 0) for r in mine) / max(
            1, sum(r.get("nexts", 0) for r in mine)
        )
        print(
            f"{kind:15} {len(mine):>5} {total:>10} {right / total:>8.2%} "
            f"{sum(r['invented'] for r in mine):>8} {cells:>12.4%} {whole:>9} "
            f"{digits:>13.4%} {nexts:>11.2%}"
        )


if __name__ == "__main__":
    main()
