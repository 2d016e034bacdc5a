"""The planner: which placement of the current piece to play, judged with the next piece and
the pieces after it (the lookahead). The reaction's blind play, the same choice before the
next piece may be seen, is nesbot._core.blind, on the Planner's state.

It asks nesbot._core.moves for every placement and its frames, nesbot._core.calming for the
verdict on each final board (nesbot._core.evaluate's value, ranked by the calming rules) and
nesbot._core.bound for the placements it may skip.
"""

from libc.math cimport INFINITY, fabs
from libc.stdint cimport uint8_t
from libc.string cimport memcpy, memmove

from nesbot._core.board cimport Board, has_tuck_spot
from nesbot._core.bound cimport Tops, board_tops, surface_rise, tops_after, value_bound
from nesbot._core.calming cimport (
    RANK_VETOED,
    Verdict,
    better,
    board_vetoed,
    burned_lines,
    judge_dead_end,
    judge_pair,
    next_spawn_blocked,
)
from nesbot._core.evaluate cimport evaluate
from nesbot._core.game cimport Game
from nesbot._core.learned cimport ValueModel
from nesbot._core.moves cimport Placement, Searcher, plain_path
from nesbot._core.pieces cimport (
    LEVEL_ONE_FRAME_ROWS,
    NES_ORIENTATIONS,
    NES_PIECE_TYPE,
    NES_SPAWN_TABLE,
)
from nesbot._core.rules cimport (
    Game as GameC,
    Piece,
    count_lines,
    lock_and_clear,
    spawn_piece,
    transition_odds,
)
from nesbot._core.weight_sets cimport Weights, load_weights, weights_at


cdef enum:
    DEEP_WIDTH = 3       # lookahead 2's defaults (Planner.deep_width, deep_branch)
    DEEP_BRANCH = 2
    # From level 29 a piece has a third of its placements and the reaction hides every next
    # piece: the search goes wider and deeper there, inside the time budget (p99 under 16 ms
    # a plan; 8 first placements went over it, docs/strength.md).
    KILL_DEEP_WIDTH = 6
    KILL_DEEP_BRANCH = 4
    # Three unknown pieces deep there (Planner.kill_third_width, off by default): the first
    # unknown piece's 2 best placements, the second's best one.
    KILL_THIRD_BRANCH = 2
    KILL_THIRD_BRANCH2 = 1
    MAX_DEEP_BRANCH = 8
DEFAULT_DEEP_WIDTH = DEEP_WIDTH      # for nesbot.bot.planning
DEFAULT_DEEP_BRANCH = DEEP_BRANCH
DEFAULT_KILL_DEEP_WIDTH = KILL_DEEP_WIDTH
DEFAULT_KILL_DEEP_BRANCH = KILL_DEEP_BRANCH
DEFAULT_KILL_THIRD_BRANCH = KILL_THIRD_BRANCH
DEFAULT_KILL_THIRD_BRANCH2 = KILL_THIRD_BRANCH2
DEEP_BRANCH_MAX = MAX_DEEP_BRANCH
NEXT_WIDTH_MAX = MAX_NEXT_WIDTH


cdef inline bint branch_better(const Branch* a, const Branch* b) noexcept nogil:
    return (b.vetoed and not a.vetoed) or (a.vetoed == b.vetoed and a.value < b.value)


cdef inline double top_out_value(const Weights* w) noexcept nogil:
    # The value of a position where an unknown piece has no placement at all (the game
    # ends): worse than any board the evaluator can score. The largest feature sums are a
    # few thousand; the ceiling penalty is at most 22 cells at the row-0 price.
    return 1e6 + 22 * w.ceiling_weight


cdef inline void place_unknown(const Chain* c, const Placement* p, const Weights* w,
                               Branch* out) noexcept nogil:
    # An unknown piece's placement p on c's board, judged alone: out's board and sums after
    # it, its one-piece value and rules 3-4. out's level and lines are the caller's to count
    # (lookahead 2 counts them only for the branches it keeps).
    cdef int cleared
    out.chain.board = c.board
    out.chain.judged_at = c.judged_at
    cleared = lock_and_clear(&out.chain.board, p.orientation, p.x, p.y)
    out.chain.cleared = c.cleared + cleared
    out.chain.burned = c.burned + burned_lines(cleared)
    out.chain.lock_height = c.lock_height + lock_height(p)
    out.chain.landing = c.landing + landing_height(p)
    out.value = evaluate(&out.chain.board, out.chain.cleared, out.chain.burned,
                         out.chain.lock_height, out.chain.landing, c.judged_at, w)
    out.vetoed = board_vetoed(&out.chain.board, w)


cdef enum:
    BOUNDED_MAX = 64     # placements best_placement bounds (more: all are judged)


cdef inline double placement_bound(const Chain* c, const Tops* before, const Placement* p,
                                   const Weights* w, Tops* after) noexcept nogil:
    # No more than the evaluation of an unknown piece's placement p on c's board (as
    # place_unknown judges it): evaluate.value_bound from the column tops it leaves (into
    # `after`), or -INFINITY if it completes a row or reaches the hidden rows (not bounded).
    if not tops_after(&c.board, before, p.orientation, p.x, p.y, after):
        return -INFINITY
    return value_bound(after, c.cleared, c.burned, c.lock_height + lock_height(p),
                       c.landing + landing_height(p), c.judged_at, w)


cdef inline bint above(double bound, double value) noexcept nogil:
    # A bound above a value beyond rounding: value_bound adds its terms in another order
    # than evaluate.
    return bound > value + 1e-9 * (1.0 + fabs(value))


cdef inline bint ruled_out(double bound, const Tops* after, const Chain* c, const Weights* w,
                           double value) noexcept nogil:
    # A placement's evaluation is above `value` by its bound (placement_bound's, `after`
    # the tops it leaves), read without the surface table first, then with it.
    return bound > -INFINITY and (above(bound, value) or
                                  above(bound + surface_rise(after, c.judged_at, w), value))


cdef inline bint cannot_beat(const Chain* c, const Tops* before, const Placement* p,
                             const Weights* w, double value) noexcept nogil:
    # The placement p's evaluation is above `value` (ruled_out by its bound).
    cdef Tops after
    return ruled_out(placement_bound(c, before, p, w, &after), &after, c, w, value)


cdef void best_placement(const Chain* c, const Placement* placements, int count,
                         const Tops* before, bint bounded, const Weights* w,
                         bint use_learned, ValueModel learned, int lines_left,
                         Branch* best) noexcept nogil:
    """The best of an unknown piece's placements on c's board (its value and veto; rules
    3-4 as in judge_pair), or the top-out value if it has none. With `bounded` (the set
    at c.judged_at has a finite value_bound; `before` holds c's tops), the placement of the
    least bound is judged first, and then only those whose bound (with the surface
    table's value, read only for the placements the bound without it leaves) is not above
    the best so far, or all while the best is vetoed: the others could not be better, so
    the result is the same. With `use_learned`, each placement's value is less `learned`'s
    scale times its value of the board it leaves (`lines_left` to level 39 before its
    clears), and so is its bound: the tops give that value exactly."""
    cdef Branch b
    cdef Tops tops[BOUNDED_MAX]
    cdef double bounds[BOUNDED_MAX]
    cdef int k, j, first
    best.value = top_out_value(w)
    best.vetoed = True
    if not bounded or count > BOUNDED_MAX:
        for k in range(count):
            place_learned(c, &placements[k], w, use_learned, learned, lines_left, &b)
            if branch_better(&b, best):
                best.value = b.value
                best.vetoed = b.vetoed
        return
    first = 0
    for k in range(count):
        bounds[k] = placement_bound(c, before, &placements[k], w, &tops[k])
        if use_learned and bounds[k] > -INFINITY:
            bounds[k] -= learned.scale * learned.tops_value(&tops[k], lines_left)
        if bounds[k] < bounds[first]:
            first = k
    # the least bound first (most often the best), then the others that may beat it
    for j in range(-1, count):
        k = first if j < 0 else j
        if j == first:
            continue
        if not best.vetoed and ruled_out(bounds[k], &tops[k], c, w, best.value):
            continue
        place_learned(c, &placements[k], w, use_learned, learned, lines_left, &b)
        if branch_better(&b, best):
            best.value = b.value
            best.vetoed = b.vetoed


cdef inline void place_learned(const Chain* c, const Placement* p, const Weights* w,
                               bint use_learned, ValueModel learned, int lines_left,
                               Branch* out) noexcept nogil:
    # place_unknown, its value less the learned value's part (with `use_learned`)
    place_unknown(c, p, w, out)
    if use_learned:
        out.value -= learned.scale * learned.value(
            &out.chain.board, max(lines_left - (out.chain.cleared - c.cleared), 0))


cdef void check_pieces(Game game) except *:
    """Refuse a game whose piece or next piece is no orientation ($13 is the hidden piece:
    RAM read while the ROM copies a spawn back shows it active), which the tables would
    be indexed out of bounds with."""
    if game.g.piece.orientation >= NES_ORIENTATIONS or game.g.next_piece >= NES_ORIENTATIONS:
        raise ValueError(
            f"no piece to plan: orientation ${game.g.piece.orientation:02X}, next "
            f"${game.g.next_piece:02X} (valid: $00-${NES_ORIENTATIONS - 1:02X})"
        )


cdef class Planner:
    """The search chain: every placement of the current piece x every placement of the
    next; the evaluator judges the final board (nesbot._core.calming's Verdict: the
    calming rules as ranks, then the weighted value, lower is better). With `lookahead` 1,
    the `width` best first placements are judged again by the expected value of the piece
    after the next, which the NES picker draws with rules.transition_odds given the next
    piece: for each of the 7, its best placement that plain paths reach at the gravity and
    tap rate then; `next_width` N > 1: each first placement enters that list with its N
    best placements of the next piece, so that it is worth its best continuation by the
    lookahead's value, not by the two pieces'. Ties go to the first found.

    `weights`: anything nesbot._core.weight_sets takes (nesbot.evaluation.weights.Weights, an
    evaluator of nesbot.evaluation.evaluators, or 17/18 floats). `first`: "search", the current
    piece's placements come from the gamepad search; "plain", from plain paths only (a tenth
    of the cost: the cheap policy `nesbot rate`'s playouts play). `second`: "plain" finds the
    next piece's placements by plain paths (rotate and shift as early as allowed, then
    fall); "search" then judges the `width` best first placements again with the next
    piece's gamepad search (tucks and spins too), where their board has a spot only those
    reach (board.has_tuck_spot; a search costs as much as ten plain sets). The chosen placement
    is executed by its plain path with Down held at the end (soft-drop points) when that
    locks at the same place, else by the search's path. When every pair is vetoed by the
    calming rules the planner still moves: the least bad pair (fallback_last, counted in
    `fallbacks`).
    """

    def __init__(self, weights, int tap_interval=2, bint shift_and_rotate=True,
                 bint hold_shift=False, bint soft_drop=False, bint one_button=False,
                 str second="plain", int lookahead=0, int width=8, str first="search"):
        if first not in ("plain", "search"):
            raise ValueError(f"first must be 'plain' or 'search', not {first!r}")
        if second not in ("plain", "search"):
            raise ValueError(f"second must be 'plain' or 'search', not {second!r}")
        if lookahead not in (0, 1, 2):
            raise ValueError(f"lookahead {lookahead} is not 0, 1 or 2")
        if not 1 <= width <= MAX_WIDTH:
            raise ValueError(f"width {width} is outside 1-{MAX_WIDTH}")
        load_weights(weights, &self.weights, tap_interval)
        self.plain_second = second == "plain"
        self.plain_first = first == "plain"
        self.lookahead = lookahead
        self.deep_width = DEEP_WIDTH
        self.deep_branch = DEEP_BRANCH
        self.kill_deep_width = KILL_DEEP_WIDTH
        self.kill_deep_branch = KILL_DEEP_BRANCH
        self.kill_third_width = 0
        self.kill_third_branch = KILL_THIRD_BRANCH
        self.kill_third_branch2 = KILL_THIRD_BRANCH2
        self.width = width
        self.next_width = 1
        self.bound_pruning = True
        self.premove = 0
        self.reaction = 0
        self.hedge = False
        self.hedge_count = 0
        self.learned = None
        self.has_learned = False
        transition_odds(self.odds)
        self.first = Searcher(tap_interval, shift_and_rotate, hold_shift, soft_drop, one_button)
        self.second = Searcher(tap_interval, shift_and_rotate, hold_shift, soft_drop,
                               one_button)
        self.unknown = Searcher(tap_interval, shift_and_rotate, hold_shift, soft_drop,
                                one_button)
        self.further = Searcher(tap_interval, shift_and_rotate, hold_shift, soft_drop,
                                one_button)

    cdef void _keep(self, const Candidate* c, int room) noexcept nogil:
        """Insert c into the best-first candidate list if it is among the `room` best."""
        cdef int k
        if self.candidate_count == room:
            if not better(&c.verdict, &self.candidates[room - 1].verdict):
                return
            self.candidate_count -= 1
        k = self.candidate_count
        while k > 0 and better(&c.verdict, &self.candidates[k - 1].verdict):
            self.candidates[k] = self.candidates[k - 1]
            k -= 1
        self.candidates[k] = c[0]
        self.candidate_count += 1

    cdef double _expected_best(self, const Chain* chain, int before_type,
                               bint further, double* by_type) noexcept nogil:
        """The expected value, over the piece the picker draws after `before_type`, of its
        best placement on the chain's board at its level (plain paths, rules 3-4 as in
        judge_pair), found by the `unknown` searcher, or the `further` one (lookahead 2's
        second unknown piece, while `unknown`'s placements are still in use). `by_type`, if
        not NULL, gets each type's best value, a veto priced as the premove prices it."""
        cdef Piece spawn
        cdef Branch best
        cdef Placement* placements
        cdef Tops tops
        cdef int t, count
        cdef double expected = 0.0
        cdef bint bounded = (self.bound_pruning
                             and weights_at(&self.weights, chain.judged_at).bounded)
        # The learned value at the lookahead's last boards, from the level every option of
        # the choice is judged at: the tables join the set they were scaled for, and all of
        # a choice's leaves have them or none.
        cdef bint learned = (further and self.has_learned and self.learned.at_leaves
                             and chain.judged_at >= self.learned.from_level)
        cdef int lines_left = self.learned.lines_left(chain.level, chain.lines) if learned else 0
        spawn.das = 0
        spawn.hold_down_points = 0
        if bounded:
            board_tops(&chain.board, &tops)
        for t in range(7):
            if self.odds[before_type][t] == 0.0:
                continue
            spawn_piece(&spawn, NES_SPAWN_TABLE[t])
            if further:
                self.further.search_plain(&chain.board, &spawn, chain.level)
                placements, count = self.further.placements, self.further.placement_count
            else:
                self.unknown.search_plain(&chain.board, &spawn, chain.level)
                placements, count = self.unknown.placements, self.unknown.placement_count
            best_placement(chain, placements, count, &tops, bounded, &self.weights, learned,
                           self.learned, lines_left, &best)
            expected += self.odds[before_type][t] * best.value
            if by_type != NULL:
                by_type[t] = best.value + (rank_price(RANK_VETOED) if best.vetoed else 0.0)
        return expected

    cdef void _search_first(self, const GameC* g) noexcept nogil:
        """Search the active piece's placements; no candidates yet."""
        self.candidate_count = 0
        if self.plain_first:
            self.first._clear_placements()
            self.first._add_plain(&g.board, &g.piece, g.held, g.level)
        else:
            self.first.search(&g.board, &g.piece, g.held, g.level)
        self.nodes_searched = self.first.count
        self.truncated_last = self.first.truncated

    cdef int _best_pairs(self, const GameC* g, const Piece* spawn, int a, bint searched,
                         uint8_t judged_at, Candidate* out, int room) noexcept nogil:
        """First placement `a` with the `room` best placements of the next piece after it
        (by plain paths, or by the gamepad search when `searched`), best first into `out`;
        returns how many (one, without the next piece's: a dead end). Its boards are judged
        at `judged_at` (judged_level(g), the same for every option of the choice)."""
        cdef Placement* p1 = &self.first.placements[a]
        cdef Placement* p2
        cdef Board board1
        cdef Candidate c
        cdef uint8_t lines1[2]
        cdef uint8_t level1
        cdef int b, k, cleared1, cleared2, height1, count = 0
        cdef double landing1
        cdef bint first_vetoed
        board1 = g.board
        cleared1 = lock_and_clear(&board1, p1.orientation, p1.x, p1.y)
        first_vetoed = next_spawn_blocked(&board1, g.next_piece, &self.weights)
        height1 = lock_height(p1)
        landing1 = landing_height(p1)
        c.first = a
        c.chain.judged_at = judged_at
        level1 = g.level
        lines1[0] = g.lines[0]
        lines1[1] = g.lines[1]
        count_lines(&level1, lines1, cleared1)
        if searched and has_tuck_spot(&board1):
            self.second.search(&board1, spawn, 0, level1)
            self.truncated_last |= self.second.truncated
        else:
            self.second.search_plain(&board1, spawn, level1)
        self.nodes_searched += self.second.count
        if self.second.placement_count == 0:
            c.chain.board = board1
            c.chain.level = level1
            c.chain.lines[0] = lines1[0]
            c.chain.lines[1] = lines1[1]
            c.verdict = judge_dead_end(&board1, cleared1, height1, landing1, c.chain.judged_at,
                                       &self.weights)
            c.has_next = False
            c.chain.cleared = cleared1
            c.chain.burned = burned_lines(cleared1)
            c.chain.lock_height = height1
            c.chain.landing = landing1
            out[0] = c
            return 1
        # The best pairs of this first placement (the next piece is re-planned when it
        # spawns, so only the first placement's best continuations matter: the best by the
        # two pieces, or its best few, whose lookahead values may rank otherwise). Their
        # boards are judged at judged_level(g), as every board of this choice
        # (Chain.judged_at); the lookahead's chains count the level the clears reach for
        # their pieces' paths.
        for b in range(self.second.placement_count):
            p2 = &self.second.placements[b]
            c.chain.board = board1
            cleared2 = lock_and_clear(&c.chain.board, p2.orientation, p2.x, p2.y)
            c.chain.cleared = cleared1 + cleared2
            c.chain.burned = burned_lines(cleared1) + burned_lines(cleared2)
            c.chain.lock_height = height1 + lock_height(p2)
            c.chain.landing = landing1 + landing_height(p2)
            c.verdict = judge_pair(&c.chain.board, cleared1, cleared2, c.chain.lock_height,
                                   c.chain.landing, first_vetoed, c.chain.judged_at,
                                   &self.weights)
            # its place among the best so far (an equal one stays behind: ties go to the
            # first found)
            k = count
            while k > 0 and better(&c.verdict, &out[k - 1].verdict):
                k -= 1
            if k == room:
                continue
            c.chain.level = level1
            c.chain.lines[0] = lines1[0]
            c.chain.lines[1] = lines1[1]
            count_lines(&c.chain.level, c.chain.lines, cleared2)
            c.next_lock.x = p2.x
            c.next_lock.y = p2.y
            c.next_lock.orientation = p2.orientation
            c.has_next = True
            if count < room:
                count += 1
            memmove(&out[k + 1], &out[k], (count - 1 - k) * sizeof(Candidate))
            out[k] = c
        return count

    cdef int choose(self, const GameC* g, Verdict* verdict) noexcept nogil:
        cdef Piece spawn
        cdef Candidate pairs[MAX_NEXT_WIDTH]
        cdef int a, k, j, n, kept
        cdef int firsts[MAX_WIDTH]
        # Candidates kept for a second look: the lookahead's, or the next piece's search.
        cdef int room = self.width if self.lookahead or not self.plain_second else 1
        # Pairs a first placement brings: without a lookahead its best pair decides alone.
        cdef int per_first = min(max(self.next_width, 1), <int>MAX_NEXT_WIDTH) \
            if self.lookahead else 1
        cdef uint8_t judged_at = judged_level(g)
        # The next piece spawns the same way after every first placement; the bot holds no
        # buttons through the entry delay, and DAS carries over unchanged.
        spawn.das = g.piece.das
        spawn.hold_down_points = 0
        spawn_piece(&spawn, g.next_piece)
        self._search_first(g)
        for a in range(self.first.placement_count):
            n = self._best_pairs(g, &spawn, a, False, judged_at, pairs, per_first)
            for j in range(n):
                self._keep(&pairs[j], room)
        if not self.plain_second:
            # The gamepad search (tucks, spins) for the next piece, where it can change the
            # choice: after the `width` first placements that plain paths rank best (each
            # once, however many of its pairs were kept).
            kept = 0
            for k in range(self.candidate_count):
                j = 0
                while j < kept and firsts[j] != self.candidates[k].first:
                    j += 1
                if j == kept:
                    firsts[kept] = self.candidates[k].first
                    kept += 1
            self.candidate_count = 0
            for k in range(kept):
                n = self._best_pairs(g, &spawn, firsts[k], True, judged_at, pairs, per_first)
                for j in range(n):
                    self._keep(&pairs[j], room)
        if self.lookahead:
            self._look_ahead(NES_PIECE_TYPE[g.next_piece], False, g.level)
        return self._commit(g, verdict)

    cdef void _look_ahead(self, int before_type, bint hedge, int level) noexcept nogil:
        """Re-judge the candidates by the expected value of the unknown piece after them;
        with `hedge`, keep each one's value per next type for _hedge (before lookahead 2
        drops all but its best few), its rank priced as the premove prices it. `level`:
        the game's, which decides lookahead 2's widths."""
        cdef int k, t
        for k in range(self.candidate_count):
            if self.candidates[k].has_next:
                self.candidates[k].verdict.value = self._expected_best(
                    &self.candidates[k].chain, before_type, False,
                    self.hedge_values[k] if hedge else NULL)
        if hedge:
            self.hedge_count = self.candidate_count
            for k in range(self.candidate_count):
                self.hedge_first[k] = self.candidates[k].first
                for t in range(7):
                    self.hedge_values[k][t] += rank_price(self.candidates[k].verdict.rank)
        if self.lookahead == 2:
            self._look_deeper(before_type, level)

    cdef void _sort_candidates(self) noexcept nogil:
        """Insertion sort, best first (a lookahead changed the values _keep sorted by)."""
        cdef int k, j
        cdef Candidate c
        for k in range(1, self.candidate_count):
            c = self.candidates[k]
            j = k
            while j > 0 and better(&c.verdict, &self.candidates[j - 1].verdict):
                self.candidates[j] = self.candidates[j - 1]
                j -= 1
            self.candidates[j] = c

    cdef void _look_deeper(self, int before_type, int level) noexcept nogil:
        """Lookahead 2: the `deep_width` best candidates by the lookahead's verdicts are
        judged again two unknown pieces deep (_expected_deeper), and only they remain: a
        deeper value cannot be compared with a shallower one. From level 29 on, the
        `kill_deep_width` best, `kill_deep_branch` deep; then, with `kill_third_width`,
        that many of them three unknown pieces deep (every placement there is chosen
        blind, and depth is what pays for a blind choice: docs/strength.md)."""
        cdef int k
        cdef bint kill = level >= LEVEL_ONE_FRAME_ROWS
        cdef int width = self.kill_deep_width if kill else self.deep_width
        cdef int branch = self.kill_deep_branch if kill else self.deep_branch
        self._sort_candidates()
        if 1 <= width < self.candidate_count:
            self.candidate_count = width
        for k in range(self.candidate_count):
            if self.candidates[k].has_next:
                self.candidates[k].verdict.value = self._expected_deeper(
                    &self.candidates[k].chain, before_type, branch, 0, 2)
        if not kill or self.kill_third_width < 1:
            return
        self._sort_candidates()
        if self.kill_third_width < self.candidate_count:
            self.candidate_count = self.kill_third_width
        for k in range(self.candidate_count):
            if self.candidates[k].has_next:
                self.candidates[k].verdict.value = self._expected_deeper(
                    &self.candidates[k].chain, before_type, self.kill_third_branch,
                    self.kill_third_branch2, 3)

    cdef double _expected_deeper(self, const Chain* c, int before_type, int branch,
                                 int later_branch, int pieces) noexcept nogil:
        """The expected value, over the piece the picker draws after `before_type`, of its
        best placement on c's board among its `branch` best by one-piece value, each
        valued by the expected best placement of the piece the picker draws after it (plain
        paths at the level each leaves; rules 3-4 as in _expected_best): `pieces` 2. With
        `pieces` 3, each is valued so itself two pieces deep, over `later_branch` placements
        of the next (the call for it searches `unknown` again: this one is done with its
        placements by then, its branches being copies)."""
        cdef Piece spawn
        cdef Branch branches[MAX_DEEP_BRANCH]
        cdef Branch b, best
        cdef Tops tops
        cdef int t, k, m, slot, kept
        cdef double expected = 0.0
        cdef bint bounded = self.bound_pruning and weights_at(&self.weights, c.judged_at).bounded
        branch = min(branch, <int>MAX_DEEP_BRANCH)
        spawn.das = 0
        spawn.hold_down_points = 0
        if bounded:
            board_tops(&c.board, &tops)
        for t in range(7):
            if self.odds[before_type][t] == 0.0:
                continue
            spawn_piece(&spawn, NES_SPAWN_TABLE[t])
            self.unknown.search_plain(&c.board, &spawn, c.level)
            # the third piece's `branch` best placements by one-piece value, vetoed last
            kept = 0
            for k in range(self.unknown.placement_count):
                # one that cannot beat the last of `branch` kept would not be kept
                if (bounded and kept == branch and not branches[branch - 1].vetoed
                        and cannot_beat(c, &tops, &self.unknown.placements[k], &self.weights,
                                        branches[branch - 1].value)):
                    continue
                place_unknown(c, &self.unknown.placements[k], &self.weights, &b)
                slot = kept
                while slot > 0 and branch_better(&b, &branches[slot - 1]):
                    if slot < branch:
                        branches[slot] = branches[slot - 1]
                    slot -= 1
                if slot < branch:
                    branches[slot] = b
                    kept += kept < branch
            best.value = top_out_value(&self.weights)
            best.vetoed = True
            for m in range(kept):
                branches[m].chain.level = c.level
                branches[m].chain.lines[0] = c.lines[0]
                branches[m].chain.lines[1] = c.lines[1]
                count_lines(&branches[m].chain.level, branches[m].chain.lines,
                            branches[m].chain.cleared - c.cleared)
                if pieces > 2:
                    branches[m].value = self._expected_deeper(&branches[m].chain, t,
                                                              later_branch, 0, pieces - 1)
                else:
                    # from here on a branch is worth the fourth piece's expected best
                    branches[m].value = self._expected_best(&branches[m].chain, t, True, NULL)
                if branch_better(&branches[m], &best):
                    best.value = branches[m].value
                    best.vetoed = branches[m].vetoed
            expected += self.odds[before_type][t] * best.value
        return expected

    cdef int _commit(self, const GameC* g, Verdict* verdict) noexcept nogil:
        """Choose the best candidate; set the path, next_lock and the counters."""
        cdef Candidate* chosen
        cdef Placement* p1
        cdef Piece locked
        cdef int k, best
        self.path_length = -1
        self.has_next_lock = False
        if self.candidate_count == 0:
            self.fallback_last = False
            self.truncations += self.truncated_last
            return -1
        if self.has_learned and not self.learned.at_leaves and g.level >= self.learned.from_level:
            # the learned value of each candidate's board (its placements' afterstate)
            for k in range(self.candidate_count):
                self.candidates[k].verdict.value -= self.learned.scale * self.learned.value(
                    &self.candidates[k].chain.board,
                    self.learned.lines_left(self.candidates[k].chain.level,
                                            self.candidates[k].chain.lines))
        chosen = &self.candidates[0]
        for k in range(1, self.candidate_count):
            if better(&self.candidates[k].verdict, &chosen.verdict):
                chosen = &self.candidates[k]
        best = chosen.first
        verdict[0] = chosen.verdict
        self.fallback_last = chosen.verdict.rank >= RANK_VETOED
        self.fallbacks += self.fallback_last
        self.truncations += self.truncated_last
        self.has_next_lock = chosen.has_next
        self.next_lock = chosen.next_lock
        p1 = &self.first.placements[best]
        self.path_length = plain_path(&g.board, &g.piece, g.held, g.level,
                                      &self.first.model, p1.x, p1.orientation, True,
                                      self.path, &locked)
        if self.path_length > 0 and locked.y != p1.y:
            self.path_length = -1
        return best

    def plan(self, Game game not None):
        """Choose the current piece's placement. Returns (pads, x, y, orientation, value) or
        None when the piece has no placement at all."""
        cdef int best
        cdef Verdict verdict
        check_pieces(game)
        with nogil:
            best = self.choose(&game.g, &verdict)
        return self._result(best, &verdict)

    cdef object _result(self, int best, const Verdict* verdict):
        """What plan() and plan_blind() return for choose()'s `best`."""
        cdef Placement* p
        if best < 0:
            return None
        p = &self.first.placements[best]
        pads = bytearray(p.frames if self.path_length < 0 else self.path_length)
        self.chosen_pads(best, <uint8_t*><char*>pads)
        return bytes(pads), p.x, p.y, p.orientation, verdict.value

    @property
    def value_model(self):
        """The learned value the kill screen's choices are re-ranked by
        (nesbot._core.learned.ValueModel), or None (the default: the plans as without it)."""
        return self.learned

    @value_model.setter
    def value_model(self, ValueModel model):
        self.learned = model
        self.has_learned = model is not None

    @property
    def next_lock(self):
        """(x, y, orientation) where the last plan's chosen pair locks the next piece, or
        None (no plan, or no placement of the next piece after the chosen one)."""
        if not self.has_next_lock:
            return None
        return self.next_lock.x, self.next_lock.y, self.next_lock.orientation

    cdef int chosen_pads(self, int best, uint8_t* out) noexcept nogil:
        """Write the executed path of choose()'s placement `best` (room for 65535 frames);
        returns its length."""
        cdef Placement* p = &self.first.placements[best]
        if self.path_length > 0:
            memcpy(out, self.path, self.path_length)
            return self.path_length
        self.first.write_pads(p, out)
        return p.frames
