"""The reaction's blind play: a piece's plan before its next piece may be seen.

With `--reaction N` the bot commits the first N frames of a piece before it may use the
next piece. `choose_blind` judges each first placement by the expected best placement of
the piece the picker draws next (the planner's lookahead); the path holds no Down in those
frames, and `_hedge` (or, with premoves, `_choose_premove`) may send the piece elsewhere in
them: where the replan after them, with the next piece known, has the most left. The
planner's state (its searchers, candidates and chosen path) is the Planner's; this module
holds what it does with it blind.
"""

from libc.math cimport INFINITY
from libc.stdint cimport int8_t, uint8_t, uint32_t
from libc.string cimport memcmp, memset

from nesbot._core.buttons cimport BTN_DOWN
from nesbot._core.calming cimport RANK_TETRIS_NOW, Verdict, better, burned_lines, judge_one
from nesbot._core.game cimport Game
from nesbot._core.moves cimport PLAIN_PATH_MAX, Placement, plain_lock, plain_path
from nesbot._core.pieces cimport NES_ORIENTATIONS, NES_PIECE_TYPE, NES_SPAWN_TABLE
from nesbot._core.planner cimport (
    MAX_WIDTH,
    Candidate,
    Planner,
    check_pieces,
    judged_level,
    landing_height,
    lock_height,
    rank_price,
)
from nesbot._core.rules cimport (
    Game as GameC,
    Piece,
    PLAY_ACTIVE,
    count_lines,
    game_step,
    lock_and_clear,
)

cdef enum:
    PREMOVE_WIDTH = 2    # first placements the lookahead re-judges inside a premove's replans
    MAX_HEDGE_OPTIONS = 64   # distinct places _hedge weighs (4 orientations x 10 columns + 2)


cdef inline void release_down(uint8_t* pads, int length, int frames) noexcept nogil:
    # A plain path holds Down once it is in place (soft-drop points). Inside a reaction
    # window that would hurry the piece down before the next piece is known, leaving the
    # replan after it less room: Down waits for the window to end.
    cdef int f
    for f in range(frames if frames < length else length):
        pads[f] &= ~BTN_DOWN


cdef inline bint play_window(const GameC* g, const uint8_t* pads, int length, int frames,
                             GameC* after) noexcept nogil:
    # `after`: the game after `frames` frames of `pads` (no input past `length`); False if
    # the piece locks inside them, when nothing is left to adjust afterwards.
    cdef int f
    after[0] = g[0]
    for f in range(frames):
        if after.play_state != PLAY_ACTIVE:
            break
        game_step(after, pads[f] if f < length else 0)
    return after.play_state == PLAY_ACTIVE


cdef inline bint seen_before(const Piece* seen, const uint8_t* seen_held, int n,
                             const GameC* after) noexcept nogil:
    # The same piece and buttons as one of the first n: the same options afterwards.
    cdef int k
    for k in range(n):
        if memcmp(&seen[k], &after.piece, sizeof(Piece)) == 0 and seen_held[k] == after.held:
            return True
    return False


def plan_blind(Planner planner not None, Game game not None):
    """Planner.plan() without looking at the next piece: the first placement is judged by the
    expected value of the piece the picker will draw after the current one (the
    --reaction mode, before the bot may use the next piece). Its first `reaction`
    frames hold no Down, and with `hedge` (or `premove`) they may head elsewhere than
    the placement returned: the plan after them decides."""
    cdef int best
    cdef Verdict verdict
    check_pieces(game)
    with nogil:
        best = choose_blind(planner, &game.g, &verdict)
    return planner._result(best, &verdict)


cdef int choose_blind(Planner planner, const GameC* g, Verdict* verdict) noexcept nogil:
    cdef Placement* p1
    cdef Candidate c
    cdef int a, best
    cdef bint windowed = 0 < planner.reaction <= PLAIN_PATH_MAX, hedge
    cdef uint8_t judged_at = judged_level(g)
    planner._search_first(g)
    for a in range(planner.first.placement_count):
        p1 = &planner.first.placements[a]
        c.chain.board = g.board
        c.chain.cleared = lock_and_clear(&c.chain.board, p1.orientation, p1.x, p1.y)
        c.chain.burned = burned_lines(c.chain.cleared)
        c.first = a
        c.chain.level = g.level
        c.chain.judged_at = judged_at
        c.chain.lines[0] = g.lines[0]
        c.chain.lines[1] = g.lines[1]
        count_lines(&c.chain.level, c.chain.lines, c.chain.cleared)
        c.chain.lock_height = lock_height(p1)
        c.chain.landing = landing_height(p1)
        c.has_next = True        # an unknown next piece follows: the lookahead weighs it
        c.verdict = judge_one(&c.chain.board, c.chain.cleared, c.chain.lock_height,
                              c.chain.landing, c.chain.judged_at, &planner.weights)
        planner._keep(&c, planner.width)
    hedge = planner.hedge and planner.premove == 0 and windowed and planner.lookahead > 0
    planner._look_ahead(NES_PIECE_TYPE[g.piece.orientation], hedge, g.level)
    best = planner._commit(g, verdict)
    planner.has_next_lock = False
    if best < 0 or verdict.rank == RANK_TETRIS_NOW:
        return best
    if planner.path_length > 0:
        release_down(planner.path, planner.path_length, planner.reaction)
    if planner.premove > 0 and windowed:
        best = _choose_premove(planner, g, best, verdict)
    elif hedge:
        best = _hedge(planner, g, best)
    return best

cdef int _hedge(Planner planner, const GameC* g, int best) noexcept nogil:
    """Where to send the piece in the first `reaction` frames: along the blind best's
    path, nowhere (no input), or toward any other column and orientation of the
    piece's placements, whichever leaves the replan the best expected choice, over the
    next piece with the picker's odds, among the blind candidates still in reach
    (_hedge_value). Ties keep the blind best's path. Sets the path; returns the index
    of the placement it heads for (the blind best for no input)."""
    cdef GameC after
    cdef Piece seen[MAX_HEDGE_OPTIONS]
    cdef uint8_t seen_held[MAX_HEDGE_OPTIONS]
    cdef uint32_t targets[NES_ORIENTATIONS]   # columns (bit x + 2) already an option
    cdef uint8_t pads[PLAIN_PATH_MAX]
    cdef const uint8_t* option_pads
    cdef Piece locked
    cdef Placement* p
    cdef int option, chosen = -2, k, n = 0, length
    cdef double value, best_value = 0.0
    if planner.path_length <= 0:
        return best   # a tuck or spin: its search path is followed as planned
    memset(targets, 0, sizeof(targets))
    # option -2: the blind best's path; -1: no input; k: toward placement k's column
    # and orientation (plain path), once per column and orientation
    for option in range(-2, planner.first.placement_count):
        option_pads = pads
        if option == -2:
            option_pads = planner.path
            length = planner.path_length
        elif option == -1:
            length = 0
        else:
            p = &planner.first.placements[option]
            if targets[p.orientation] & (1u << (p.x + 2)):
                continue
            targets[p.orientation] |= 1u << (p.x + 2)
            length = plain_path(&g.board, &g.piece, g.held, g.level, &planner.first.model,
                                p.x, p.orientation, True, pads, &locked)
            if length <= 0:
                continue
            release_down(pads, length, planner.reaction)
        if not play_window(g, option_pads, length, planner.reaction, &after):
            if option == -2:
                return best   # it locks inside the window: nothing is left to adjust
            continue
        if n == MAX_HEDGE_OPTIONS or seen_before(seen, seen_held, n, &after):
            continue
        seen[n] = after.piece
        seen_held[n] = after.held
        n += 1
        value = _hedge_value(planner, &after, best, option == -2)
        if option == -2 or value < best_value:
            chosen = option
            best_value = value
    if chosen == -2:
        return best
    if chosen == -1:
        return _wait_window(planner, best)
    p = &planner.first.placements[chosen]
    k = _head_toward(planner, g, p.x, p.orientation)
    return k if k >= 0 else chosen

cdef int _wait_window(Planner planner, int best) noexcept nogil:
    # No input through the reaction window; reported as heading for the blind best.
    memset(planner.path, 0, planner.reaction)
    planner.path_length = planner.reaction
    return best

cdef int _head_toward(Planner planner, const GameC* g, int x, int orientation) noexcept nogil:
    # The path: the plain path toward column x and orientation, Down released in the
    # reaction window. Returns the placement it locks at (-1 if none of first's).
    cdef Piece locked
    cdef Placement* p
    cdef int k
    planner.path_length = plain_path(&g.board, &g.piece, g.held, g.level, &planner.first.model,
                                     x, orientation, True, planner.path, &locked)
    release_down(planner.path, planner.path_length, planner.reaction)
    for k in range(planner.first.placement_count):
        p = &planner.first.placements[k]
        if p.x == locked.x and p.y == locked.y and p.orientation == locked.orientation:
            return k
    return -1

cdef double _hedge_value(Planner planner, const GameC* after, int best,
                         bint committed) noexcept nogil:
    """The expected value of the replan from `after` (the game when the reaction
    window ends): for each next piece type, with the picker's odds, the best of the
    blind candidates a plain path still reaches from there (the committed path reaches
    the blind best), valued as the lookahead valued it with that type known."""
    cdef bint reach[MAX_WIDTH]
    cdef Placement* p
    cdef Piece locked
    cdef int k, t, reached = 0, current = NES_PIECE_TYPE[after.piece.orientation]
    cdef double least, expected = 0.0
    for k in range(planner.hedge_count):
        p = &planner.first.placements[planner.hedge_first[k]]
        reach[k] = (committed and planner.hedge_first[k] == best) or (
            plain_lock(&after.board, &after.piece, after.held, after.level,
                       &planner.first.model, p.x, p.orientation, &locked)
            and locked.y == p.y)
        reached += reach[k]
    if reached == 0:
        return INFINITY
    for t in range(7):
        if planner.odds[current][t] == 0.0:
            continue
        least = INFINITY
        for k in range(planner.hedge_count):
            if reach[k] and planner.hedge_values[k][t] < least:
                least = planner.hedge_values[k][t]
        expected += planner.odds[current][t] * least
    return expected

cdef int _choose_premove(Planner planner, const GameC* g, int best,
                         Verdict* verdict) noexcept nogil:
    """Among the first `reaction` frames of the paths to the `premove` best blind
    candidates, and no input at all, the one whose expected replanned value over the
    next piece is best (each weighed as the replan will weigh it: choose()). Sets the
    path to the chosen prefix; returns the index of the placement it heads for (the
    blind best for no input). `verdict` stays the blind best's."""
    cdef int k, n, j, count, option, best_option = -1, length
    cdef int order[MAX_WIDTH]
    cdef GameC after
    cdef int8_t xs[MAX_WIDTH]
    cdef int8_t ys[MAX_WIDTH]
    cdef uint8_t orientations[MAX_WIDTH]
    cdef Piece seen[MAX_WIDTH + 1]
    cdef uint8_t seen_held[MAX_WIDTH + 1]
    cdef uint8_t pads[PLAIN_PATH_MAX]
    cdef Piece locked
    cdef Placement* p
    cdef double value, best_value = 0.0
    # the replans below are trials: the counters keep the blind plan's own
    cdef long fallbacks = planner.fallbacks, truncations = planner.truncations
    cdef bint fallback_last = planner.fallback_last, truncated_last = planner.truncated_last
    # The lookahead re-judged the candidates after _keep sorted them: the `premove`
    # best by their final verdicts (the blind best first), in a small insertion sort.
    for k in range(planner.candidate_count):
        j = k
        while j > 0 and better(&planner.candidates[k].verdict,
                               &planner.candidates[order[j - 1]].verdict):
            order[j] = order[j - 1]
            j -= 1
        order[j] = k
    count = planner.candidate_count
    if count > planner.premove:
        count = planner.premove
    for k in range(count):
        p = &planner.first.placements[planner.candidates[order[k]].first]
        xs[k] = p.x
        ys[k] = p.y
        orientations[k] = p.orientation
    n = 0
    # options 0..count-1: the candidates' plain paths; option count: no input
    for option in range(count + 1):
        if option < count:
            length = plain_path(&g.board, &g.piece, g.held, g.level, &planner.first.model,
                                xs[option], orientations[option], True, pads, &locked)
            if length <= 0 or locked.y != ys[option]:
                continue
            release_down(pads, length, planner.reaction)
        else:
            length = 0
        if (not play_window(g, pads, length, planner.reaction, &after)
                or seen_before(seen, seen_held, n, &after)):
            continue
        seen[n] = after.piece
        seen_held[n] = after.held
        n += 1
        value = _premove_value(planner, &after)
        if best_option < 0 or value < best_value:
            best_option = option
            best_value = value
    # choose() reused the searchers: search the piece again, and set the chosen path
    planner._search_first(g)
    planner.candidate_count = 0
    planner.fallbacks, planner.truncations = fallbacks, truncations
    planner.fallback_last, planner.truncated_last = fallback_last, truncated_last
    planner.has_next_lock = False
    if best_option < 0:
        return best
    if best_option == count:   # no input through the reaction window
        return _wait_window(planner, best)
    # its plain path was checked above to lock at ys[best_option]
    k = _head_toward(planner, g, xs[best_option], orientations[best_option])
    return k if k >= 0 else best

cdef double _premove_value(Planner planner, const GameC* after) noexcept nogil:
    """The expected value of the plan made when the reaction window ends with the game
    at `after`, over the next piece with the picker's odds: each next piece's choose()
    value plus a price for its calming rank (rank_price: soft, not a strict order)."""
    cdef GameC known
    cdef Verdict v
    cdef int t, width, current = NES_PIECE_TYPE[after.piece.orientation]
    cdef double expected = 0.0, price
    width = planner.width
    planner.width = PREMOVE_WIDTH if PREMOVE_WIDTH < width else width
    for t in range(7):
        if planner.odds[current][t] == 0.0:
            continue
        known = after[0]
        known.next_piece = NES_SPAWN_TABLE[t]
        if planner.choose(&known, &v) < 0:
            price = 1e9
        else:
            price = v.value + rank_price(v.rank)
        expected += planner.odds[current][t] * price
    planner.width = width
    return expected
