"""The planner: it always moves while the piece can lock, it says when its search ran out of
room, it weighs unknown pieces with the NES picker's odds, and --reaction plans blind."""

from functools import partial

import numpy as np
import pytest

from nesbot._core.blind import plan_blind
from nesbot._core.buttons import DOWN
from nesbot._core.game import Game
from nesbot._core.moves import Searcher
from nesbot._core.pieces import PIECE_TYPE, SPAWN_TABLE
from nesbot._core.planner import Planner
from nesbot._core.probes import (
    blocks_spawn_py,
    evaluate_py,
    has_tuck_spot_py,
    next_spawn_blocked_py,
)
from nesbot._core.rules import piece_odds
from nesbot._core.whole_games import nes_rng
from nesbot.bot.planning import PlannerSettings, build_planner
from nesbot.errors import NesbotError
from nesbot.evaluation.evaluators import EVALUATORS

MEATFIGHTER = EVALUATORS["meatfighter-2018"]
I_HORIZONTAL, T_DOWN = 0x12, 0x02
PLAY_SPAWN = 8


def _review_board() -> list[int]:
    """Rows 2-19 full but for columns 8 and 9; row 1 has cells in columns 0 and 4."""
    return [0, 0b0000010001] + [0b0011111111] * 18


def test_a_vetoed_position_still_gets_the_least_bad_plan():
    """Every (I, T) pair here breaks a calming rule (the stack reaches the spawn rows), but
    five placements are legal: the planner plays one and says it fell back."""
    game = Game.spawned(_review_board(), I_HORIZONTAL, T_DOWN, 19)
    assert len(Searcher().placements_of(game)) == 5
    for lookahead in (0, 1):
        planner = build_planner(MEATFIGHTER, PlannerSettings(lookahead=lookahead))
        chosen = planner.plan(game)
        assert chosen is not None
        assert planner.fallback_last and planner.fallbacks == 1
        pads, x, y, orientation, _value = chosen
        after = game.copy()
        for pad in pads:
            after.step(pad)
        assert not after.active and after.position == (x, y, orientation)


def test_rule_3_on_the_first_board_asks_only_about_the_known_next_piece():
    """A cell at row 1, column 6 keeps Z and J from spawning but not O: the board before a
    known O passes rule 3, while a board before an unknown piece does not."""
    rows = [0] * 20
    rows[1] = 1 << 6
    assert blocks_spawn_py(rows)
    assert not next_spawn_blocked_py(rows, 0x0A, MEATFIGHTER)  # O
    assert next_spawn_blocked_py(rows, 0x08, MEATFIGHTER)  # Z
    assert not next_spawn_blocked_py(rows, 0x08, EVALUATORS["el-tetris"])  # no calming rules


def test_python_callers_get_type_errors_not_crashes():
    planner = Planner(MEATFIGHTER)
    for call in (
        planner.plan,
        partial(plan_blind, planner),
        Searcher().placements_of,
        Searcher().plain_placements_of,
    ):
        with pytest.raises(TypeError):
            call(None)


def test_a_hidden_piece_is_refused_not_planned():
    """RAM read while the ROM copies a spawn back shows the play state active and the piece
    still hidden ($13): no piece tables may be read with it."""
    state = Game.spawned([0] * 20, T_DOWN, I_HORIZONTAL, 18).state()
    for key in ("orientation", "next_piece"):
        game = Game.from_state(state | {key: 0x13})
        for plan in (Planner(MEATFIGHTER).plan, partial(plan_blind, Planner(MEATFIGHTER))):
            with pytest.raises(ValueError, match="no piece to plan"):
                plan(game)


def test_plain_first_placements_are_the_plain_paths_and_cheaper():
    game = Game.spawned(_review_board(), T_DOWN, I_HORIZONTAL, 18)
    plain = Planner(MEATFIGHTER, first="plain")
    pads, x, y, orientation, _value = plain.plan(game)
    assert (x, y, orientation) in Searcher().plain_placements_of(game)
    searched = Planner(MEATFIGHTER)
    searched.plan(game)
    assert plain.nodes_searched < searched.nodes_searched
    played = game.copy()
    played.run(pads)
    assert played.position == (x, y, orientation) and not played.active
    with pytest.raises(ValueError, match="first must be"):
        Planner(MEATFIGHTER, first="deep")


def test_a_search_out_of_room_says_so_and_still_moves():
    """With too little node capacity the search is truncated: it says so, adds the plain
    paths' placements, and every placement it gives still locks where it says."""
    game = Game.spawned([0] * 20, T_DOWN, I_HORIZONTAL, 19)
    small = Searcher(tap_interval=6, capacity=2000)
    found = small.placements_of(game)
    assert small.truncated_last
    assert {p[:3] for p in found} >= set(Searcher().plain_placements_of(game))
    for x, y, orientation, pads in found:
        after = game.copy()
        for pad in pads:
            after.step(pad)
        assert after.play_state == 2 and after.position == (x, y, orientation)
    full = Searcher(tap_interval=6)
    full.placements_of(game)
    assert not full.truncated_last


def test_picker_odds_are_what_the_nes_picker_does():
    """The piece the simulator's picker draws at a spawn, from RNG states spread over its
    cycle and any spawn count, follows rules.transition_odds given the piece before."""
    rng = np.random.default_rng(1)
    template = Game.spawned([0] * 20, T_DOWN, T_DOWN, 19).state()
    counts = np.zeros((7, 7))
    for _ in range(40_000):
        before = int(rng.integers(7))
        state = dict(
            template,
            play_state=PLAY_SPAWN,
            next_piece=SPAWN_TABLE[before],
            spawn_id=SPAWN_TABLE[before],
            rng=nes_rng(int(rng.integers(32_767))),
            spawn_count=int(rng.integers(256)),
        )
        game = Game.from_state(state)
        game.step(0)  # the spawn: the next piece becomes current, a new one is drawn
        counts[before, PIECE_TYPE[game.state()["next_piece"]]] += 1
    empirical = counts / counts.sum(axis=1, keepdims=True)
    odds = np.array(piece_odds())
    assert np.allclose(odds.sum(axis=1), 1.0)
    assert np.abs(empirical - odds).max() < 0.02  # ~5,700 draws per row: 3 sigma is 0.015


def test_lookahead_keeps_the_well_for_the_unknown_i():
    """Nine columns of four full rows and an empty column 9: with the I not shown yet, the
    lookahead's expectation over the unknown third piece keeps the well open."""
    rows = [0] * 16 + [0b0111111111] * 4
    game = Game.spawned(rows, 0x0A, 0x0A, 19)  # O now, O next
    planner = build_planner(MEATFIGHTER, PlannerSettings(lookahead=1))
    _pads, x, _y, _orientation, _value = planner.plan(game)
    assert x != 9  # the O's cells are columns x-1 and x: not in the well
    assert planner.next_lock is not None and planner.next_lock[0] != 9


def test_blind_plan_does_not_read_the_next_piece():
    """plan_blind (--reaction) decides the same whatever the next piece is."""
    rows = [0] * 14 + [0b0111111110] * 6
    plans = set()
    for next_piece in SPAWN_TABLE:
        game = Game.spawned(rows, T_DOWN, next_piece, 19)
        plans.add(plan_blind(Planner(MEATFIGHTER, lookahead=1), game)[1:4])
    assert len(plans) == 1


def test_blind_plan_with_the_hedge_does_not_read_the_next_piece():
    rows = [0] * 14 + [0b0111111110] * 6
    planner = build_planner(MEATFIGHTER, PlannerSettings(reaction=18))
    plans = set()
    for next_piece in SPAWN_TABLE:
        chosen = plan_blind(planner, Game.spawned(rows, T_DOWN, next_piece, 19))
        plans.add((chosen[0][:18], *chosen[1:4]))
    assert len(plans) == 1


def _plain_locks_after(game: Game, pads: bytes) -> set[tuple[int, int, int]]:
    after = game.copy()
    for pad in pads:
        after.step(pad)
    return set(Searcher().plain_placements_of(after))


def test_the_hedge_keeps_both_wells_in_reach_until_the_next_piece_is_known():
    """Two wells (columns 0 and 9), an I, level 19: the blind best is the left well. Heading
    there puts the right one out of reach when the 18 frames end (the I has fallen 9 rows);
    the hedge waits instead, and the replan can still take either."""
    game = Game.spawned([0] * 16 + [0b0111111110] * 4, I_HORIZONTAL, 0x0A, 19)
    left_well, right_well = (0, 18, 0x11), (9, 18, 0x11)
    heading = build_planner(MEATFIGHTER, PlannerSettings(reaction=18, hedge=False))
    hedging = build_planner(MEATFIGHTER, PlannerSettings(reaction=18))
    pads, *lock, _value = plan_blind(heading, game)
    assert tuple(lock) == left_well and any(pads[:18])
    reach = _plain_locks_after(game, pads[:18])
    assert left_well in reach and right_well not in reach
    pads, *lock, _value = plan_blind(hedging, game)
    assert tuple(lock) == left_well and not any(pads[:18])  # no input yet
    assert {left_well, right_well} <= _plain_locks_after(game, pads[:18])


def test_a_blind_path_holds_down_only_after_the_reaction():
    """A plain path holds Down once in place (soft-drop points); a blind one waits for the
    next piece to be known, and still locks where it planned."""
    game = Game.spawned([0] * 16 + [0b0111111110] * 4, I_HORIZONTAL, 0x0A, 19)
    planner = build_planner(MEATFIGHTER, PlannerSettings(reaction=18, hedge=False))
    pads, x, y, orientation, _value = plan_blind(planner, game)
    assert not any(pad & DOWN for pad in pads[:18])
    assert any(pad & DOWN for pad in pads[18:])
    after, locked = game.copy(), None
    for pad in pads:
        locked = after.position
        after.step(pad)
        if not after.active:
            break
    assert not after.active and locked == (x, y, orientation)


def test_next_search_finds_the_tuck_plain_paths_cannot_reach():
    """Row 19 is open under an overhang (columns 1-2 of row 18): the next piece, an I, can
    fill it only by sliding under. With --next-search search the planner sees that pair
    (a better value), and the next piece's planned lock is one no plain path reaches."""
    rows = [0] * 20
    rows[18] = 0b0000000111
    rows[19] = 0b1110000001
    for level in (0, 19):
        game = Game.spawned(rows, 0x0A, I_HORIZONTAL, level)  # O now, I next
        values = {}
        for next_search in ("plain", "search"):
            planner = build_planner(MEATFIGHTER, PlannerSettings(next_search=next_search))
            pads, *_lock, values[next_search] = planner.plan(game)
            after = game.copy()
            for pad in pads:
                after.step(pad)
            while not after.active:  # the entry delay: the I spawns
                after.step(0)
            plain_locks = set(Searcher().plain_placements_of(after))
            assert (planner.next_lock in plain_locks) == (next_search == "plain")
        assert values["search"] < values["plain"]


def test_tuck_spots_are_covered_cells_beside_open_ones():
    skyline = [0] * 17 + [0b0000000100, 0b0000111100, 0b1111111110]
    assert not has_tuck_spot_py(skyline)  # every empty cell is open to the sky
    overhang = [0] * 18 + [0b0000000111, 0b1110000001]  # row 19 runs on under columns 1-2
    assert has_tuck_spot_py(overhang)
    walled = [0] * 18 + [0b0000000111, 0b1110001001]  # columns 1-2 of row 19: a closed hole
    assert not has_tuck_spot_py(walled)


def _after_locks(game: Game, *locks: tuple[int, int, int]) -> Game:
    """The game after each lock in turn (each piece spawned in between)."""
    game = game.copy()
    for x, y, orientation in locks:
        while not game.active:
            game.step(0)
        game.lock_at(x, y, orientation)
    return game


def _best_value(rows: list[int], piece_type: int, level: int, evaluator) -> float:
    """The best evaluation of a spawned piece's plain placements on `rows` at `level`."""
    spawned = Game.spawned(rows, SPAWN_TABLE[piece_type], SPAWN_TABLE[0], level)
    return min(
        evaluate_py(_after_locks(spawned, lock).state()["rows"], 0, 0, evaluator)
        for lock in Searcher().plain_placements_of(spawned)
    )


def _expected_deep(state: dict, before_type: int, branches: tuple[int, ...], evaluator) -> float:
    """Over the piece the picker draws after `before_type`, with its odds: its best
    placement on `state`'s board, or with `branches` (n, ...) the best of its n best
    placements by their own evaluation, each valued so itself with (...) after it."""
    odds = piece_odds()
    total = 0.0
    for piece in range(7):
        if not odds[before_type][piece]:
            continue
        if not branches:
            total += odds[before_type][piece] * _best_value(
                state["rows"], piece, state["level"], evaluator
            )
            continue
        spawned = Game.spawned(state["rows"], SPAWN_TABLE[piece], SPAWN_TABLE[0], state["level"])
        placed = [
            _after_locks(spawned, lock).state() for lock in Searcher().plain_placements_of(spawned)
        ]
        placed.sort(key=lambda s: evaluate_py(s["rows"], 0, 0, evaluator))
        total += odds[before_type][piece] * min(
            _expected_deep(s, piece, branches[1:], evaluator) for s in placed[: branches[0]]
        )
    return total


@pytest.mark.parametrize(
    ("level", "settings", "branches"),
    [
        (
            19,
            PlannerSettings(lookahead=2, deep_width=2, deep_branch=3, kill_screen_deep_branch=1),
            (3,),
        ),
        (
            29,
            PlannerSettings(lookahead=2, deep_width=2, deep_branch=1, kill_screen_deep_branch=3),
            (3,),
        ),
        (
            29,
            PlannerSettings(
                lookahead=2,
                kill_screen_deep_branch=3,
                kill_screen_third_width=1,
                kill_screen_third_branch=2,
                kill_screen_third_branch2=1,
            ),
            (2, 1),
        ),
    ],
)
def test_lookahead_2_weighs_two_unknown_pieces_with_the_pickers_odds(level, settings, branches):
    """The value of lookahead 2's plan, rebuilt by brute force: over the third piece (the
    picker's odds after the next), the best of its 3 best placements by their own
    evaluation (`deep_branch`; from level 29, `kill_screen_deep_branch`), each valued by the
    expected best placement of the fourth piece (the odds after the third). From level 29
    with `kill_screen_third_width`, the plan chosen three unknown pieces deep: the best of
    the third piece's 2 best placements, each valued by the best of the fourth piece's
    best one, valued by the fifth's expected best. Hidamari's weights read the board alone
    and have no calming rules, so nothing else enters the value."""
    hidamari = EVALUATORS["hidamari"]
    rows = [0] * 13 + [0b0000110000, 0b1000111001, 0b1101111011] + [0b1111011111] * 4
    game = Game.spawned(rows, T_DOWN, 0x0E, level)  # T now, L next
    planner = build_planner(hidamari, settings)
    _pads, x, y, orientation, value = planner.plan(game)
    after = _after_locks(game, (x, y, orientation), planner.next_lock).state()
    expected = _expected_deep(after, PIECE_TYPE[0x0E], branches, hidamari)
    assert value == pytest.approx(expected, rel=1e-12)


def test_three_unknown_pieces_deep_is_the_formats_default_within_the_kill_screens_width():
    """kill_screen_third_width re-judges some of the kill screen's deep candidates, so it
    is at most kill_screen_deep_width; by default 2 with a reaction at 30 and 20 Hz
    (measured there), else 0 (none). Its branches are lookahead 2's."""
    planner = build_planner(MEATFIGHTER, PlannerSettings(reaction=18))
    assert (planner.kill_third_width, planner.kill_third_branch, planner.kill_third_branch2) == (
        2,
        2,
        1,
    )
    assert PlannerSettings().kill_screen_third_width == 0
    at_15hz = PlannerSettings(reaction=18).at_tap_hz(15)
    assert at_15hz.kill_screen_third_width == 0
    assert at_15hz.at_tap_hz(20).kill_screen_third_width == 2
    assert PlannerSettings(reaction=18, kill_screen_deep_width=1).kill_screen_third_width == 1
    assert PlannerSettings(reaction=18, kill_screen_third_width=0).kill_screen_third_width == 0
    planner = build_planner(MEATFIGHTER, PlannerSettings(kill_screen_third_width=3))
    assert planner.kill_third_width == 3
    with pytest.raises(NesbotError, match="--kill-screen-third-width 7 is outside 0-6"):
        PlannerSettings(kill_screen_third_width=7)
    with pytest.raises(NesbotError, match="kill_screen_third_branch2 9 is outside 1-8"):
        PlannerSettings(kill_screen_third_branch2=9)
