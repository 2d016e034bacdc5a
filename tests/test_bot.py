"""The bot on the real ROM: plans every piece, follows its plans without desyncs."""

import json
import subprocess
import sys

import pytest

from nesbot._core.buttons import DOWN, LEFT, RIGHT, A, B
from nesbot._core.game import Game
from nesbot.bot.policy import STRADDLED, Bot, _hold_presses, _lock_place
from nesbot.evaluation.evaluators import EVALUATORS
from nesbot.nes import ram
from nesbot.nes.timing import AND_ONSET

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
    "fallbacks",
    "truncated",
    "seed",
    "rom_md5",
}


def test_bot_plays_without_desyncs(emulator, new_game):
    new_game(19, seed=11)
    bot = Bot(EVALUATORS["meatfighter-2018"])
    pads = []
    for _ in range(2500):
        pad = bot(emulator.ram, emulator.frame)
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


@pytest.mark.xdist_group("late_steps")  # with the late whole-frames test: one wait to 56,300
def test_bot_follows_the_pad_poll_when_steps_straddle_it(emulator, new_game):
    """After about 57,000 nes-py steps the step boundary crosses the game's two pad reads:
    first a frame sees two steps' buttons ANDed, then the step before's alone
    (nesbot/bot/policy.py). The bot plays into that aligned, sends no new press while frames may
    read either way (AND_ONSET), and plays through the rest without a desync."""
    new_game(19, not_before=56_300)
    bot = Bot()
    previous, press_steps = 0, []
    while emulator.frame < 58_400 and emulator.ram[ram.PLAY_STATE] != ram.PLAY_TOPPED_OUT:
        pad = bot(emulator.ram, emulator.frame)
        emulator.step(pad)
        if pad & ~previous:
            press_steps.append(emulator.frame)
        previous = pad
    state = ram.decode(emulator.ram)
    assert bot.reading == STRADDLED
    assert bot.desyncs == 0
    assert not state.topped_out and state.lines >= 8
    assert not [step for step in press_steps if step in AND_ONSET]
    assert sum(step < AND_ONSET.start for step in press_steps) > 30  # it played aligned
    assert sum(step >= AND_ONSET.stop for step in press_steps) > 80  # and straddled


@pytest.mark.parametrize("seed", range(6))
def test_held_presses_lock_alike_whether_anded_or_late(seed):
    """A straddled frame sees its buttons ANDed with the next frame's, or alone: with every
    press held for a second frame, both lock the piece where the plan does."""
    bot = Bot()
    game = Game.start(19, 0x8988 + seed * 977)
    planner = bot._straddled_planner
    checked = 0
    for _ in range(12):
        while not game.active and not game.topped_out:
            game.step(0)
        if game.topped_out:
            break
        pads, x, y, orientation, _value = planner.plan(game)
        planned = (x, y, orientation)
        held = _hold_presses(game, pads, planned)
        anded = bytes(a & b for a, b in zip(held, held[1:] + bytes(1), strict=True))
        assert _lock_place(game, held) == planned
        assert _lock_place(game, anded) == planned
        checked += 1
        presses = LEFT | RIGHT | A | B
        for frame in range(len(held) - 1):  # every press lasts exactly two frames
            new = held[frame] & ~(held[frame - 1] if frame else 0) & presses
            assert held[frame + 1] & new == new
            after = held[frame + 2] if frame + 2 < len(held) else 0
            assert not after & new
        game.run(pads)
    assert checked >= 8  # the game did not top out before the presses were checked


@pytest.mark.slow
def test_play_json_video_and_log_replay(tmp_path, rom_path):
    from nesbot.show.video import read_video_frames

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
    assert (again["score"], again["lines"], again["level"], again["frames"]) == (
        summary["score"],
        summary["lines"],
        summary["level"],
        summary["frames"],  # game frames, counted alike; replay adds steps since power-on
    )
    assert again["matches_recorded"] is True and again["steps"] > again["frames"] + 24_000
    assert "matches the recorded game" in replayed.stderr
