"""Move search: an obviously-correct oracle agrees, plans lock where promised, tucks are
found, and placement counts match the checked-in golden file (chess-perft style)."""

import hashlib
import json
from collections import deque
from pathlib import Path

import numpy as np
import pytest

from nesbot._core.buttons import DOWN, LEFT, RIGHT, A, B
from nesbot._core.game import Game
from nesbot._core.moves import Searcher
from nesbot._core.pieces import ORIENTATION_CELLS

GOLDEN = Path(__file__).parent / "data" / "search_golden.json"
BUTTONS = (LEFT, RIGHT, A, B)


def _game(rows20, orientation, level, next_piece=0x02) -> Game:
    return Game.spawned(rows20, orientation, next_piece, level)


def _random_board(rng, height: int) -> list[int]:
    rows = [0] * 20
    for row in range(20 - height, 20):
        mask = int(rng.integers(0, 1 << 10)) | int(rng.integers(0, 1 << 10))
        rows[row] = mask & ~(1 << int(rng.integers(10)))  # never full
    return rows


def _oracle(
    game: Game,
    tap_interval: int,
    shift_and_rotate: bool,
    hold_shift: bool = False,
    soft_drop: bool = False,
) -> dict:
    """BFS over whole simulator frames, every state kept: {(x, y, orientation): the first
    path found with the fewest input frames}, in the search's order of buttons."""

    def key(g: Game, waits) -> tuple:
        s = g.state()
        return (
            s["x"],
            s["y"],
            s["orientation"],
            s["fall_timer"],
            s["das"],
            s["soft"],
            s["held"],
            waits,
        )

    start_waits = (0, 0, 0, 0)
    seen = {key(game, start_waits)}
    queue = deque([(game, start_waits, b"")])
    found: dict = {}
    while queue:
        g, waits, path = queue.popleft()
        held = g.state()["held"]
        horizontals = [0] + [
            b
            for i, b in enumerate(BUTTONS[:2])
            if (held & b and hold_shift) or (not held & b and waits[i] == 0)
        ]
        rotations = [0] + [
            b for i, b in enumerate(BUTTONS[2:], 2) if not held & b and waits[i] == 0
        ]
        pads = [
            h | r | down
            for h in horizontals
            for r in rotations
            if not (h and r and not shift_and_rotate)
            for down in ((0, DOWN) if soft_drop else (0,))
        ]
        for pad in pads:
            child = g.copy()
            child.step(pad)
            if child.play_state == 2:
                found.setdefault(child.position, path + bytes([pad]))
                continue
            new_waits = tuple(
                tap_interval - 1 if pad & b and not held & b else max(0, waits[i] - 1)
                for i, b in enumerate(BUTTONS)
            )
            k = key(child, new_waits)
            if k not in seen:
                seen.add(k)
                queue.append((child, new_waits, path + bytes([pad])))
    return found


SPAWNS = (0x02, 0x07, 0x08, 0x0A, 0x0B, 0x0E, 0x12)

CASES = [  # (board seed, stack height, orientation, level, tap interval, shift and rotate)
    (0, 0, 0x02, 19, 2, True),
    (1, 6, 0x12, 19, 2, True),
    (2, 8, 0x0E, 19, 3, False),
    (3, 4, 0x0B, 29, 2, True),
    (4, 10, 0x0A, 18, 4, True),
]


# Every tap rate at the levels that matter, each on a stack high enough that the oracle's
# state space stays small (at 12 and 10 Hz a button's wait counter reaches 4 and 5).
STACK_BY_LEVEL = {0: 18, 15: 14, 18: 12, 19: 11}
CASES += [
    (
        20 + 5 * i + tap,
        height,
        SPAWNS[(i + tap) % 7],
        level,
        tap,
        tap % 2 == 0,
    )
    for i, (level, height) in enumerate(STACK_BY_LEVEL.items())
    for tap in range(2, 7)
]
# Held shifts (DAS) and Down, the models `nesbot rate` searches: there the pad is part of a
# place. (..., held shifts, Down)
CASES += [
    (40, 12, 0x0E, 18, 3, True, True, False),
    (41, 12, 0x0A, 19, 2, True, False, True),
    (42, 13, 0x12, 19, 4, True, True, True),
]


@pytest.mark.parametrize(
    "case",
    [pytest.param(c, marks=pytest.mark.slow) if c[3] == 0 and c[4] >= 5 else c for c in CASES],
)
def test_oracle_agrees(case):
    seed, height, orientation, level, tap, both, *held = case
    hold_shift, soft_drop = held or (False, False)
    game = _game(_random_board(np.random.default_rng(seed), height), orientation, level)
    searcher = Searcher(
        tap_interval=tap, shift_and_rotate=both, hold_shift=hold_shift, soft_drop=soft_drop
    )
    fast = {(x, y, o): pads for x, y, o, pads in searcher.placements_of(game)}
    assert not searcher.truncated_last
    # the same places and the same paths: skipping covered states loses neither
    assert fast == _oracle(game, tap, both, hold_shift, soft_drop)


# (shift_and_rotate, one_button): the bot's model, one press at a time, meatfighter's
HOLD_MODELS = ((True, False), (False, False), (True, True))


@pytest.mark.parametrize("tap", range(1, 7))
@pytest.mark.parametrize("level", [18, 19, 29])
def test_the_first_piece_hold_searched_in_part_finds_the_same_paths(tap, level):
    # A game's first piece hangs 96 frames; the search idles through most of them
    # (moves.idle_into_hold) and must find what searching every frame finds, path for path.
    rng = np.random.default_rng(tap * 100 + level)
    for k, orientation in enumerate(SPAWNS):
        shift_and_rotate, one_button = HOLD_MODELS[k % 3]
        state = Game.start(level, 0x8988).state()
        state["orientation"] = orientation
        if k % 2:  # a stack up to row 3, just under the rows the piece hangs in
            state["rows"] = [0] * 5 + _random_board(rng, 17)[3:]
        game = Game.from_state(state)
        model = {
            "tap_interval": tap,
            "shift_and_rotate": shift_and_rotate,
            "one_button": one_button,
        }
        short = Searcher(**model)
        found = short.placements_of(game)
        full = Searcher(**model, hold_shortcut=False)
        assert found == full.placements_of(game)
        assert found and short.nodes_last < full.nodes_last


def test_every_plan_locks_where_promised():
    rng = np.random.default_rng(9)
    searcher = Searcher()
    checked = 0
    for _ in range(40):
        orientation = int(rng.choice([0x02, 0x07, 0x08, 0x0A, 0x0B, 0x0E, 0x12]))
        level = int(rng.choice([0, 9, 15, 19, 29]))
        game = _game(_random_board(rng, int(rng.integers(0, 12))), orientation, level)
        for x, y, o, pads in searcher.placements_of(game):
            g = game.copy()
            for frame, pad in enumerate(pads, start=1):
                g.step(pad)
                assert (g.play_state == 2) == (frame == len(pads))
            assert g.position == (x, y, o)
            checked += 1
    assert checked > 500


@pytest.mark.parametrize("level", [0, 9, 19])
def test_tuck_under_an_overhang(level):
    """An I slides left under a roof after landing, then drops into the gap."""
    rows = [0] * 20
    rows[17] = 0b0000000111  # a roof over columns 0-2
    rows[19] = 0b1111110000  # the gap under it: row 19, columns 0-3
    game = _game(rows, 0x12, level)  # I horizontal
    places = {(x, y, o) for x, y, o, _ in Searcher().placements_of(game)}
    assert (2, 19, 0x12) in places  # cells (0..3, 19): only reachable by a tuck


@pytest.mark.parametrize("level", [0, 19])
def test_spin_into_a_t_slot(level):
    """A T slot under a roof cell: the T falls in as T-right and turns at the bottom."""
    rows = [0] * 20
    rows[17] = 0b0000001000  # roof over column 3
    rows[18] = 0b1111000111  # slot: columns 3-5
    rows[19] = 0b1111101111  # notch: column 4
    game = _game(rows, 0x02, level)  # T down, its spawn orientation
    found = {(x, y, o): pads for x, y, o, pads in Searcher().placements_of(game)}
    assert (4, 18, 0x02) in found  # cells (3..5, 18) and (4, 19)
    assert A in found[(4, 18, 0x02)] or B in found[(4, 18, 0x02)]
    # not by falling straight: T down cannot pass the roof at column 3
    straight = _game(rows, 0x02, level)
    for _ in range(200):
        straight.step(0)
    assert straight.position != (4, 18, 0x02)


def _golden_rows() -> list[dict]:
    rng = np.random.default_rng(2026)
    rows = []
    for case in range(24):
        height = int(rng.integers(0, 14))
        board = _random_board(rng, height)
        orientation = int(rng.choice([0x02, 0x07, 0x08, 0x0A, 0x0B, 0x0E, 0x12]))
        level = int(rng.choice([0, 5, 9, 12, 15, 18, 19, 28, 29, 35]))
        tap = int(rng.choice([2, 3, 4, 5, 6]))
        both = bool(rng.integers(2))
        game = _game(board, orientation, level)
        found = Searcher(tap_interval=tap, shift_and_rotate=both).placements_of(game)
        digest = hashlib.sha256(
            json.dumps(sorted((x, y, o, len(p)) for x, y, o, p in found)).encode()
        ).hexdigest()[:16]
        rows.append(
            {
                "case": case,
                "orientation": orientation,
                "level": level,
                "tap": tap,
                "shift_and_rotate": both,
                "placements": len(found),
                "digest": digest,
            }
        )
    return rows


def test_golden_placement_counts():
    """Perft-style: counts and sets of placements for fixed positions and input models.
    Regenerate with `python tests/test_search.py` only after checking a change is right."""
    assert _golden_rows() == json.loads(GOLDEN.read_text())


@pytest.mark.parametrize("seed", range(12))
def test_plain_placements_are_a_subset_of_the_search(seed):
    rng = np.random.default_rng(100 + seed)
    rows = _random_board(rng, int(rng.integers(0, 12)))
    orientation = [0x02, 0x07, 0x08, 0x0A, 0x0B, 0x0E, 0x12][seed % 7]
    level = (0, 9, 19, 29)[seed % 4]
    game = _game(rows, orientation, level)
    searched = {p[:3] for p in Searcher(2, True).placements_of(game)}
    plain = Searcher(2, True).plain_placements_of(game)
    assert len(plain) == len(set(plain)) > 0
    assert set(plain) <= searched


@pytest.mark.parametrize("seed", range(6))
def test_plain_locks_found_without_their_frames_are_the_plain_paths_locks(seed):
    """search_plain finds where the plain paths lock from the walks they take on an empty
    board (kept per start, and used where the board leaves their cells empty), or else by
    walking one path per side, dropping the piece once it is in place; the plain paths
    themselves go frame by frame. Both must give the same placements in the same order
    (the planner's ties go to the first found), over input models, levels, start columns,
    timers and soft-drop states; and each path, played through the game's frame step,
    locks where it says. One searcher per input model serves every board, so its kept
    walks meet boards and starts other than the ones they were taken for."""
    rng = np.random.default_rng(300 + seed)
    searchers = {}
    for _ in range(400):
        rows = _random_board(rng, int(rng.integers(0, 18)))
        orientation = int(rng.choice([0x02, 0x07, 0x08, 0x0A, 0x0B, 0x0E, 0x12]))
        level = int(rng.choice([0, 9, 18, 19, 28, 29]))
        state = _game(rows, orientation, level).state() | {
            "x": int(rng.integers(0, 10)),
            "fall_timer": int(rng.integers(0, 3)),
            "das": int(rng.integers(0, 17)),
            "soft": int(rng.choice([0, 0, 1, 2, 0xA0])),
        }
        cells = ORIENTATION_CELLS[orientation]
        if not all(0 <= state["x"] + dx <= 9 for dx, _dy in cells) or any(
            rows[dy] >> (state["x"] + dx) & 1 for dx, dy in cells if dy >= 0
        ):
            continue  # the piece must start where it fits
        game = Game.from_state(state)
        model = dict(
            tap_interval=int(rng.integers(1, 7)),
            shift_and_rotate=bool(rng.integers(2)),
            one_button=bool(rng.integers(2)),
        )
        searcher = searchers.setdefault(tuple(model.values()), Searcher(**model))
        paths = searcher.plain_paths_of(game)
        assert searcher.plain_placements_of(game) == [p[:3] for p in paths]
        for x, y, o, pads in paths[:: max(1, len(paths) // 3)]:
            played = game.copy()
            played.run(pads)
            assert not played.active and played.position == (x, y, o)


@pytest.mark.parametrize("seed", range(12))
def test_every_plan_locks_where_the_planner_says(seed):
    from nesbot._core.planner import Planner
    from nesbot.evaluation.evaluators import EVALUATORS

    rng = np.random.default_rng(200 + seed)
    rows = _random_board(rng, int(rng.integers(0, 12)))
    orientation = [0x02, 0x07, 0x08, 0x0A, 0x0B, 0x0E, 0x12][seed % 7]
    game = _game(rows, orientation, (9, 19, 29)[seed % 3], next_piece=0x12)
    chosen = Planner(EVALUATORS["meatfighter-2018"]).plan(game)
    assert chosen is not None
    pads, x, y, o, _value = chosen
    for pad in pads:
        assert game.active
        game.step(pad)
    assert not game.active and game.position == (x, y, o)


if __name__ == "__main__":
    GOLDEN.write_text(json.dumps(_golden_rows(), indent=1) + "\n")
