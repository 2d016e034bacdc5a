"""The bot on the real ROM: plans every piece, follows its plans without desyncs."""

import json
import subprocess
import sys

from cython_core.buttons import DOWN
from nesbot import ram
from nesbot.bot import Bot
from nesbot.evaluators import EVALUATORS

PLAY_KEYS = {
    "score",
    "lines",
    "level",
    "start_level",
    "pieces",
    "frames",
    "tetrises",
    "maxout",
    "maxout_lines",
    "topped_out",
    "desyncs",
    "plan_ms_p50",
    "plan_ms_p99",
    "seed",
    "rom_md5",
}


def test_bot_plays_without_desyncs(emulator, new_game):
    new_game(19, seed=11)
    bot = Bot(EVALUATORS["meatfighter-2018"])
    pads = []
    for _ in range(2500):
        pad = bot(emulator.ram)
        pads.append(pad)
        emulator.step(pad)
        if emulator.ram[ram.PLAY_STATE] == ram.PLAY_TOPPED_OUT:
            break
    state = ram.decode(emulator.ram)
    assert bot.desyncs == 0
    assert sum(pad == DOWN for pad in pads) > 200  # placements end in a soft drop (points)
    assert len(bot.plan_seconds) >= 40  # one plan per piece
    assert not state.topped_out and state.lines >= 10
    assert not any(pad & 0x0C for pad in pads)  # never Start or Select


def test_play_json_video_and_log_replay(tmp_path, rom_path):
    from nesbot.video import read_video_frames

    log, video = tmp_path / "game.fm2", tmp_path / "game.mp4"
    played = subprocess.run(
        [
            sys.executable,
            "-m",
            "nesbot",
            "play",
            "--rom",
            str(rom_path),
            "--seed",
            "2",
            "--max-frames",
            "900",
            "--json",
            "--log",
            str(log),
            "--video",
            str(video),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    summary = json.loads(played.stdout)
    assert set(summary) == PLAY_KEYS
    assert summary["start_level"] == 19 and summary["seed"] == 2 and summary["desyncs"] == 0
    assert summary["frames"] == 900 and summary["pieces"] > 10
    assert read_video_frames(video) == 900  # every frame of the game
    replayed = subprocess.run(
        [sys.executable, "-m", "nesbot", "replay", str(log), "--rom", str(rom_path), "--json"],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    again = json.loads(replayed.stdout)
    assert (again["score"], again["lines"], again["level"]) == (
        summary["score"],
        summary["lines"],
        summary["level"],
    )
