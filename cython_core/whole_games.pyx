"""Whole simulated games: the two-piece planner plays the NES-exact game in C.

The loop is the bot's on the real ROM (nesbot/bot/policy.py) without the emulator: when a new
piece becomes active the planner chooses and the executed path's button bytes are sent one
per frame, then nothing until the next piece. So simulated figures carry over to the ROM.
"""

from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memmove

from nesbot._core.calming cimport Verdict
from nesbot._core.game cimport Game
from nesbot._core.pieces cimport LEVEL_ONE_FRAME_ROWS as LEVEL_29
from nesbot._core.rules cimport (
    PLAY_ACTIVE,
    PLAY_CLEAR_ANIMATION,
    PLAY_SCORE,
    PLAY_SPAWN,
    PLAY_TOPPED_OUT,
    POWER_ON_RNG,
    SCORE_CAP,
    Game as GameC,
    game_step,
    rng_step,
)
from nesbot._core.blind cimport choose_blind
from nesbot._core.planner cimport Planner

cdef enum:
    PATH_ROOM = 65536                # Placement.frames is 16 bits
    LEVEL_39 = 39                    # the community's format counts the score here


cdef inline uint32_t bcd(const uint8_t* little_endian, int n) noexcept nogil:
    cdef uint32_t value = 0
    cdef int i
    for i in range(n - 1, -1, -1):
        value = value * 100 + (little_endian[i] >> 4) * 10 + (little_endian[i] & 0x0F)
    return value


cdef inline uint32_t pieces_spawned(const GameC* g) noexcept nogil:
    """Pieces the game has spawned: the sum of the ROM's per-type BCD counters."""
    cdef uint32_t total = 0
    cdef int t
    for t in range(7):
        total += bcd(&g.piece_stats[2 * t], 2)
    return total


# The NES RNG's cycle from its power-on state: every state a running game's RNG can hold.
cdef enum:
    RNG_PERIOD = 32767
cdef uint16_t RNG_CYCLE[RNG_PERIOD]
RNG_CYCLE[0] = POWER_ON_RNG
for _k in range(1, RNG_PERIOD):
    RNG_CYCLE[_k] = rng_step(RNG_CYCLE[_k - 1])


cdef inline uint16_t drawn_rng(uint64_t seed, uint64_t piece) noexcept nogil:
    """An RNG state for the picker of piece `piece` of the game with pieces seed `seed`:
    a state of the RNG's cycle, chosen by splitmix64 of the pair. It is what the NES's RNG,
    stepped once a frame, looks like to a picker that cannot know how many frames went by."""
    cdef uint64_t z = seed * <uint64_t>0x9E3779B97F4A7C15ULL + piece + 1
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EBULL
    return RNG_CYCLE[(z ^ (z >> 31)) % RNG_PERIOD]


def nes_rng(int steps) -> int:
    """The NES RNG after `steps` steps from its power-on value $8988 (its cycle is 32,767)."""
    return RNG_CYCLE[steps % RNG_PERIOD] if steps > 0 else POWER_ON_RNG


def play(Planner planner not None, Game game not None, long max_frames=10_000_000,
         int stop_level=255, int reaction=0, long long pieces_seed=-1,
         long max_pieces=-1) -> dict:
    """Play `game` (in place) with the planner until top-out, `max_frames` frames, the
    level reaching `stop_level`, or (`max_pieces` >= 0) when a piece would become active
    after `max_pieces` were played (the game is left at its first active frame).

    `reaction` N > 0: for a new piece's first N input frames the planner may not use the
    next piece (nesbot._core.blind.plan_blind); then it plans again, from where the piece is,
    with it.

    `pieces_seed` S >= 0: the pieces no longer depend on how the game is played. The ROM's
    picker still draws every piece by its own rule, but from a state of the RNG's cycle drawn
    for (S, the piece's number) instead of the one the frames so far left, so two planners
    given the same game and S meet the same pieces (docs/strength.md). The picker's odds
    are those of a uniformly drawn state, as `rules.transition_odds` assumes.

    Returns score (as the game shows it, capped), lines, level, pieces, frames, tetrises,
    topped_out, maxout (999,999 reached before level 29), pre29_points (points earned while
    the level is below 29, uncapped: the score's own increments, and once the score is
    capped, what the ROM would add to a zero score), pre29_line_points (of them, the line
    clears' alone, without soft-drop points), points and line_points (the same two counts
    over the whole game), points_at_39 and line_points_at_39 (the two when the clear that
    reaches level 39 was scored, None if none did), lines_at_29 (lines when level 29
    began, None if it did not), fallbacks (plans whose every option the calming rules
    vetoed) and truncated (plans whose search ran out of node capacity).
    """
    cdef GameC* g = &game.g
    cdef GameC before               # the game before a step that may score
    cdef GameC again                # a copy of it, stepped from a zero score
    cdef uint8_t* pads = <uint8_t*>malloc(PATH_ROOM)
    cdef int path = 0, next_pad = 0, best
    cdef long frames = 0
    cdef uint32_t pieces = 0, tetrises = 0, pre29 = 0, pre29_lines = 0, gained, cleared
    cdef uint64_t points = 0, line_points = 0
    cdef long long points_at_39 = -1, line_points_at_39 = -1
    cdef int lines_at_29 = 0 if g.level >= LEVEL_29 else -1
    cdef long fallbacks = planner.fallbacks, truncations = planner.truncations
    cdef uint8_t pad
    cdef bint was_active = False, maxout = False
    cdef Verdict verdict
    if reaction < 0:
        raise ValueError(f"reaction {reaction} is negative")
    if pads == NULL:
        raise MemoryError()
    try:
        with nogil:
            while (frames < max_frames and g.play_state != PLAY_TOPPED_OUT
                   and g.level < stop_level):
                if g.play_state == PLAY_ACTIVE and not was_active and pieces == max_pieces:
                    break
                if g.play_state == PLAY_ACTIVE and (
                        not was_active or (reaction and next_pad == reaction)):
                    if was_active or not reaction:
                        best = planner.choose(g, &verdict)
                    else:
                        best = choose_blind(planner, g, &verdict)
                    path = planner.chosen_pads(best, pads) if best >= 0 else 0
                    if was_active:
                        path += reaction   # the replan's pads continue the frame count
                        memmove(pads + reaction, pads, path - reaction)
                    else:
                        pieces += 1
                        next_pad = 0
                pad = 0
                if g.play_state == PLAY_ACTIVE and next_pad < path:
                    pad = pads[next_pad]
                next_pad += g.play_state == PLAY_ACTIVE
                was_active = g.play_state == PLAY_ACTIVE
                if g.play_state == PLAY_CLEAR_ANIMATION or g.play_state == PLAY_SCORE:
                    # The NMI may end the animation and the logic score in the same step:
                    # the step scored if it left play state 5 behind.
                    before = g[0]
                    game_step(g, pad)
                    if g.play_state > PLAY_SCORE:
                        if before.completed_lines == 4:
                            tetrises += 1
                        if bcd(g.score, 3) < SCORE_CAP:
                            gained = bcd(g.score, 3) - bcd(before.score, 3)   # exact
                        # The step again from a zero score: what the ROM adds (for a
                        # capped score), and, without soft-drop points, what the clear
                        # alone is worth (BetaTetris's count, docs/strength.md).
                        before.score[0] = before.score[1] = before.score[2] = 0
                        if bcd(g.score, 3) >= SCORE_CAP:
                            maxout = maxout or before.level < LEVEL_29
                            again = before
                            game_step(&again, pad)
                            gained = bcd(again.score, 3)
                        before.piece.hold_down_points = 0
                        game_step(&before, pad)
                        cleared = bcd(before.score, 3)
                        points += gained
                        line_points += cleared
                        if before.level < LEVEL_29:
                            pre29 += gained
                            pre29_lines += cleared
                        if g.level >= LEVEL_39 and points_at_39 < 0:
                            points_at_39 = points
                            line_points_at_39 = line_points
                    if g.level >= LEVEL_29 and lines_at_29 < 0:
                        lines_at_29 = bcd(g.lines, 2)
                else:
                    if pieces_seed >= 0 and g.play_state == PLAY_SPAWN:
                        # the NMI steps it once more before the picker reads it
                        g.rng = drawn_rng(<uint64_t>pieces_seed, pieces_spawned(g))
                    game_step(g, pad)
                frames += 1
    finally:
        free(pads)
    return {
        "score": bcd(g.score, 3),
        "lines": bcd(g.lines, 2),
        "level": g.level,
        "pieces": pieces,
        "frames": frames,
        "tetrises": tetrises,
        "topped_out": g.play_state == PLAY_TOPPED_OUT,
        "maxout": maxout,
        "pre29_points": pre29,
        "pre29_line_points": pre29_lines,
        "points": points,
        "line_points": line_points,
        "points_at_39": points_at_39 if points_at_39 >= 0 else None,
        "line_points_at_39": line_points_at_39 if line_points_at_39 >= 0 else None,
        "lines_at_29": lines_at_29 if lines_at_29 >= 0 else None,
        "fallbacks": planner.fallbacks - fallbacks,
        "truncated": planner.truncations - truncations,
    }
