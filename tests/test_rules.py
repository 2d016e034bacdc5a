"""Golden tests of the frame rules (nesbot._core.rules through nesbot._core.game.Game).

Every expected number comes from the rules in docs/mechanics.md (cited by section, e.g.
docs/mechanics.md#scoring). Where the ROM's routine is an algorithm (rng_step, pick,
score_update, the lines loop, the active-piece frame) it is written out below in
plain Python and the core is compared with it over many inputs. No ROM and no emulator are needed.

Step convention of the project: one Game.step(pad) is one whole NES frame, i.e. the NMI
(row copy or line-clear animation, frame counter + 1, RNG step, controller poll of `pad`)
and then the game logic that uses that poll. "Step k" below is the k-th step() call of a
test, counted from 1; a pad given to step k acts in step k.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nesbot._core import pieces
from nesbot._core.game import Game

# Buttons, nes-py order (cython_core/buttons.pxd).
A, B, SELECT, START = 0x01, 0x02, 0x04, 0x08
UP, DOWN, LEFT, RIGHT = 0x10, 0x20, 0x40, 0x80
DPAD = UP | DOWN | LEFT | RIGHT

FULL = 0x3FF
HIDDEN = 2  # rows[r + HIDDEN] is playfield row r (rows -2 .. 19)

# ---------------------------------------------------------------------------------------
# The ROM's tables written out by hand (docs/mechanics.md#pieces-and-orientations),
# independent of the core's nes_tables.h.

DOC_CELLS = (
    ((-1, 0), (0, 0), (1, 0), (0, -1)),  # $00 T up
    ((0, -1), (0, 0), (1, 0), (0, 1)),  # $01 T right
    ((-1, 0), (0, 0), (1, 0), (0, 1)),  # $02 T down (spawn)
    ((0, -1), (-1, 0), (0, 0), (0, 1)),  # $03 T left
    ((0, -1), (0, 0), (-1, 1), (0, 1)),  # $04 J left
    ((-1, -1), (-1, 0), (0, 0), (1, 0)),  # $05 J up
    ((0, -1), (1, -1), (0, 0), (0, 1)),  # $06 J right
    ((-1, 0), (0, 0), (1, 0), (1, 1)),  # $07 J down (spawn)
    ((-1, 0), (0, 0), (0, 1), (1, 1)),  # $08 Z horizontal (spawn)
    ((1, -1), (0, 0), (1, 0), (0, 1)),  # $09 Z vertical
    ((-1, 0), (0, 0), (-1, 1), (0, 1)),  # $0A O (spawn)
    ((0, 0), (1, 0), (-1, 1), (0, 1)),  # $0B S horizontal (spawn)
    ((0, -1), (0, 0), (1, 0), (1, 1)),  # $0C S vertical
    ((0, -1), (0, 0), (0, 1), (1, 1)),  # $0D L right
    ((-1, 0), (0, 0), (1, 0), (-1, 1)),  # $0E L down (spawn)
    ((-1, -1), (0, -1), (0, 0), (0, 1)),  # $0F L left
    ((1, -1), (-1, 0), (0, 0), (1, 0)),  # $10 L up
    ((0, -2), (0, -1), (0, 0), (0, 1)),  # $11 I vertical
    ((-2, 0), (-1, 0), (0, 0), (1, 0)),  # $12 I horizontal (spawn)
)
# rotationTable (docs/mechanics.md#rotation): (B result, A result) per orientation ID.
DOC_ROTATION = (
    (0x03, 0x01),
    (0x00, 0x02),
    (0x01, 0x03),
    (0x02, 0x00),
    (0x07, 0x05),
    (0x04, 0x06),
    (0x05, 0x07),
    (0x06, 0x04),
    (0x09, 0x09),
    (0x08, 0x08),
    (0x0A, 0x0A),
    (0x0C, 0x0C),
    (0x0B, 0x0B),
    (0x10, 0x0E),
    (0x0D, 0x0F),
    (0x0E, 0x10),
    (0x0F, 0x0D),
    (0x12, 0x12),
    (0x11, 0x11),
)
DOC_ROT_B = tuple(b for b, _ in DOC_ROTATION)
DOC_ROT_A = tuple(a for _, a in DOC_ROTATION)
DOC_SPAWN_TABLE = (0x02, 0x07, 0x08, 0x0A, 0x0B, 0x0E, 0x12)  # T J Z O S L I
# framesPerDropTable, levels 0-28, 29 and up: 1 (docs/mechanics.md#gravity-and-frames-per-drop).
DOC_FRAMES_PER_ROW = (48, 43, 38, 33, 28, 23, 18, 13, 8, 6, 5, 5, 5, 4, 4, 4, 3, 3, 3) + (2,) * 10
# pointsTable, BCD (lo, hi) for 0-4 lines (docs/mechanics.md#scoring).
DOC_POINTS = ((0x00, 0x00), (0x40, 0x00), (0x00, 0x01), (0x00, 0x03), (0x00, 0x12))

T_SPAWN, J_SPAWN, Z_SPAWN, O_PIECE, S_SPAWN, L_SPAWN, I_HORIZ = DOC_SPAWN_TABLE
I_VERT = 0x11


def doc_speed(level: int) -> int:
    return 1 if level >= 29 else DOC_FRAMES_PER_ROW[level]


# ---------------------------------------------------------------------------------------
# Reference algorithms, transcribed from the ROM's routines (docs/mechanics.md).


def s8(v: int) -> int:
    """The 6502's view of a byte as signed (for the `bpl`/`bmi` compares the ROM makes)."""
    v &= 0xFF
    return v - 256 if v >= 0x80 else v


def rng_step(r: int) -> int:
    """rng_step (docs/mechanics.md#the-piece-picker-and-rng)."""
    bit = ((r >> 9) & 1) ^ ((r >> 1) & 1)
    return ((r >> 1) | (bit << 15)) & 0xFFFF


def pick(r: int, spawn_count: int, spawn_id: int) -> tuple[int, int, int, int]:
    """pick: (new next piece, R, spawnCount, spawnID)
    (docs/mechanics.md#the-piece-picker-and-rng)."""
    spawn_count = (spawn_count + 1) & 0xFF
    idx = ((r >> 8) + spawn_count) & 7
    if idx != 7 and DOC_SPAWN_TABLE[idx] != spawn_id:
        spawn_id = DOC_SPAWN_TABLE[idx]
        return spawn_id, r, spawn_count, spawn_id
    r = rng_step(r)
    idx = (((r >> 8) & 7) + spawn_id) % 7
    spawn_id = DOC_SPAWN_TABLE[idx]
    return spawn_id, r, spawn_count, spawn_id


def score_update(s0: int, s1: int, s2: int, hdp: int, lines: int, level: int):
    """score_update, verbatim (docs/mechanics.md#scoring)."""
    if 2 <= hdp < 0x82:
        s0 = (s0 - 1) & 0xFF
        a = (s0 + hdp) & 0xFF
        s0 = a
        if (a & 0x0F) >= 0x0A:
            s0 = (a + 6) & 0xFF
        if (s0 & 0xF0) >= 0xA0:
            s0 = ((s0 & 0xF0) + 0x60) & 0xFF
            s1 = (s1 + 1) & 0xFF
    lo, hi = DOC_POINTS[lines]
    for _ in range(((level + 1) & 0xFF) or 256):
        a = (lo + s0) & 0xFF
        s0 = a
        if a >= 0xA0:
            s0 = (a + 0x60) & 0xFF
            s1 = (s1 + 1) & 0xFF
        s1 = (hi + s1) & 0xFF
        if (s1 & 0x0F) >= 0x0A:
            s1 = (s1 + 6) & 0xFF
        if (s1 & 0xF0) >= 0xA0:
            s1 = (s1 + 0x60) & 0xFF
            s2 = (s2 + 1) & 0xFF
        if (s2 & 0x0F) >= 0x0A:
            s2 = (s2 + 6) & 0xFF
        if (s2 & 0xF0) >= 0xA0:
            s0 = s1 = s2 = 0x99
    return s0, s1, s2


def add_lines(lines_lo: int, lines_hi: int, level: int, n: int) -> tuple[int, int, int]:
    """One BCD increment per cleared line, level-up test at each multiple of ten
    (docs/mechanics.md#levels-and-transitions).

    The BCD step is spelled out as DIS `incrementLines` does it (a one-line
    `bcd_increment`): ones + 1; ones fix-up; a tens overflow clears the tens and carries.
    """
    for _ in range(n):
        lines_lo = (lines_lo + 1) & 0xFF
        if (lines_lo & 0x0F) >= 0x0A:
            lines_lo = (lines_lo + 6) & 0xFF
            if (lines_lo & 0xF0) >= 0xA0:
                lines_lo &= 0x0F
                lines_hi = (lines_hi + 1) & 0xFF
        if (lines_lo & 0x0F) == 0:
            g = ((lines_hi << 8 | lines_lo) >> 4) & 0xFF
            if s8(level - g) < 0:
                level = (level + 1) & 0xFF
    return lines_lo, lines_hi, level


def bcd(value: int, nbytes: int) -> list[int]:
    """Little-endian BCD bytes of a decimal number."""
    out = []
    for _ in range(nbytes):
        value, low = divmod(value, 10)
        value, high = divmod(value, 10)
        out.append(high << 4 | low)
    return out


def from_bcd(values: list[int]) -> int:
    total = 0
    for byte in reversed(values):
        total = total * 100 + (byte >> 4) * 10 + (byte & 0x0F)
    return total


def doc_fits(rows: list[int], orientation: int, x: int, y: int) -> bool:
    """isPositionValid on the row-mask board, rows -2..19
    (docs/mechanics.md#playfield-and-collision)."""
    for dx, dy in DOC_CELLS[orientation]:
        cx, cy = x + dx, y + dy
        if not (0 <= cy + 2 < 22) or not (0 <= cx < 10):
            return False
        if rows[cy + HIDDEN] >> cx & 1:
            return False
    return True


def ref_nmi(s: dict, pad: int) -> None:
    """The NMI for a frame outside play state 4: row copy, frame counter, RNG, poll
    (docs/mechanics.md#the-frame-loop-and-nmi)."""
    vram = s["vram_row"]
    for _ in range(4):
        if s8(vram) >= 21:
            break
        vram = (vram + 1) & 0xFF
        if s8(vram) >= 20:
            vram = 0x20
    s["vram_row"] = vram
    s["frame_counter"] = (s["frame_counter"] + 1) & 0xFFFF
    s["rng"] = rng_step(s["rng"])
    s["newly"] = pad & ~s["held"] & 0xFF
    s["held"] = pad


def ref_active_frame(s: dict) -> None:
    """frame_active (fallTimer += 1 first; docs/mechanics.md#one-frame-of-the-active-piece),
    then the lock bookkeeping (docs/mechanics.md#locking-and-entry-delay-are)."""
    newly, held = s["newly"], s["held"]
    s["fall_timer"] = (s["fall_timer"] + 1) & 0xFF
    rows = s["rows"]
    # shift_tetrimino
    if not held & DOWN:
        do_move = False
        if newly & (LEFT | RIGHT):
            s["das"] = 0
            do_move = True
        elif held & (LEFT | RIGHT):
            s["das"] = (s["das"] + 1) & 0xFF
            if s8(s["das"] - 16) >= 0:
                s["das"] = 10
                do_move = True
        if do_move:
            x0 = s["x"]
            if held & RIGHT:
                s["x"] += 1
            elif held & LEFT:
                s["x"] -= 1
            if s["x"] != x0 and not doc_fits(rows, s["orientation"], s["x"], s["y"]):
                s["x"] = x0
                s["das"] = 16
    # rotate_tetrimino
    o0 = s["orientation"]
    if newly & A:
        s["orientation"] = DOC_ROT_A[o0]
    elif newly & B:
        s["orientation"] = DOC_ROT_B[o0]
    if s["orientation"] != o0 and not doc_fits(rows, s["orientation"], s["x"], s["y"]):
        s["orientation"] = o0
    # drop_tetrimino
    if s["soft"] >= 0x80:
        if not newly & DOWN:
            s["soft"] = (s["soft"] + 1) & 0xFF
            return
        s["soft"] = 0
    step_down = False
    if s["soft"] == 0:
        if not held & (LEFT | RIGHT) and (newly & DPAD) == DOWN:
            s["soft"] = 1
    elif (held & DPAD) == DOWN:
        s["soft"] = (s["soft"] + 1) & 0xFF
        if s["soft"] >= 3:
            s["soft"] = 1
            s["hold_down_points"] = (s["hold_down_points"] + 1) & 0xFF
            step_down = True
    else:
        s["soft"] = 0
        s["hold_down_points"] = 0
    if not step_down:
        step_down = s8(s["fall_timer"] - doc_speed(s["level"])) >= 0
    if step_down:
        s["fall_timer"] = 0
        s["y"] += 1
        if not doc_fits(rows, s["orientation"], s["x"], s["y"]):
            s["y"] -= 1
            s["play_state"] = 2
            row = max(0, s["y"] - 2)
            if row < s8(s["vram_row"]):
                s["vram_row"] = row


# ---------------------------------------------------------------------------------------
# Helpers to build exact positions.

_TEMPLATE = Game.start(19, 0x8988).state()


def make_state(**changes) -> dict:
    """A state dict in play state 1 on an empty board (no first-piece hold), edited."""
    state = {k: (list(v) if isinstance(v, list) else v) for k, v in _TEMPLATE.items()}
    state.update(
        rows=[0] * 22,
        x=5,
        y=0,
        orientation=T_SPAWN,
        fall_timer=0,
        das=0,
        soft=0,
        hold_down_points=0,
        next_piece=T_SPAWN,
        level=19,
        play_state=1,
        vram_row=0x20,
        newly=0,
        held=0,
        piece_stats=[0] * 14,
    )
    state.update(changes)
    return state


def make(**changes) -> Game:
    return Game.from_state(make_state(**changes))


def run_pads(game: Game, pads) -> list[dict]:
    """Step through pads; the state after each step (index 0 = after step 1)."""
    out = []
    for pad in pads:
        game.step(pad)
        out.append(game.state())
    return out


def steps_where(states: list[dict], key: str, start_value) -> list[int]:
    """1-based step numbers at which `key` changed."""
    changes, prev = [], start_value
    for k, s in enumerate(states, 1):
        if s[key] != prev:
            changes.append(k)
            prev = s[key]
    return changes


# ---------------------------------------------------------------------------------------
# The core's tables against the hand-written ones (docs/mechanics.md#pieces-and-orientations).


def test_tables_match_the_doc():
    assert pieces.ORIENTATION_CELLS == DOC_CELLS
    assert pieces.ROTATE_A == DOC_ROT_A
    assert pieces.ROTATE_B == DOC_ROT_B
    assert pieces.SPAWN_TABLE == DOC_SPAWN_TABLE
    assert pieces.FRAMES_PER_ROW == DOC_FRAMES_PER_ROW
    assert [pieces.frames_per_row(lv) for lv in range(256)] == [doc_speed(lv) for lv in range(256)]
    assert pieces.POINTS == DOC_POINTS


# ---------------------------------------------------------------------------------------
# RNG (docs/mechanics.md#the-piece-picker-and-rng)


def test_rng_reference_from_reset_value():
    # The reference rng_step from $8988 (the reset value), worked by hand.
    values, r = [], 0x8988
    for _ in range(8):
        r = rng_step(r)
        values.append(r)
    assert values == [0x44C4, 0x2262, 0x1131, 0x0898, 0x044C, 0x0226, 0x0113, 0x8089]


@pytest.mark.parametrize(
    "changes",
    [
        {"play_state": 1, "soft": 0xA0},  # first-piece hold
        {"play_state": 1, "level": 0},
        {"play_state": 2, "vram_row": 0},  # lock waiting for the row copy
        {"play_state": 3, "vram_row": 0},
        {"play_state": 4, "vram_row": 0, "row_y": 0, "completed_lines": 1},
        {"play_state": 9},
        {"play_state": 0x0A},
    ],
)
def test_rng_steps_once_per_frame_from_reset_value(changes):
    # Frames with no spawn: exactly one rng_step per step, in every play state
    # (docs/mechanics.md#the-piece-picker-and-rng).
    game = make(rng=0x8988, **changes)
    seen = [s["rng"] for s in run_pads(game, [0] * 8)]
    assert seen == [0x44C4, 0x2262, 0x1131, 0x0898, 0x044C, 0x0226, 0x0113, 0x8089]


def test_rng_cycle_matches_reference():
    # The reference rng_step has period 32767 from $8988; the core walks the same cycle.
    game = make(rng=0x8988, play_state=9, frame_counter=0)
    r = 0x8988
    for _ in range(200):
        game.step(0)
        r = rng_step(r)
        assert game.state()["rng"] == r
    game = make(rng=0x8988, play_state=9, frame_counter=0)
    assert game.run(np.zeros(32767, dtype=np.uint8)) == 32767
    state = game.state()
    assert state["rng"] == 0x8988
    assert state["frame_counter"] == 32767


def test_rng_and_spawns_over_whole_games():
    # Every frame of real games: one rng_step, except spawn frames, which are pick(rng_step(R_prev),
    # spawnCount_prev, spawnID_prev) (docs/mechanics.md#the-piece-picker-and-rng).
    gen = np.random.default_rng(1234)
    choices = np.array([0, 0, 0, LEFT, RIGHT, DOWN, A, B, LEFT | A, RIGHT | B], np.uint8)
    spawns = 0
    for game_no in range(4):
        game = Game.start(
            19 if game_no % 2 else 18, int(gen.integers(65536)), spawn_count=int(gen.integers(256))
        )
        prev = game.state()
        pad = 0
        for frame in range(6000):
            if frame % 3 == 0:
                pad = int(gen.choice(choices))
            game.step(pad)
            cur = game.state()
            assert cur["frame_counter"] == (prev["frame_counter"] + 1) & 0xFFFF
            if prev["play_state"] == 8 and cur["play_state"] == 1:
                spawns += 1
                nxt, r, sc, sid = pick(rng_step(prev["rng"]), prev["spawn_count"], prev["spawn_id"])
                assert cur["orientation"] == prev["next_piece"]
                assert (cur["next_piece"], cur["rng"], cur["spawn_count"], cur["spawn_id"]) == (
                    nxt,
                    r,
                    sc,
                    sid,
                )
            else:
                assert cur["rng"] == rng_step(prev["rng"])
                assert cur["spawn_count"] == prev["spawn_count"]
            if game.topped_out:
                break
            prev = cur
    assert spawns > 40


# ---------------------------------------------------------------------------------------
# Piece picker (docs/mechanics.md#the-piece-picker-and-rng)


def spawn_state(rng: int, spawn_count: int, spawn_id: int, next_piece: int, **extra) -> dict:
    return make_state(
        play_state=8,
        vram_row=0x20,
        rng=rng,
        spawn_count=spawn_count,
        spawn_id=spawn_id,
        next_piece=next_piece,
        orientation=0x13,
        y=17,
        x=3,
        fall_timer=77,
        soft=2,
        **extra,
    )


@settings(max_examples=400, deadline=None)
@given(
    rng=st.integers(0, 0xFFFF),
    spawn_count=st.integers(0, 255),
    spawn_id=st.sampled_from((0, *DOC_SPAWN_TABLE)),
    next_piece=st.sampled_from(DOC_SPAWN_TABLE),
    frame_counter=st.integers(0, 0xFFFF),
)
def test_spawn_uses_doc_pick(rng, spawn_count, spawn_id, next_piece, frame_counter):
    game = Game.from_state(
        spawn_state(rng, spawn_count, spawn_id, next_piece, frame_counter=frame_counter)
    )
    game.step(0)
    s = game.state()
    nxt, r, sc, sid = pick(rng_step(rng), spawn_count, spawn_id)
    assert s["play_state"] == 1
    assert (s["orientation"], s["x"], s["y"], s["fall_timer"], s["soft"]) == (
        next_piece,
        5,
        0,
        0,
        0,
    )
    assert (s["next_piece"], s["rng"], s["spawn_count"], s["spawn_id"]) == (nxt, r, sc, sid)
    # docs/mechanics.md#statistics-counters: the new current piece's statistic +1
    # (2-byte BCD, T J Z O S L I).
    stats = [0] * 14
    stats[2 * DOC_SPAWN_TABLE.index(next_piece)] = 1
    assert s["piece_stats"] == stats


def test_spawn_waits_for_the_row_copy():
    # Play state 8 spawns only once vramRow >= $20 (docs/mechanics.md#the-play-states).
    game = Game.from_state(spawn_state(0x1234, 0, 0x02, 0x0A) | {"vram_row": 4})
    states = run_pads(game, [0] * 5)
    assert [s["play_state"] for s in states] == [8, 8, 8, 1, 1]
    assert [s["vram_row"] for s in states] == [8, 12, 16, 0x20, 0x20]


def np_rng_step(r):
    bit = ((r >> 9) ^ (r >> 1)) & 1
    return ((r >> 1) | (bit << 15)) & 0xFFFF


def np_pick(r, spawn_count: int, spawn_id: int):
    """pick over an array of R values: (next piece, R after, rerolled?)
    (docs/mechanics.md#the-piece-picker-and-rng)."""
    table = np.array([*DOC_SPAWN_TABLE, -1])
    idx = ((r >> 8) + ((spawn_count + 1) & 0xFF)) & 7
    first = table[idx]
    direct = (idx != 7) & (first != spawn_id)
    r2 = np_rng_step(r)
    reroll = table[(((r2 >> 8) & 7) + spawn_id) % 7]
    return np.where(direct, first, reroll), np.where(direct, r, r2), ~direct


@pytest.mark.parametrize(("prev", "spawn_count"), [(O_PIECE, 0x37), (I_HORIZ, 0xFF)])
def test_spawn_pick_over_every_rng_value(prev, spawn_count):
    # All 65536 seeds through the core (the R that pick sees is rng_step(seed)).
    state = spawn_state(0, spawn_count, prev, T_SPAWN)
    got_next = np.empty(65536, np.int64)
    got_rng = np.empty(65536, np.int64)
    for seed in range(65536):
        state["rng"] = seed
        game = Game.from_state(state)
        game.step(0)
        s = game.state()
        got_next[seed] = s["next_piece"]
        got_rng[seed] = s["rng"]
    seeds = np.arange(65536, dtype=np.int64)
    want_next, want_rng, _ = np_pick(np_rng_step(seeds), spawn_count, prev)
    np.testing.assert_array_equal(got_next, want_next)
    np.testing.assert_array_equal(got_rng, want_rng)


def test_transition_odds_match_doc_formula():
    # docs/mechanics.md#the-piece-picker-and-rng:
    # P(next=j | prev=p) = [j!=p]*8/64 + (2/64)*(1 + [j = ID(p) mod 7]) "if R were uniform".
    # Counted exactly over all 65536 R for each of the 8 values of the spawnCount low bits:
    # the sum over the 8 values is exactly the formula.
    everything = np.arange(65536, dtype=np.int64)
    favoured = {
        T_SPAWN: 2,
        J_SPAWN: 0,
        Z_SPAWN: 1,
        O_PIECE: 3,
        S_SPAWN: 4,
        L_SPAWN: 0,
        I_HORIZ: 4,
    }  # T->Z, J->T, Z->J, O->O, S->S, L->T, I->S
    matrix = []
    for p_idx, prev in enumerate(DOC_SPAWN_TABLE):
        assert favoured[prev] == prev % 7
        total = np.zeros(7, np.int64)
        for low_bits in range(8):
            nxt, _, rerolled = np_pick(everything, low_bits, prev)
            counts = np.array([(nxt == DOC_SPAWN_TABLE[j]).sum() for j in range(7)])
            assert counts.sum() == 65536
            # The first try is exactly uniform for every spawnCount: 8192 per index,
            # and the two rerolling indexes (7 and prev's own) give 2 * 8192 rerolls.
            assert rerolled.sum() == 2 * 8192
            first_try = np.array(
                [((nxt == DOC_SPAWN_TABLE[j]) & ~rerolled).sum() for j in range(7)]
            )
            assert list(first_try) == [0 if j == p_idx else 8192 for j in range(7)]
            total += counts
        want = [(8 if j != p_idx else 0) + 2 * (1 + (j == favoured[prev])) for j in range(7)]
        assert list(total) == [8192 * w for w in want]  # 8 * 65536 / 64 = 8192 per 1/64
        matrix.append(want)
    # StackRabbit's measured transition matrix (in 64ths), rows T J Z O S L I.
    assert matrix[0] == [2, 10, 12, 10, 10, 10, 10]
    assert matrix[1][:3] == [12, 2, 10]
    assert matrix[2][:3] == [10, 12, 2]
    assert matrix[3][3] == 4 and matrix[4][4] == 4
    assert matrix[5][0] == 12 and matrix[5][5:] == [2, 10]
    assert matrix[6] == [10, 10, 10, 10, 12, 10, 2]


def test_game_start_picks_current_then_next():
    # docs/mechanics.md#the-piece-picker-and-rng: at game start current = pick(); R = rng_step(R);
    # next = pick(); spawnID = 0 before the first call. Game.start gets the seed as initGameState
    # sees it.
    gen = np.random.default_rng(7)
    for _ in range(500):
        seed, count = int(gen.integers(65536)), int(gen.integers(256))
        cur, r, sc, sid = pick(seed, count, 0)
        nxt, r, sc, sid = pick(rng_step(r), sc, sid)
        s = Game.start(19, seed, spawn_count=count).state()
        assert (s["orientation"], s["next_piece"], s["rng"], s["spawn_count"], s["spawn_id"]) == (
            cur,
            nxt,
            r,
            sc,
            sid,
        )
        assert (s["x"], s["y"], s["soft"], s["play_state"]) == (5, 0, 0xA0, 1)


# ---------------------------------------------------------------------------------------
# Entry delay and line-clear delay (docs/mechanics.md#locking-and-entry-delay-are)


def lock_state(y: int, *, clear: bool, frame_counter: int, level: int = 19) -> dict:
    """A horizontal I at x=5 (columns 3-6 of row y) whose gravity step on step 1 fails.

    Rows below y are stacked (column 0 empty, never full). With clear=True, row y is
    full except columns 3-6, so the lock clears exactly row y.
    """
    rows = [0] * 22
    for r in range(y + 1, 20):
        rows[r + HIDDEN] = FULL & ~1
    if clear:
        rows[y + HIDDEN] = FULL & ~(0b1111 << 3)
    return make_state(
        rows=rows,
        orientation=I_HORIZ,
        x=5,
        y=y,
        level=level,
        fall_timer=doc_speed(level) - 1,
        frame_counter=frame_counter,
    )


def measure_delay(state: dict, max_steps: int = 100) -> dict:
    """Step with no buttons from a state whose step 1 locks (N = 1) up to the spawn S."""
    game = Game.from_state(state)
    history = run_pads(game, [0])
    assert history[0]["play_state"] == 2, "step 1 must lock"
    while history[-1]["play_state"] != 1:
        assert len(history) < max_steps
        history += run_pads(game, [0])
    spawn = len(history)
    score_steps = steps_where(history, "score", state["score"])
    lines_steps = steps_where(history, "lines", state["lines"])
    return {
        "S": spawn,
        "N": 1,
        "fc_N": history[0]["frame_counter"],
        "score_steps": score_steps,
        "lines_steps": lines_steps,
        "history": history,
    }


def k_rows(y: int) -> int:
    return math.ceil((20 - max(0, y - 2)) / 4)


DOC_NO_CLEAR_TABLE = {
    **dict.fromkeys(range(6), 18),
    **dict.fromkeys(range(6, 10), 16),
    **dict.fromkeys(range(10, 14), 14),
    **dict.fromkeys(range(14, 18), 12),
    18: 10,
    19: 10,
}


@pytest.mark.parametrize("y", range(20))
@pytest.mark.parametrize("fc0", [100, 101, 102, 103])
def test_entry_delay_without_clear(y, fc0):
    m = measure_delay(lock_state(y, clear=False, frame_counter=fc0))
    assert m["S"] - m["N"] == 2 * k_rows(y) + 8 == DOC_NO_CLEAR_TABLE[y]
    # docs/mechanics.md#scoring: with no lines cleared, playState 5 (points) runs in frame S - 4.
    states = [s["play_state"] for s in m["history"][: m["S"]]]
    assert states.index(6) + 1 == m["S"] - 4
    # docs/mechanics.md#locking-and-entry-delay-are: the new piece is at X=5, Y=0 after S and
    # fallTimer counts from S.
    s = m["history"][m["S"] - 1]
    assert (s["x"], s["y"], s["fall_timer"], s["orientation"]) == (5, 0, 0, T_SPAWN)


@pytest.mark.parametrize("y", range(1, 20))
@pytest.mark.parametrize("fc0", [100, 101, 102, 103])
def test_entry_delay_with_clear(y, fc0):
    m = measure_delay(lock_state(y, clear=True, frame_counter=fc0))
    k = k_rows(y)
    f4 = (m["fc_N"] + 2 * k + 3) % 256
    assert m["S"] - m["N"] == 2 * k + 25 + (-f4) % 4
    # Points, lines and level change in frame S - 5 (docs/mechanics.md#scoring).
    assert m["score_steps"] == [m["S"] - 5]
    assert m["lines_steps"] == [m["S"] - 5]
    assert m["history"][-1]["lines"] == [0x01, 0x00]


@pytest.mark.parametrize(("fc_n", "delay"), [(39, 27), (40, 30), (41, 29), (42, 28)])
def test_entry_delay_doc_example(fc_n, delay):
    # docs/mechanics.md#locking-and-entry-delay-are, example: lock at Y=19 with fc_N = 39, 40, 41,
    # 42 gave S-N = 27, 30, 29, 28.
    m = measure_delay(lock_state(19, clear=True, frame_counter=fc_n - 1))
    assert m["fc_N"] == fc_n
    assert m["S"] - m["N"] == delay


@pytest.mark.parametrize("y", [3, 9, 13, 18])
@pytest.mark.parametrize("fc0", [0, 1, 2, 3, 0xFFFE])
def test_entry_delay_tetris(y, fc0):
    # A vertical I in column 9 completing rows y-2..y+1: the same formula
    # (docs/mechanics.md#locking-and-entry-delay-are).
    rows = [0] * 22
    for r in range(y + 2, 20):
        rows[r + HIDDEN] = FULL & ~1
    for r in range(y - 2, y + 2):
        rows[r + HIDDEN] = FULL & ~(1 << 9)
    state = make_state(rows=rows, orientation=I_VERT, x=9, y=y, fall_timer=1, frame_counter=fc0)
    m = measure_delay(state)
    k = k_rows(y)
    f4 = (m["fc_N"] + 2 * k + 3) % 256
    assert m["S"] - m["N"] == 2 * k + 25 + (-f4) % 4
    final = m["history"][-1]
    assert final["lines"] == [0x04, 0x00]
    assert final["score"] == bcd(1200 * 20, 3)
    assert final["line_clear_stats"] == [0, 0, 0, 1]
    assert final["rows"][y + 2 + HIDDEN :] == [FULL & ~1] * (20 - (y + 2))
    assert final["rows"][: y + 2 + HIDDEN] == [0] * (y + 2 + HIDDEN)


def test_lock_step_bookkeeping():
    # docs/mechanics.md#one-frame-of-the-active-piece: step_down failure: Y restored, playState 2,
    # vramRow = min(vramRow, max(0, Y-2)).
    m = measure_delay(lock_state(12, clear=False, frame_counter=0))
    first = m["history"][0]
    assert (first["y"], first["play_state"], first["vram_row"]) == (12, 2, 10)
    # The cells are written only when the row copy is done (docs/mechanics.md#the-play-states,
    # playState 2).
    k = k_rows(12)
    written = [s["rows"][12 + HIDDEN] for s in m["history"][: k + 1]]
    assert written == [0] * k + [0b1111 << 3]  # on N+k, N = step 1


def test_spawn_frame_runs_no_input():
    # docs/mechanics.md#locking-and-entry-delay-are: S runs no input; the first input frame is S+1.
    # A tap of Left on S is lost, and a Left held from S is not a new press on S+1.
    base = lock_state(18, clear=False, frame_counter=0)
    s_step = measure_delay(base)["S"]
    pads = [0] * (s_step - 1) + [LEFT] + [0] * 5
    after = run_pads(Game.from_state(base), pads)
    assert [s["x"] for s in after[s_step - 1 :]] == [5] * 6
    pads = [0] * (s_step - 1) + [LEFT] * 6
    after = run_pads(Game.from_state(base), pads)
    assert [s["x"] for s in after[s_step - 1 :]] == [5] * 6
    assert [s["das"] for s in after[s_step - 1 :]] == [0, 1, 2, 3, 4, 5]
    pads = [0] * s_step + [LEFT, 0]
    after = run_pads(Game.from_state(base), pads)
    assert after[s_step]["x"] == 4


def test_inputs_ignored_during_entry_delay():
    # docs/mechanics.md#locking-and-entry-delay-are: during entry delay and line clears the game
    # ignores input (except pause etc.).
    base = lock_state(10, clear=True, frame_counter=5)
    quiet = measure_delay(base)["history"]
    gen = np.random.default_rng(3)
    pads = [0] + [int(v) for v in gen.choice([0, LEFT, RIGHT, DOWN, A, B], len(quiet) - 1)]
    noisy = run_pads(Game.from_state(base), pads)
    s_step = next(k for k, s in enumerate(quiet, 1) if k > 1 and s["play_state"] == 1)
    for a, b in zip(quiet[:s_step], noisy[:s_step], strict=True):
        assert {k: v for k, v in a.items() if k not in ("newly", "held")} == {
            k: v for k, v in b.items() if k not in ("newly", "held")
        }


def test_top_out_timeline():
    # docs/mechanics.md#top-out, example: a T spawned overlapping on frame S; its drop failed on
    # S+2; playState became $0A on S+3. (Level 19, no input.)
    rows = [0] * 22
    rows[1 + HIDDEN] = 1 << 5  # under the T's stem: the spawn position overlaps
    state = spawn_state(0x1234, 0, 0x0A, T_SPAWN) | {"rows": rows}
    states = run_pads(Game.from_state(state), [0] * 4)
    assert [s["play_state"] for s in states] == [1, 1, 2, 0x0A]
    assert states[3]["curtain_row"] == 0xF0


def test_overlapping_spawn_rescued_by_shift():
    # docs/mechanics.md#top-out: an overlapping spawn is not a top-out if a valid shift comes first.
    rows = [0] * 22
    rows[1 + HIDDEN] = 1 << 5
    state = spawn_state(0x1234, 0, 0x0A, T_SPAWN) | {"rows": rows}
    states = run_pads(Game.from_state(state), [0, LEFT, 0, 0, 0])
    assert states[1]["x"] == 4
    assert all(s["play_state"] != 0x0A for s in states)


# ---------------------------------------------------------------------------------------
# Scoring (docs/mechanics.md#scoring), driven through play state 5.


def score_state(score, hdp, n, level, lines=(0, 0), stats=(0, 0, 0, 0)) -> dict:
    return make_state(
        play_state=5,
        completed_lines=n,
        hold_down_points=hdp,
        level=level,
        score=list(score),
        lines=list(lines),
        line_clear_stats=list(stats),
        orientation=0x13,
    )


def run_score(score, hdp, n, level, lines=(0, 0), stats=(0, 0, 0, 0)) -> dict:
    game = Game.from_state(score_state(score, hdp, n, level, lines, stats))
    game.step(0)
    return game.state()


@pytest.mark.parametrize("level", [0, 1, 5, 9, 18, 19, 20, 28, 29, 40])
@pytest.mark.parametrize(("n", "base"), [(1, 40), (2, 100), (3, 300), (4, 1200)])
def test_line_points_from_zero(level, n, base):
    s = run_score([0, 0, 0], 0, n, level)
    assert from_bcd(s["score"]) == base * (level + 1)
    assert s["play_state"] == 6 and s["completed_lines"] == 0


def test_zero_lines_zero_points():
    s = run_score(bcd(123456, 3), 0, 0, 19)
    assert s["score"] == bcd(123456, 3)
    assert s["lines"] == [0, 0] and s["line_clear_stats"] == [0, 0, 0, 0]


@pytest.mark.parametrize(
    ("start", "n", "level", "want"),
    [
        (998_000, 4, 19, 999_999),  # 998000 + 24000 passes 999999
        (999_999, 1, 19, 999_999),  # re-capped on every later clear
        (999_999, 4, 0, 999_999),
        (990_000, 4, 7, 999_600),  # 9600 more: no cap
        (975_999, 4, 19, 999_999),  # 975999 + 24000 = 999999 exactly: no wrap either way
        (976_000, 4, 19, 999_999),
    ],
)
def test_score_cap(start, n, level, want):
    s = run_score(bcd(start, 3), 0, n, level)
    assert from_bcd(s["score"]) == want


def test_soft_drop_points_doc_examples():
    # docs/mechanics.md#scoring, measured on the ROM: hdp 19 from score 0 gave 12, not 18.
    assert from_bcd(run_score([0, 0, 0], 19, 0, 19)["score"]) == 12
    # hdp 3 at low digits 99 gives 1.
    assert from_bcd(run_score(bcd(99, 3), 3, 0, 19)["score"]) == 100
    # hdp 0 and 1 give nothing; hdp is cleared.
    for hdp in (0, 1):
        s = run_score(bcd(4321, 3), hdp, 0, 19)
        assert from_bcd(s["score"]) == 4321 and s["hold_down_points"] == 0


def test_soft_drop_points_over_all_low_digits():
    # docs/mechanics.md#scoring: over all 100 low-digit values hdp = 2 always gives 1; hdp 3..16 are
    # right or short; hdp >= 17 is always short; no hdp in 2..21 gives more than 15. "hdp 17..21
    # give 10..14" holds from low digits 00 (and is the most they give): the reference score_update
    # gives hdp 17 anything from 1 (low digits 99) to 10.
    for high in (0, 1234):
        best = dict.fromkeys(range(2, 22), 0)
        by_low = {}
        for low in range(100):
            start = high * 100 + low
            awards = {}
            for hdp in range(2, 22):
                s = run_score(bcd(start, 3), hdp, 0, 19)
                awards[hdp] = from_bcd(s["score"]) - start
                best[hdp] = max(best[hdp], awards[hdp])
                assert s["hold_down_points"] == 0
            assert awards[2] == 1
            assert all(1 <= awards[h] <= h - 1 for h in range(3, 17))
            assert all(1 <= awards[h] < h - 1 for h in range(17, 22))
            assert max(awards.values()) <= 15
            by_low[low] = awards
        assert [by_low[0][h] for h in range(17, 22)] == [10, 11, 12, 13, 14]
        assert [best[h] for h in range(17, 22)] == [10, 11, 12, 13, 14]
        assert best[16] == 15


def test_score_and_lines_match_reference_sweep():
    # The reference score_update and lines loop (docs/mechanics.md#levels-and-transitions) against
    # the core, deterministic sweep.
    gen = np.random.default_rng(2024)
    for _ in range(6000):
        score = [int(gen.integers(10)) << 4 | int(gen.integers(10)) for _ in range(3)]
        lines = [int(gen.integers(10)) << 4 | int(gen.integers(10)), int(gen.integers(10))]
        stats = [int(gen.integers(10)) << 4 | int(gen.integers(10)) for _ in range(4)]
        hdp, n, level = int(gen.integers(31)), int(gen.integers(5)), int(gen.integers(41))
        check_state_5(score, hdp, n, level, lines, stats)


@settings(max_examples=300, deadline=None)
@given(
    score=st.lists(st.integers(0, 99), min_size=3, max_size=3),
    hdp=st.integers(0, 255),
    n=st.integers(0, 4),
    level=st.integers(0, 255),
    lines_lo=st.integers(0, 99),
    lines_hi=st.integers(0, 9),
)
def test_score_and_lines_match_reference(score, hdp, n, level, lines_lo, lines_hi):
    score = [v // 10 << 4 | v % 10 for v in score]
    lines = [lines_lo // 10 << 4 | lines_lo % 10, lines_hi]
    check_state_5(score, hdp, n, level, lines, [0, 0, 0, 0])


def check_state_5(score, hdp, n, level, lines, stats):
    s = run_score(score, hdp, n, level, lines, stats)
    lo, hi, new_level = add_lines(lines[0], lines[1], level, n)
    want_stats = list(stats)
    if n:
        v = (want_stats[n - 1] + 1) & 0xFF
        if (v & 0x0F) >= 0x0A:
            v = (v + 6) & 0xFF
        want_stats[n - 1] = v
    assert s["lines"] == [lo, hi]
    assert s["level"] == new_level
    assert s["score"] == list(score_update(*score, hdp, n, new_level))
    assert s["line_clear_stats"] == want_stats
    assert (s["hold_down_points"], s["completed_lines"], s["play_state"]) == (0, 0, 6)


def test_soft_drop_points_through_a_real_lock():
    # docs/mechanics.md#soft-drop: a soft drop ending in a lock has hdp = successful steps + 1;
    # docs/mechanics.md#scoring awards hdp - 1 (hdp 4 from 0 gives 3) in frame S-4 when no line is
    # cleared. Level 0: no gravity.
    rows = [0] * 22
    game = make(rows=rows, orientation=T_SPAWN, y=15, level=0)
    states = run_pads(game, [DOWN] * 9 + [0] * 30)
    assert [s["y"] for s in states[:9]] == [15, 15, 16, 16, 17, 17, 18, 18, 18]
    assert states[8]["play_state"] == 2
    assert states[8]["hold_down_points"] == 4
    s_step = next(k for k, s in enumerate(states, 1) if k > 9 and s["play_state"] == 1)
    assert s_step - 9 == 10  # entry delay for Y=18 (docs/mechanics.md#locking-and-entry-delay-are)
    assert steps_where(states, "score", [0, 0, 0]) == [s_step - 4]
    assert from_bcd(states[-1]["score"]) == 3


# ---------------------------------------------------------------------------------------
# Lines and level (docs/mechanics.md#levels-and-transitions)


def test_level_19_to_20_at_140_lines():
    s = run_score([0, 0, 0], 0, 1, 19, lines=bcd(139, 2))
    assert (s["lines"], s["level"]) == (bcd(140, 2), 20)
    assert from_bcd(s["score"]) == 840  # 40 x 21: the new level counts (EMU)


def test_level_19_stays_at_130_lines():
    s = run_score([0, 0, 0], 0, 1, 19, lines=bcd(129, 2))
    assert (s["lines"], s["level"]) == (bcd(130, 2), 19)
    assert from_bcd(s["score"]) == 800


def test_level_29_at_230_lines():
    s = run_score([0, 0, 0], 0, 1, 28, lines=bcd(229, 2))
    assert (s["lines"], s["level"]) == (bcd(230, 2), 29)


def level_by_lines(start_level: int, total: int, per_clear: int = 1) -> list[int]:
    """Level after each clear of `per_clear` lines, from 0 lines at start_level."""
    state = score_state([0, 0, 0], 0, per_clear, start_level)
    levels = []
    for _ in range(total // per_clear):
        game = Game.from_state(state)
        game.step(0)
        state = game.state()
        levels.append(state["level"])
        state["play_state"], state["completed_lines"] = 5, per_clear
    assert from_bcd(state["lines"]) == total
    return levels


def test_start_19_progression():
    # docs/mechanics.md#levels-and-transitions: level 19 for 0-139 lines, 20 at 140, ..., 25 at 190,
    # 26 at 200, 29 at 230.
    levels = level_by_lines(19, 300)  # levels[i] = level at i+1 lines
    for lines in range(1, 301):
        want = 19 if lines < 140 else 20 + (lines - 140) // 10
        assert levels[lines - 1] == want, lines
    assert levels[190 - 1] == 25 and levels[200 - 1] == 26 and levels[230 - 1] == 29


@pytest.mark.parametrize("start", range(20))
def test_first_level_up_by_start_level(start):
    # docs/mechanics.md#levels-and-transitions, table: 0-9 -> 10*(start+1); 10-15 -> 100; 16 -> 110;
    # 17 -> 120; 18 -> 130; 19 -> 140. After that, +1 at every multiple of ten.
    first = 10 * (start + 1) if start <= 9 else {16: 110, 17: 120, 18: 130, 19: 140}.get(start, 100)
    levels = level_by_lines(start, 250)
    for lines in range(1, 251):
        want = start if lines < first else start + 1 + (lines - first) // 10
        assert levels[lines - 1] == want, lines


def test_start_0_levels_up_at_10_lines():
    levels = level_by_lines(0, 20)
    assert levels[8] == 0 and levels[9] == 1 and levels[19] == 2


def test_tetrises_level_up_once_per_multiple_of_ten():
    # Tetrises from start 0: levels at 4, 8, ..., 40 lines.
    assert level_by_lines(0, 40, 4) == [0, 0, 1, 1, 2, 2, 2, 3, 3, 4]
    # A level far behind lines/10 still gains at most 1 per line that ends in 0
    # (docs/mechanics.md#levels-and-transitions).
    s = run_score([0, 0, 0], 0, 4, 0, lines=bcd(38, 2))
    assert (s["lines"], s["level"]) == (bcd(42, 2), 1)
    assert from_bcd(s["score"]) == 1200 * 2
    # BCD carry into the hundreds: 98 + 4 = 102; start 19 does not level up there.
    s = run_score([0, 0, 0], 0, 4, 19, lines=bcd(98, 2))
    assert (s["lines"], s["level"]) == (bcd(102, 2), 19)


def test_line_clear_stats_bcd():
    # docs/mechanics.md#statistics-counters: lineClearStatsByType[n-1] + 1, one byte, low-nibble
    # fix-up only.
    for n in range(1, 5):
        stats = [0x09, 0x19, 0x99, 0x45]
        s = run_score([0, 0, 0], 0, n, 19, stats=stats)
        want = list(stats)
        want[n - 1] = {0x09: 0x10, 0x19: 0x20, 0x99: 0xA0, 0x45: 0x46}[stats[n - 1]]
        assert s["line_clear_stats"] == want


# ---------------------------------------------------------------------------------------
# Frame rules (docs/mechanics.md#one-frame-of-the-active-piece)


def first_piece(orientation=I_VERT, x=5, y=2, **extra) -> Game:
    """A first piece during the 96-frame hold (no gravity), as Game.start leaves it."""
    return make(orientation=orientation, x=x, y=y, soft=0xA0, **extra)


def test_das_from_first_input_frame():
    # docs/mechanics.md#das-and-shifting: Right held from frame 1 moves on frames 1, 17, 23, 29, ...
    states = run_pads(first_piece(x=0), [RIGHT] * 60)
    assert steps_where(states, "x", 0) == [1, 17, 23, 29, 35, 41, 47, 53, 59]
    assert [s["das"] for s in states[:17]] == [*range(16), 10]


def test_das_blocked_at_wall_stays_charged():
    # docs/mechanics.md#das-and-shifting: a blocked shift sets the counter to 16 and is retried
    # every frame.
    states = run_pads(first_piece(x=5), [RIGHT] * 40)
    assert steps_where(states, "x", 5) == [1, 17, 23, 29]
    assert all(s["x"] == 9 and s["das"] == 16 for s in states[34:])
    # A blocked tap also charges it.
    states = run_pads(first_piece(x=9), [RIGHT, 0, RIGHT])
    assert [(s["x"], s["das"]) for s in states] == [(9, 16), (9, 16), (9, 16)]


def test_charged_das_moves_as_soon_as_space_is_free():
    # A vertical I in column 4 beside a wall in column 5 (rows 0-7), Right held, level 19:
    # blocked (das 16) every frame until the piece's top cell is below row 7, then it
    # moves on that very frame (das 16 -> 17 -> 10), then every 6 frames.
    rows = [0] * 22
    for r in range(8):
        rows[r + HIDDEN] = 1 << 5
    states = run_pads(make(rows=rows, orientation=I_VERT, x=4, y=2), [RIGHT] * 30)
    assert steps_where(states, "y", 2)[:8] == [2, 4, 6, 8, 10, 12, 14, 16]
    assert all(s["das"] == 16 and s["x"] == 4 for s in states[:16])
    assert steps_where(states, "x", 4) == [17, 23, 29]
    assert states[16]["das"] == 10 and states[16]["y"] == 10


def test_das_carries_over_to_next_piece():
    # docs/mechanics.md#das-and-shifting: Right held through entry delay with the counter at 16: the
    # new piece moves on its first input frame (17 -> 10), then every 6 frames.
    state = spawn_state(0x4321, 3, 0x0A, T_SPAWN) | {"das": 16, "held": RIGHT}
    states = run_pads(Game.from_state(state), [RIGHT] * 14)
    assert states[0]["x"] == 5 and states[0]["das"] == 16  # S: no input
    assert steps_where(states, "x", 5) == [2, 8, 14]
    assert states[1]["das"] == 10
    # Pressing a direction fresh on the first input frame moves at once, counter 0.
    state = spawn_state(0x4321, 3, 0x0A, T_SPAWN) | {"das": 16, "held": 0}
    states = run_pads(Game.from_state(state), [0, LEFT, LEFT])
    assert [(s["x"], s["das"]) for s in states] == [(5, 16), (4, 0), (4, 1)]


def test_down_blocks_shift_and_freezes_das():
    # docs/mechanics.md#das-and-shifting: any held Down disables shifting and freezes the counter;
    # R then R+D.
    states = run_pads(first_piece(das=7), [RIGHT | DOWN] * 5 + [RIGHT] * 3)
    assert [s["x"] for s in states] == [5] * 8
    assert [s["das"] for s in states] == [7] * 5 + [8, 9, 10]
    states = run_pads(first_piece(), [RIGHT, RIGHT | DOWN, RIGHT | DOWN, RIGHT])
    assert [(s["x"], s["das"]) for s in states] == [(6, 0), (6, 0), (6, 0), (6, 1)]


def test_right_wins_and_fastest_tapping():
    states = run_pads(first_piece(), [LEFT | RIGHT])
    assert states[0]["x"] == 6
    states = run_pads(first_piece(), [LEFT, LEFT | RIGHT])
    assert [s["x"] for s in states] == [4, 5]  # new Right press, Right wins
    # docs/mechanics.md#das-and-shifting: the fastest tapping is one move every 2 frames.
    states = run_pads(first_piece(x=0), [RIGHT, 0] * 4 + [RIGHT, RIGHT])
    assert [s["x"] for s in states] == [1, 1, 2, 2, 3, 3, 4, 4, 5, 5]


def test_rotation_needs_a_new_press_and_a_wins():
    # docs/mechanics.md#rotation: only new presses rotate; A before B; the T cycles
    # $02 -> $03 -> $00 -> $01.
    states = run_pads(first_piece(orientation=T_SPAWN, y=5), [A, A, A, 0, A, 0, A | B, 0, B])
    assert [s["orientation"] for s in states] == [3, 3, 3, 3, 0, 0, 1, 1, 0]
    # A held, B newly pressed: B rotates.
    states = run_pads(first_piece(orientation=T_SPAWN, y=5), [A, A | B])
    assert [s["orientation"] for s in states] == [3, 2]


def test_rotation_has_no_kicks_and_comes_after_shift():
    # Vertical I at column 0: horizontal would need column -2, so A does nothing.
    states = run_pads(first_piece(orientation=I_VERT, x=0), [A, 0, B])
    assert [s["orientation"] for s in states] == [I_VERT] * 3
    # Shift + rotate on one frame tests the rotation at the shifted X (docs/mechanics.md#rotation).
    states = run_pads(first_piece(orientation=I_VERT, x=1), [RIGHT | A])
    assert (states[0]["x"], states[0]["orientation"]) == (2, I_HORIZ)


def test_soft_drop_timeline_level_0():
    # docs/mechanics.md#soft-drop: press Down on frame P -> row steps on P+2, P+4, ...; hdp counts
    # the steps.
    states = run_pads(make(level=0, fall_timer=5), [0, 0] + [DOWN] * 12)
    p = 3
    assert steps_where(states, "y", 0) == [p + 2, p + 4, p + 6, p + 8, p + 10]
    assert [states[p + 2 * i - 1]["hold_down_points"] for i in range(1, 6)] == [1, 2, 3, 4, 5]
    assert all(s["fall_timer"] <= 2 for s in states[p + 1 :])


def test_soft_drop_cancelled_by_release_or_other_direction():
    for other in (0, LEFT, RIGHT, UP):
        states = run_pads(make(level=0), [DOWN] * 4 + [DOWN | other if other else 0])
        assert states[3]["hold_down_points"] == 1 and states[3]["soft"] == 2
        assert (states[4]["soft"], states[4]["hold_down_points"]) == (0, 0)


def test_down_with_left_or_right_neither_shifts_nor_soft_drops():
    for side in (LEFT, RIGHT):
        states = run_pads(make(level=0), [DOWN | side] * 10)
        assert all((s["x"], s["y"], s["soft"]) == (5, 0, 0) for s in states)


def test_down_held_through_spawn_needs_a_new_press():
    # docs/mechanics.md#soft-drop: spawn sets autorepeatY = 0; a held Down does not soft-drop the
    # new piece.
    state = spawn_state(0x4321, 3, 0x0A, T_SPAWN) | {"held": DOWN, "level": 0}
    states = run_pads(Game.from_state(state), [DOWN] * 10 + [0] + [DOWN] * 4)
    assert all(s["y"] == 0 and s["soft"] == 0 for s in states[:11])
    assert steps_where(states, "y", 0) == [14]  # re-pressed on step 12 -> row on 14


def test_first_piece_hold_96_frames():
    # docs/mechanics.md#the-first-pieces-96-frame-hold: no gravity until input frame 97 (level 19),
    # then every 2 frames.
    for seed in (0x8988, 0x1234, 0xBEEF):
        game = Game.start(19, seed)
        states = run_pads(game, [0] * 101)
        assert steps_where(states, "y", 0) == [97, 99, 101]
        assert states[95]["soft"] == 0 and states[94]["soft"] == 0xFF
    # Shifting and rotating still work during the hold.
    states = run_pads(Game.start(19, 0x8988), [LEFT, 0, A] + [0] * 10)
    assert states[0]["x"] == 4 and all(s["y"] == 0 for s in states)


def test_first_piece_down_ends_hold():
    # docs/mechanics.md#the-first-pieces-96-frame-hold: a new Down press during the hold ends it at
    # once and starts a soft drop. With slow gravity (level 18, 3 frames/row): Down on frame 1 ->
    # rows on 3, 5, 7 (the numbers measured on the ROM). Also later in the hold: press on P -> rows
    # on P+2, P+4.
    states = run_pads(Game.start(18, 0x8988), [DOWN] * 8)
    assert steps_where(states, "y", 0) == [3, 5, 7]
    states = run_pads(Game.start(0, 0x8988), [0] * 9 + [DOWN] * 6)
    assert steps_where(states, "y", 0) == [12, 14]


def test_first_piece_down_at_level_19_follows_the_pseudocode():
    # At 2 frames/row the active-piece routine (docs/mechanics.md#soft-drop) also lets gravity act
    # on the frame after the press (fallTimer reaches 2 while autorepeatY is still 2): Down on input
    # frame 1 -> rows on 2, 3, 5, 7, and Down pressed on frame P >= 2 of the hold -> rows on P, P+2.
    # ("Down on frame 1 -> rows 3, 5, 7", measured without a level, holds at level 18,
    # test_first_piece_down_ends_hold; at 19 the routine gives 2, 3, 5, 7.)
    states = run_pads(Game.start(19, 0x8988), [DOWN] * 8)
    assert steps_where(states, "y", 0) == [2, 3, 5, 7]
    states = run_pads(Game.start(19, 0x8988), [0] * 9 + [DOWN] * 6)
    assert steps_where(states, "y", 0) == [10, 12, 14]
    # The same for a normal piece (not "every piece moves 2 frames after the Down press",
    # docs/mechanics.md#soft-drop): spawn on step 1 (S), Down from the first input frame S+1 -> rows
    # on S+2 (gravity), S+3, S+5, S+7 (soft-drop steps).
    state = spawn_state(0x4321, 3, 0x0A, T_SPAWN) | {"level": 19}
    states = run_pads(Game.from_state(state), [0] + [DOWN] * 7)
    assert steps_where(states, "y", state["y"])[1:] == [3, 4, 6, 8]
    assert [states[k - 1]["hold_down_points"] for k in (3, 4, 6, 8)] == [0, 1, 2, 3]


@pytest.mark.parametrize("level", [*range(31), 100, 255])
def test_gravity_after_spawn(level):
    # docs/mechanics.md#gravity-and-frames-per-drop: a new piece first drops on its d-th input
    # frame, then every d frames (S = step 1 here, the spawn). Level 29+: every frame from the first
    # input frame.
    d = doc_speed(level)
    state = spawn_state(0x4321, 3, 0x0A, T_SPAWN) | {"level": level}
    states = run_pads(Game.from_state(state), [0] * (1 + 3 * d))
    assert steps_where(states, "y", state["y"])[1:] == [1 + d, 1 + 2 * d, 1 + 3 * d]


def test_level_19_and_29_gravity_from_first_input_frame():
    for level, rows_at in ((19, [3, 5, 7, 9]), (29, [2, 3, 4, 5])):
        state = spawn_state(0x4321, 3, 0x0A, T_SPAWN) | {"level": level}
        states = run_pads(Game.from_state(state), [0] * 9)
        assert steps_where(states, "y", state["y"])[1:5] == rows_at


def random_board(gen: np.random.Generator) -> list[int]:
    rows = [0] * 22
    top = int(gen.integers(2, 20))
    density = float(gen.uniform(0.2, 0.9))
    for r in range(top, 20):
        mask = 0
        for c in range(10):
            if gen.random() < density:
                mask |= 1 << c
        rows[r + HIDDEN] = mask & ~(1 << int(gen.integers(10)))  # never full
    # cells locked above the field (docs/mechanics.md#playfield-and-collision)
    if gen.random() < 0.2:
        rows[int(gen.integers(2))] = int(gen.integers(1024))
    return rows


PLAY_PADS = (
    0,
    0,
    0,
    LEFT,
    RIGHT,
    DOWN,
    A,
    B,
    UP,
    LEFT | RIGHT,
    LEFT | DOWN,
    RIGHT | DOWN,
    DOWN | A,
    LEFT | A,
    RIGHT | B,
    A | B,
    UP | DOWN,
    DOWN | LEFT | RIGHT,
    SELECT,
    START | LEFT,
)


def test_active_frames_match_doc_pseudocode():
    # The active-piece routine (docs/mechanics.md#one-frame-of-the-active-piece) is exact; drive the
    # core and the transcription with the same random pads.
    gen = np.random.default_rng(99)
    keys = (
        "x",
        "y",
        "orientation",
        "fall_timer",
        "das",
        "soft",
        "hold_down_points",
        "play_state",
        "vram_row",
        "newly",
        "held",
        "frame_counter",
        "rng",
    )
    frames = locks = 0
    for _ in range(400):
        rows = random_board(gen)
        level = int(gen.choice([0, 5, 8, 9, 12, 15, 18, 19, 25, 28, 29, 30, 60]))
        while True:
            orientation = int(gen.integers(19))
            x, y = int(gen.integers(10)), int(gen.integers(-1, 19))
            if doc_fits(rows, orientation, x, y):
                break
        soft = int(gen.choice([0, 0, 1, 2, int(gen.integers(0xA0, 0x100))]))
        ref = make_state(
            rows=rows,
            orientation=orientation,
            x=x,
            y=y,
            level=level,
            soft=soft,
            fall_timer=int(gen.integers(256)),
            das=int(gen.integers(17)),
            hold_down_points=int(gen.integers(40)),
            held=int(gen.choice(PLAY_PADS)),
            vram_row=int(gen.choice([0x20, 0x20, int(gen.integers(21))])),
            rng=int(gen.integers(65536)),
            frame_counter=int(gen.integers(65536)),
        )
        game = Game.from_state(ref)
        hold = 0
        for _ in range(300):
            if hold == 0:
                pad, hold = int(gen.choice(PLAY_PADS)), int(gen.integers(1, 8))
            hold -= 1
            ref_nmi(ref, pad)
            ref_active_frame(ref)
            game.step(pad)
            got = game.state()
            frames += 1
            assert {k: got[k] for k in keys} == {k: ref[k] for k in keys}
            if ref["play_state"] != 1:
                locks += 1
                break
    assert frames > 15000 and locks > 200


# ---------------------------------------------------------------------------------------
# Clearing row 0 (board.pxd clear_row). Its comment: "the whole page moves down a row
# (rows 0-19 to 1-20, the row lost below the field; row -2 to row -1). Row -2 is then
# refilled from page bytes no game writes, which are empty", and row 0 becomes empty.
# Derived from DIS, not yet confirmed on the ROM.


def row0_state(rows: list[int], y: int = 0, orientation: int = I_HORIZ) -> dict:
    return make_state(
        rows=rows, play_state=3, line_index=0, vram_row=0x20, y=y, x=5, orientation=orientation
    )


def test_clear_row_0_moves_the_whole_board_down():
    rows = [0] * 22
    rows[0], rows[1] = 0b1000000001, 0b0110000000  # rows -2 and -1 (cells above the field)
    rows[0 + HIDDEN] = FULL
    for r in range(1, 20):
        rows[r + HIDDEN] = (r * 37 + 5) & 0x1FF  # distinct, never full
    game = Game.from_state(row0_state(rows))
    game.step(0)
    s = game.state()
    want = [0, *rows[:-1]]  # every row one lower: -2 -> -1, -1 -> 0, 0 -> 1, ..., 18 -> 19
    want[HIDDEN] = 0  # row 0 empty (the old row -1 is lost)
    assert s["rows"] == want
    assert (s["completed_lines"], s["completed_row"][0], s["line_index"]) == (1, 0, 1)
    assert s["orientation"] == 0x13


def test_clear_row_0_full_row_is_checked_again():
    # Consequence of the comment plus docs/mechanics.md#line-clears-and-their-animation (rows
    # max(0, Y-2) + i): the full row moved to row 1 is found again by the next check, so one
    # full row 0 counts 2 lines and the old rows 1-18 end one row lower (old row 19 is lost).
    rows = [0] * 22
    rows[0 + HIDDEN] = FULL
    for r in range(1, 20):
        rows[r + HIDDEN] = (r * 37 + 5) & 0x1FF
    game = Game.from_state(row0_state(rows))
    states = run_pads(game, [0] * 4)
    final = states[-1]
    assert final["completed_lines"] == 2
    assert final["completed_row"] == [0, 1, 0, 0]
    assert final["rows"][HIDDEN:] == [0, 0, *rows[1 + HIDDEN : -1]]
    assert final["play_state"] == 4


def test_clear_row_0_in_a_tetris_leaves_a_full_row():
    # The same mechanism in a whole lock: a vertical I completing rows 0-3 (Y=2, checks rows 0-3).
    # Row 0's clear pushes the four full rows to rows 1-4; checks 2-4 clear rows 1-3, so 4 lines are
    # scored, a full row stays at row 4 and the old bottom row is gone. The delay is the usual
    # line-clear formula (docs/mechanics.md#locking-and-entry-delay-are).
    rows = [0] * 22
    for r in range(4, 20):
        rows[r + HIDDEN] = FULL & ~1
    for r in range(4):
        rows[r + HIDDEN] = FULL & ~(1 << 9)
    m = measure_delay(
        make_state(rows=rows, orientation=I_VERT, x=9, y=2, fall_timer=1, frame_counter=0)
    )
    f4 = (m["fc_N"] + 2 * 5 + 3) % 256
    assert m["S"] - m["N"] == 2 * 5 + 25 + (-f4) % 4
    final = m["history"][-1]
    assert final["completed_row"] == [0, 1, 2, 3]
    assert (final["lines"], final["line_clear_stats"]) == ([0x04, 0x00], [0, 0, 0, 1])
    assert from_bcd(final["score"]) == 1200 * 20
    assert final["rows"][HIDDEN:] == [0, 0, 0, 0, FULL] + [FULL & ~1] * 15
