"""maxout.burn_slack: the lines a game can still burn and reach 999,999 before level 29."""

import pytest

from nesbot._core.game import Game
from nesbot._core.maxout import burn_slack_of


def bcd(value: int, size: int) -> list[int]:
    """`value` as the ROM stores it: BCD bytes, least significant first."""
    digits = f"{value:0{2 * size}d}"
    return [int(digits[-2 * (i + 1) : len(digits) - 2 * i], 16) for i in range(size)]


def game_at(score: int, lines: int, level: int, start_level: int = 19) -> Game:
    state = Game.start(start_level, 0x8988, 0, 0).state()
    state |= {"score": bcd(score, 3), "lines": bcd(lines, 2), "level": level}
    return Game.from_state(state)


@pytest.mark.parametrize(
    ("score", "lines", "level", "slack"),
    [
        # 965,200 at 226 lines, level 28: a Tetris from 229 lines crosses into level 29 and
        # is scored there (36,000), after three singles (1,160 each): 999,999.
        (965_200, 226, 28, 3),
        # 960,000: the one Tetris before level 29 (226 -> 230, 36,000) leaves 996,000.
        (960_000, 226, 28, -1),
        # 980,000 at 229 lines: a Tetris now (36,000) but no single first (level 29).
        (980_000, 229, 28, 0),
        (500_000, 229, 28, -1),
        # a capped score has all the slack asked for; so has a fresh game
        (999_999, 100, 25, 40),
        (0, 0, 19, 40),
    ],
)
def test_burn_slack_on_hand_made_games(score, lines, level, slack):
    assert burn_slack_of(game_at(score, lines, level), 40) == slack


def test_burn_slack_is_the_same_from_level_18():
    # From level 18 the level rises at 130 lines, then every 10: at 226 lines it is 28, as
    # from level 19, and level 29 begins at 230 from both.
    assert burn_slack_of(game_at(965_200, 226, 28, start_level=18), 40) == 3
    assert burn_slack_of(game_at(0, 0, 18, start_level=18), 40) == 40
