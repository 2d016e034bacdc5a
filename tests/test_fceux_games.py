"""The bot's games, written as FCEUX frames, are the same games in FCEUX itself: from levels
0, 18 (with an 18-frame reaction) and 19, and one that plays on past step 57,000, where the
pad poll straddles two of nes-py's steps (docs/steps.md, "FCEUX's frames"). FCEUX's picture
of each game's last frame is read by the screen reader: the counters and next piece RAM
holds, in another emulator's palette."""

import pytest
from fceux import FCEUX, MISSING, XVFB_RUN, fceux_end_state
from test_nes_frames import end_state_as_fceux_reads

from nesbot._core.pieces import PIECE_NAMES, PIECE_TYPE
from nesbot.bot.planning import PlannerSettings
from nesbot.bot.policy import Bot
from nesbot.bot.session import play_game
from nesbot.evaluation.evaluators import get_evaluator
from nesbot.nes.fm2 import fceux_rom_md5, write_fm2
from nesbot.nes.menus import GameSetup, start_game
from nesbot.rating.read_screen import read_screen

pytestmark = pytest.mark.skipif(FCEUX is None or XVFB_RUN is None, reason=MISSING)


def play_and_compare(tmp_path, rom, emulator, level_menu_at, setup, reaction, start_after, until):
    """Play `setup` with the bot from the level menu at step `start_after` (the boot's, if
    earlier) to step `until`, written as FCEUX frames from power-on; the end states in
    nes-py and in FCEUX, and the game's result. FCEUX's is read after its last frame's
    logic; nes-py's too (test_nes_frames.end_state_as_fceux_reads). FCEUX's picture (tmp_path /
    "fceux.png") is taken before its last frame runs: the end state's "shot_next" is the
    next piece its preview shows."""
    recorder = level_menu_at(start_after)
    emulator.observers[:] = [recorder]
    try:
        start_game(emulator, setup)
        bot = Bot(get_evaluator(None, None, reaction), PlannerSettings(reaction=reaction))
        result = play_game(emulator, setup, rom, bot, max_frames=until - emulator.frame)
        recorder.close()
    finally:
        emulator.observers.clear()
    nes_py = end_state_as_fceux_reads(emulator)
    movie = tmp_path / "nesbot.nes.fm2"
    write_fm2(movie, bytes(recorder.log.frames), fceux_rom_md5(rom.data))
    fceux = fceux_end_state(movie, rom.path, screenshot=tmp_path / "fceux.png")
    fceux.pop("frames")
    return nes_py, fceux, result, fceux.pop("shot_next")


@pytest.mark.parametrize(
    ("level", "reaction", "frames"), [(0, 0, 4_000), (18, 18, 2_500), (19, 0, 2_500)]
)
def test_the_bots_game_is_the_same_game_in_fceux(
    tmp_path, rom, emulator, boot, level_menu_at, level, reaction, frames
):
    start = boot.state.frame
    nes_py, fceux, result, shown_next = play_and_compare(
        tmp_path,
        rom,
        emulator,
        level_menu_at,
        GameSetup(level=level, seed=3),
        reaction,
        start,
        start + frames,
    )
    assert result.lines >= 4 and nes_py["game_mode"] == 4
    assert fceux == nes_py
    # Another emulator's picture (FCEUX's palette and renderer) read by the screen reader.
    reading = read_screen(tmp_path / "fceux.png", rom=rom)
    assert (reading.lines, reading.score, reading.level) == (
        fceux["lines"],
        fceux["score"],
        fceux["level"],
    )
    assert reading.next == PIECE_NAMES[PIECE_TYPE[shown_next]]
    assert reading.geometry.match > 0.9 and min(reading.confidence.values()) > 0.5


# With the other tests that start at 56,300: one wait in the level menu for them all.
@pytest.mark.xdist_group("late_steps")
def test_a_game_past_step_57000_is_the_same_game_in_fceux(tmp_path, rom, emulator, level_menu_at):
    """From step 56,300: the NMI and then the poll cross the step boundary by 58,400. There
    a step ends before or after a frame's logic as the NMI's start jitters, and nes-py's
    RAM is compared once the last frame's logic has run (reading it a step later regardless
    put it a frame ahead of FCEUX's where that step ran the next frame's NMI and logic too;
    reading it at the step's end, a frame behind where the logic was still to run)."""
    nes_py, fceux, result, _ = play_and_compare(
        tmp_path,
        rom,
        emulator,
        level_menu_at,
        GameSetup(level=19, seed=0),
        0,
        56_300,
        58_400,
    )
    assert emulator.frame in (58_400, 58_401) and result.lines >= 4
    assert fceux == nes_py
