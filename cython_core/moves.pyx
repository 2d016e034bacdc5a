"""Move search: every placement a piece can reach, with the button byte of each frame.

A node is a gamepad state on one frame: the piece after the frame (x, y, orientation, fall
timer, DAS and soft-drop counters) plus the buttons of that frame and, per button, how long
until it may be pressed again. Its children are the button bytes the input model allows on
the next frame, each advanced through rules.piece_frame, the same frame step the simulator
uses. A child whose frame locks the piece is a placement. The search is breadth-first, so
the first path found to each lock is one with the fewest frames, and ties resolve in a
fixed order (deterministic). A node is skipped when a node visited before it is in the same
place (the piece, and the pad where it counts) with every button free again no later (it
covers the node, below): at slow tap rates the waits multiply the nodes of each place, and
most are covered.
"""
from libc.stdint cimport int8_t, int32_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memset

from nesbot._core.board cimport BOARD_HIDDEN, BOARD_ROWS, Board, lowest_bit
from nesbot._core.buttons cimport BTN_A, BTN_B, BTN_DOWN, BTN_LEFT, BTN_RIGHT
from nesbot._core.game cimport Game
from nesbot._core.pieces cimport NES_CELLS, NES_ROTATE_A, NES_ROTATE_B, gravity_frames
from nesbot._core.rules cimport HOLDING, Piece, piece_frame, step_down

cdef enum:
    PLACEMENT_CAPACITY = 1024
    PLACEMENT_HASH = 4096
    INITIAL_SLOTS = 4096     # visited-set size a search starts with (64 KiB, in L2)

cdef uint64_t EMPTY_KEY = <uint64_t>-1   # an unused placement_keys slot
cdef uint8_t PRESSABLE = BTN_LEFT | BTN_RIGHT | BTN_A | BTN_B

cdef uint8_t[4] BUTTONS = [BTN_LEFT, BTN_RIGHT, BTN_A, BTN_B]   # the order of Node.wait

cdef enum:
    HOLD_KEPT_PRESSES = 9    # idle_into_hold: presses' time of the hold still searched
    HOLD_ROWS = BOARD_HIDDEN + 3   # rows -2..2: a hanging piece's cells (-2..1) and one more
    PLAIN_WALK_SLOTS = 32    # starts whose plain walks a searcher keeps (a power of two)
    PLAIN_WALK_KEPT = 24     # at most this many at once: then all are forgotten

cdef uint64_t PLAIN_NO_KEY = <uint64_t>-1   # an unused PlainWalks (no start's key)
cdef Board EMPTY_BOARD                     # where the plain walks are taken (zeroed below)
memset(&EMPTY_BOARD, 0, sizeof(Board))

# Each orientation's columns (dx from the origin) and its lowest cell's dy in each. A
# piece's cells in one column are contiguous, so it falls in that column until the cell
# under its lowest one is filled.
cdef int8_t DROP_DX[19][4]
cdef int8_t DROP_BOTTOM[19][4]
cdef uint8_t DROP_COLUMNS[19]
for _o in range(19):
    _runs = {}
    for _k in range(4):
        _runs.setdefault(NES_CELLS[_o][_k][0], []).append(NES_CELLS[_o][_k][1])
    DROP_COLUMNS[_o] = len(_runs)
    for _k, (_dx, _dys) in enumerate(sorted(_runs.items())):
        if sorted(_dys) != list(range(min(_dys), max(_dys) + 1)):
            raise ImportError(f"orientation {_o}'s cells are not contiguous in a column")
        DROP_DX[_o][_k] = _dx
        DROP_BOTTOM[_o][_k] = max(_dys)

ctypedef struct Walk:
    # A plain path under way: the piece, its frames so far, and the presses that decide
    # when each button may be pressed again.
    Piece p
    int frame
    int last[4]              # frame of the last press of Left, Right, A, B
    int last_any
    uint8_t prev             # the last frame's buttons


cdef inline uint64_t place_key(const Node* n, bint with_pad) noexcept nogil:
    # Everything but the waits that decides the future of the node (hold_down_points only
    # decides points), each field in as many bits as its range needs, so distinct places
    # never share a key: x + 2 and y + 2 (a piece's origin stays in columns -2..11, rows
    # -2..21): 5 bits each; orientation 0-18: 5; fall_timer, soft, pad: 8 each; das 0-16: 5.
    # The pad only `with_pad` (Searcher.pad_in_place says when it counts).
    cdef uint64_t key = (<uint64_t>(<uint8_t>(n.piece.x + 2))
                         | (<uint64_t>(<uint8_t>(n.piece.y + 2)) << 5)
                         | (<uint64_t>n.piece.orientation << 10)
                         | (<uint64_t>n.piece.fall_timer << 15)
                         | (<uint64_t>n.piece.das << 23)
                         | (<uint64_t>n.piece.soft << 28))
    return key | (<uint64_t>n.pad << 36) if with_pad else key


cdef inline bint covers(const Node* a, const Node* b) noexcept nogil:
    # In the same place, a node whose every button is free again no later than b's can
    # press whatever b can on every later frame (a wait only counts down or restarts at a
    # press, the same for both), so it reaches every lock b reaches in as many frames
    # after it. Found before b, a is no later in frames, and on the frames they share its
    # subtree comes first in the breadth-first order, frame by frame: each lock b's
    # subtree would record is recorded from a's first (or sooner). Skipping b changes no
    # placement, path or frame count, only the nodes searched.
    return (a.wait[0] <= b.wait[0] and a.wait[1] <= b.wait[1]
            and a.wait[2] <= b.wait[2] and a.wait[3] <= b.wait[3])


cdef inline uint32_t mix(uint64_t key) noexcept nogil:
    key ^= key >> 33
    key *= <uint64_t>0xFF51AFD7ED558CCDULL
    key ^= key >> 33
    return <uint32_t>key


cdef inline int idle_into_hold(Piece* p, const Board* b, uint8_t level,
                               const InputModel* model) noexcept nogil:
    # A game's first piece hangs for 96 frames without gravity (the hold), and searching
    # every frame of it costs more than the rest of the game's plans. Idling comes first
    # in the search's order of buttons, so the path it finds to each lock idles as long
    # as the lock stays as near in frames; and every state the piece can be in when the
    # hold ends is reached within HOLD_KEPT_PRESSES presses' time (on rows the stack does
    # not reach, where the piece moves as on an empty board: at most 6 shifts and 2 turns,
    # one press each, and a press's time more for the last presses' phase; the test finds
    # the same from 6 on). So idling through the hold but for that time gives the same
    # placements and paths (tests/test_search.py checks it at every tap rate).
    # Not with held shifts (DAS charging takes its own frames) or Down (it ends the hold).
    # Advances p by the frames idled and returns them (0 outside the hold).
    cdef int r, frames, kept
    if p.soft < HOLDING or model.hold_shift or model.soft_drop:
        return 0
    for r in range(HOLD_ROWS):
        if b.rows[r]:
            return 0
    kept = HOLD_KEPT_PRESSES * (model.tap_interval if model.tap_interval > 2 else 2)
    frames = 0
    while 256 - p.soft > kept:   # frames left in the hold (the counter wraps to 0)
        piece_frame(p, b, level, 0, 0)
        frames += 1
    return frames


cdef class Searcher:
    """Breadth-first search over gamepad states for one piece at a time (buffers reused)."""

    def __cinit__(self, int tap_interval=2, bint shift_and_rotate=True, bint hold_shift=False,
                  bint soft_drop=False, bint one_button=False, int capacity=1 << 20,
                  bint hold_shortcut=True):
        if not 1 <= tap_interval <= 6:
            raise ValueError(f"tap_interval {tap_interval} is outside 1-6 frames")
        self.model.tap_interval = tap_interval
        self.model.shift_and_rotate = shift_and_rotate
        self.model.hold_shift = hold_shift
        self.model.soft_drop = soft_drop
        self.model.one_button = one_button
        self.hold_shortcut = hold_shortcut
        # Tapped buttons only, at least 2 frames apart: a button is pressable exactly when
        # its wait is 0, so two nodes that differ only in their pads have the same future
        # but for the waits, and one may cover the other. A held shift or Down, or presses
        # on every other frame (the pad then forbids what the wait allows), make the pad count.
        self.pad_in_place = hold_shift or soft_drop or tap_interval < 2
        self.capacity = capacity
        slots = 1
        while slots < 2 * capacity:
            slots <<= 1
        self.max_slots = slots
        self.nodes = <Node*>malloc(capacity * sizeof(Node))
        self.slots = <Slot*>calloc(slots, sizeof(Slot))   # stamp 0: empty; pages lazily
        self.placements = <Placement*>malloc(PLACEMENT_CAPACITY * sizeof(Placement))
        self.placement_keys = <uint64_t*>malloc(PLACEMENT_HASH * sizeof(uint64_t))
        self.plain_walks = <PlainWalks*>malloc(PLAIN_WALK_SLOTS * sizeof(PlainWalks))
        if not (self.nodes and self.slots and self.placements and self.placement_keys
                and self.plain_walks):
            raise MemoryError()
        for k in range(PLAIN_WALK_SLOTS):
            self.plain_walks[k].key = PLAIN_NO_KEY
        self.plain_walk_count = 0
        memset(self.placement_keys, 0xFF, PLACEMENT_HASH * sizeof(uint64_t))
        self.placement_count = 0
        self.stamp = 0

    def __dealloc__(self):
        free(self.nodes)
        free(self.slots)
        free(self.placements)
        free(self.placement_keys)
        free(self.plain_walks)

    cdef void _reset_slots(self, uint32_t size) noexcept nogil:
        """Empty the visited set and use `size` slots of it (a power of two)."""
        self.stamp += 1
        if self.stamp == 0:   # wrapped: clear the stamps once every 4 billion resets
            memset(self.slots, 0, self.max_slots * sizeof(Slot))
            self.stamp = 1
        self.slot_mask = size - 1
        self.place_count = 0

    cdef uint32_t _slot_of(self, uint64_t key) noexcept nogil:
        """The slot holding `key`, or the free slot where it belongs."""
        cdef uint32_t slot = mix(key) & self.slot_mask
        while self.slots[slot].stamp == self.stamp and self.slots[slot].key != key:
            slot = (slot + 1) & self.slot_mask
        return slot

    cdef bint _visit(self, const Node* n) noexcept nogil:
        """Add the node unless a node visited before it covers it; False if one does or
        out of room.

        The set holds places (place_key), each with the chain of its nodes, newest
        first. It starts small, so that a typical search of a few thousand places probes a
        table that stays in cache, and doubles (rehashing every node) at half load.
        """
        cdef uint64_t key = place_key(n, self.pad_in_place)
        cdef uint32_t slot = self._slot_of(key)
        cdef int32_t i, same = -1
        if self.slots[slot].stamp == self.stamp:
            same = self.slots[slot].last
            i = same
            while i >= 0:
                if covers(&self.nodes[i], n):
                    return False
                i = self.nodes[i].same_place
        if self.count >= self.capacity:
            self.truncated = True
            return False
        if same < 0:
            self.slots[slot].stamp = self.stamp
            self.slots[slot].key = key
            self.place_count += 1
        self.slots[slot].last = self.count
        self.nodes[self.count] = n[0]
        self.nodes[self.count].same_place = same
        self.count += 1
        if 2 * <uint32_t>self.place_count > self.slot_mask \
                and self.slot_mask + 1 < self.max_slots:
            self._reset_slots(2 * (self.slot_mask + 1))
            for i in range(self.count):   # in order: each slot ends on its newest node
                key = place_key(&self.nodes[i], self.pad_in_place)
                slot = self._slot_of(key)
                if self.slots[slot].stamp != self.stamp:
                    self.slots[slot].stamp = self.stamp
                    self.slots[slot].key = key
                    self.place_count += 1
                self.slots[slot].last = i
        return True

    cdef void _clear_placements(self) noexcept nogil:
        """Forget the last search: no nodes, no placements."""
        cdef int32_t k
        # only the slots in use: a plain search records a few dozen of PLACEMENT_HASH
        for k in range(self.placement_count):
            self.placement_keys[self.placements[k].key_slot] = EMPTY_KEY
        self.count = 0
        self.placement_count = 0
        self.truncated = False

    cdef void _record(self, int32_t parent_index, uint16_t frames, const Piece* locked,
                      uint8_t pad) noexcept nogil:
        cdef uint64_t key = (<uint64_t>(<uint8_t>locked.x)
                             | (<uint64_t>(<uint8_t>(locked.y + 2)) << 8)
                             | (<uint64_t>locked.orientation << 16))
        cdef uint32_t slot = mix(key) & (PLACEMENT_HASH - 1)
        cdef Placement* p
        while self.placement_keys[slot] != EMPTY_KEY:
            if self.placement_keys[slot] == key:
                return
            slot = (slot + 1) & (PLACEMENT_HASH - 1)
        if self.placement_count >= PLACEMENT_CAPACITY:
            return
        self.placement_keys[slot] = key
        p = &self.placements[self.placement_count]
        p.x = locked.x
        p.y = locked.y
        p.orientation = locked.orientation
        p.node = parent_index
        p.final_pad = pad
        p.frames = frames
        p.hold_down_points = locked.hold_down_points
        p.key_slot = slot
        self.placement_count += 1

    cdef void search(self, const Board* board, const Piece* start, uint8_t held,
                     uint8_t level) noexcept nogil:
        cdef Node root, child
        cdef Node* node
        cdef int32_t i
        cdef int d, k, hi, ri
        cdef uint8_t pad, newly, press
        cdef uint8_t horizontals[3]
        cdef uint8_t rotations[3]
        cdef int nh, nr
        cdef uint8_t k_wait = self.model.tap_interval - 1
        self._reset_slots(INITIAL_SLOTS)
        self._clear_placements()
        root.piece = start[0]
        root.pad = held
        root.frames = 0
        if self.hold_shortcut:
            root.frames = idle_into_hold(&root.piece, board, level, &self.model)
            if root.frames:
                root.pad = 0
        for k in range(4):
            # a button held at the root may have been pressed on the frame before
            root.wait[k] = k_wait if root.pad & BUTTONS[k] else 0
        root.parent = -1
        self._visit(&root)
        i = 0
        while i < self.count:
            node = &self.nodes[i]
            nh = 1
            horizontals[0] = 0
            for k in range(2):
                if (node.pad & BUTTONS[k]) and self.model.hold_shift:
                    horizontals[nh] = BUTTONS[k]
                    nh += 1
                elif not (node.pad & BUTTONS[k]) and node.wait[k] == 0:
                    horizontals[nh] = BUTTONS[k]
                    nh += 1
            nr = 1
            rotations[0] = 0
            for k in range(2, 4):
                if not (node.pad & BUTTONS[k]) and node.wait[k] == 0:
                    rotations[nr] = BUTTONS[k]
                    nr += 1
            for hi in range(nh):
                for ri in range(nr):
                    if horizontals[hi] and rotations[ri] and (
                            self.model.one_button or not self.model.shift_and_rotate):
                        continue
                    for d in range(2 if self.model.soft_drop else 1):
                        pad = horizontals[hi] | rotations[ri] | (BTN_DOWN if d else 0)
                        newly = pad & ~node.pad
                        child.piece = node.piece
                        if piece_frame(&child.piece, board, level, newly, pad):
                            self._record(i, node.frames + 1, &child.piece, pad)
                            continue
                        child.pad = pad
                        for k in range(4):
                            press = newly & BUTTONS[k]
                            if press or (self.model.one_button and newly & PRESSABLE):
                                child.wait[k] = k_wait   # one_button: any press blocks all
                            elif node.wait[k]:
                                child.wait[k] = node.wait[k] - 1
                            else:
                                child.wait[k] = 0
                        child.parent = i
                        child.frames = node.frames + 1
                        self._visit(&child)
            i += 1
        if self.truncated:
            # Out of node capacity (slow taps at low levels have millions of states): the
            # placements plain paths reach are still moves, whatever the search missed.
            self._add_plain(board, start, held, level)

    cdef void search_plain(self, const Board* board, const Piece* start,
                           uint8_t level) noexcept nogil:
        """The placements plain paths reach (plain_path to every orientation and column),
        with no buttons held at the start; a subset of what search() finds, for the
        pieces after the current one. Only where they lock: no paths (frames 0)."""
        self._clear_placements()
        self._add_plain(board, start, 0, level, True)

    cdef void _add_plain(self, const Board* board, const Piece* start, uint8_t held,
                         uint8_t level, bint lock_only=False) noexcept nogil:
        """Record every placement a plain path reaches that is not recorded yet (node -1:
        write_pads runs its plain path again), by orientation, then column. `lock_only`:
        where each locks, not how (plain_lock): frames 0, no path to write."""
        cdef Piece locked
        cdef Piece locks[PLAIN_COLUMNS]
        cdef bint reached[PLAIN_COLUMNS]
        cdef int8_t x
        cdef uint8_t o = start.orientation
        cdef int turns, frames
        cdef Columns columns
        self.origin_board = board[0]
        self.origin = start[0]
        self.origin_held = held
        self.origin_level = level
        if lock_only:
            board_columns(board, &columns)
        for turns in range(4):
            if lock_only:
                self._plain_locks_cached(board, &columns, start, held, level, turns, o,
                                         locks, reached)
            for x in range(PLAIN_LEFTMOST, PLAIN_LEFTMOST + PLAIN_COLUMNS):
                if lock_only:
                    if reached[x - PLAIN_LEFTMOST]:
                        self._record(-1, 0, &locks[x - PLAIN_LEFTMOST], 0)
                    continue
                frames = plain_path(board, start, held, level, &self.model, x, o, False,
                                    NULL, &locked)
                if frames > 0:
                    self._record(-1, frames, &locked, 0)
            o = NES_ROTATE_A[o]
            if o == start.orientation:
                break

    cdef void _plain_locks_cached(self, const Board* board, const Columns* columns,
                                  const Piece* start, uint8_t held, uint8_t level, int turns,
                                  uint8_t o, Piece* locks, bint* reached) noexcept nogil:
        """plain_lock to every column for orientation `o`, `turns` A-turns from the
        start's, mostly without a walk. A plain path's frames depend on the board only
        through the positions they test; on an empty board the tests that fail are the
        walls' and the floor's, which fail on every board. So on a board where every
        position the empty board's walk tested successfully is empty too, the walk is the
        empty board's, frame for frame: its outcome, then (in place) the drop. The
        columns whose walks meet a filled cell walk on the board: alone, or all of a side
        of the start's column in one walk where several on that side are met (it passes
        each on its way)."""
        cdef PlainWalks* walks = self._plain_walks_from(start, held, level)
        cdef PlainWalk* walk
        cdef int i, r, side
        cdef int met_on[3]          # columns met left of the start's, at it, right of it
        cdef bint met[PLAIN_COLUMNS]
        met_on[0] = met_on[1] = met_on[2] = 0
        for i in range(PLAIN_COLUMNS):
            walk = &walks.walks[turns][i]
            met[i] = False
            for r in range(columns.top, walk.last_row + 1):   # the rows above are empty
                if board.rows[r] & walk.mask[r]:
                    met[i] = True
                    met_on[side_of(PLAIN_LEFTMOST + i, start.x)] += 1
                    break
            if met[i]:
                continue
            reached[i] = walk.outcome == WALK_ON or walk.outcome == WALK_LOCKED
            locks[i] = walk.end
            if walk.outcome == WALK_ON:
                drop(&locks[i], columns)   # as walk_to_lock does once in place
        for side in range(-1, 2, 2):
            if met_on[side + 1] > 1:
                plain_locks_side(board, start, held, level, &self.model, o, side, locks,
                                 reached)
        for i in range(PLAIN_COLUMNS):
            side = side_of(PLAIN_LEFTMOST + i, start.x)
            if met[i] and (side == 1 or met_on[side] == 1):
                reached[i] = plain_lock(board, start, held, level, &self.model,
                                        PLAIN_LEFTMOST + i, o, &locks[i])

    cdef PlainWalks* _plain_walks_from(self, const Piece* start, uint8_t held,
                                       uint8_t level) noexcept nogil:
        """The empty board's plain walks from this start, taken when not kept already. A
        walk depends on the level only through its gravity."""
        cdef uint64_t key = (<uint64_t>(<uint8_t>(start.x + 2))
                             | (<uint64_t>(<uint8_t>(start.y + 2)) << 5)
                             | (<uint64_t>start.orientation << 10)
                             | (<uint64_t>start.fall_timer << 15)
                             | (<uint64_t>start.das << 23)
                             | (<uint64_t>start.soft << 28)
                             | (<uint64_t>start.hold_down_points << 36)
                             | (<uint64_t>held << 44)
                             | (<uint64_t>gravity_frames(level) << 52))
        cdef uint32_t slot = mix(key) & (PLAIN_WALK_SLOTS - 1)
        cdef PlainWalks* walks
        cdef uint8_t o = start.orientation
        cdef int turns, i
        while self.plain_walks[slot].key != PLAIN_NO_KEY:
            if self.plain_walks[slot].key == key:
                return &self.plain_walks[slot]
            slot = (slot + 1) & (PLAIN_WALK_SLOTS - 1)
        if self.plain_walk_count == PLAIN_WALK_KEPT:
            # A game uses a few starts at a time (the spawns at one DAS and gravity).
            for i in range(PLAIN_WALK_SLOTS):
                self.plain_walks[i].key = PLAIN_NO_KEY
            self.plain_walk_count = 0
            slot = mix(key) & (PLAIN_WALK_SLOTS - 1)
        self.plain_walk_count += 1
        walks = &self.plain_walks[slot]
        walks.key = key
        for turns in range(4):
            for i in range(PLAIN_COLUMNS):
                empty_board_walk(&walks.walks[turns][i], start, held, level, &self.model,
                                 PLAIN_LEFTMOST + i, o)
            o = NES_ROTATE_A[o]
            if o == start.orientation:
                break
        return walks

    cdef void write_pads(self, const Placement* p, uint8_t* out) noexcept nogil:
        """The button byte of every frame of a placement's path, the locking frame last,
        into out[0 .. p.frames - 1]."""
        cdef int32_t index = p.node
        cdef int k = p.frames - 1
        cdef Piece locked
        if index < 0:
            plain_path(&self.origin_board, &self.origin, self.origin_held, self.origin_level,
                       &self.model, p.x, p.orientation, False, out, &locked)
            return
        out[k] = p.final_pad
        while index > 0:   # the root (index 0) is the state before its first frame
            k -= 1
            out[k] = self.nodes[index].pad
            index = self.nodes[index].parent
        memset(out, 0, k)  # the frames the root idled (idle_into_hold), if any

    cdef bytes placement_pads(self, const Placement* p):
        cdef bytearray pads = bytearray(p.frames)
        self.write_pads(p, <uint8_t*><char*>pads)
        return bytes(pads)

    def placements_of(self, Game game not None):
        """Every placement of the game's active piece: [(x, y, orientation, pads)]."""
        self.search(&game.g.board, &game.g.piece, game.g.held, game.g.level)
        return self._found_with_pads()

    def plain_placements_of(self, Game game not None):
        """The placements plain paths reach from the game's piece (what the two-piece chain
        uses for the next piece): [(x, y, orientation)]."""
        self.search_plain(&game.g.board, &game.g.piece, game.g.level)
        return [(self.placements[k].x, self.placements[k].y, self.placements[k].orientation)
                for k in range(self.placement_count)]

    def plain_paths_of(self, Game game not None):
        """The plain paths themselves, frame by frame, from the game's piece and held
        buttons (how a plain placement of the current piece is played):
        [(x, y, orientation, pads)]; with no buttons held, in plain_placements_of's order."""
        self._clear_placements()
        self._add_plain(&game.g.board, &game.g.piece, game.g.held, game.g.level)
        return self._found_with_pads()

    cdef list _found_with_pads(self):
        cdef Placement* p
        found = []
        for k in range(self.placement_count):
            p = &self.placements[k]
            found.append((p.x, p.y, p.orientation, self.placement_pads(p)))
        return found

    @property
    def truncated_last(self) -> bool:
        return self.truncated

    @property
    def nodes_last(self) -> int:
        return self.count


cdef int plain_path(const Board* board, const Piece* start, uint8_t held, uint8_t level,
                    const InputModel* model, int8_t x, uint8_t orientation, bint finish_down,
                    uint8_t* pads, Piece* locked) noexcept nogil:
    cdef Walk w
    cdef int step
    cdef uint8_t rotate = rotate_button(start.orientation, orientation)
    if rotate == 0:
        return -1                    # not an orientation of this piece
    walk_start(&w, start, held, model)
    while w.frame < PLAIN_PATH_MAX:
        step = walk_frame(&w, board, level, model, x, orientation, rotate, finish_down, pads)
        if step == WALK_LOCKED:
            locked[0] = w.p
            return w.frame
        if step != WALK_ON:
            return -1
    return -1


cdef bint plain_lock(const Board* board, const Piece* start, uint8_t held, uint8_t level,
                     const InputModel* model, int8_t x, uint8_t orientation,
                     Piece* locked) noexcept nogil:
    cdef Walk w
    cdef uint8_t rotate = rotate_button(start.orientation, orientation)
    if rotate == 0:
        return False
    walk_start(&w, start, held, model)
    return walk_to_lock(&w, board, level, model, x, orientation, rotate, locked)


cdef inline int side_of(int x, int start_x) noexcept nogil:
    # Column x is left of the start's (0), the start's (1) or right of it (2).
    return (x > start_x) - (x < start_x) + 1


cdef void plain_locks_side(const Board* board, const Piece* start, uint8_t held,
                           uint8_t level, const InputModel* model, uint8_t orientation,
                           int side, Piece* locks, bint* reached) noexcept nogil:
    # plain_lock to every column on one side of the start's (side -1: left, 1: right; index
    # x - PLAIN_LEFTMOST) without a walk per column: until the piece is in column x, the
    # plain path to x presses what the path to the farthest column on that side presses.
    # So one walk goes on past each column it reaches, and a copy stops shifting there (it
    # may still have to rotate, then drops).
    cdef Walk w, branch
    cdef int x, far, step
    cdef uint8_t rotate = rotate_button(start.orientation, orientation)
    far = PLAIN_LEFTMOST if side < 0 else PLAIN_LEFTMOST + PLAIN_COLUMNS - 1
    x = start.x + side
    while (x - far) * side <= 0:
        reached[x - PLAIN_LEFTMOST] = False
        x += side
    if rotate == 0:
        return
    walk_start(&w, start, held, model)
    x = start.x + side
    while w.frame < PLAIN_PATH_MAX and (x - far) * side <= 0:
        if w.p.x == x:
            branch = w
            reached[x - PLAIN_LEFTMOST] = walk_to_lock(
                &branch, board, level, model, x, orientation, rotate,
                &locks[x - PLAIN_LEFTMOST])
            x += side
            continue
        step = walk_frame(&w, board, level, model, far, orientation, rotate, False, NULL)
        if step == WALK_ON:
            continue
        if (step == WALK_LOCKED_ELSEWHERE or step == WALK_LOCKED) and w.p.x == x \
                and w.p.orientation == orientation:
            # it came to column x on the frame it locked: so does the path to x
            reached[x - PLAIN_LEFTMOST] = True
            locks[x - PLAIN_LEFTMOST] = w.p
        break


cdef inline void board_columns(const Board* board, Columns* columns) noexcept nogil:
    cdef int r, c
    cdef unsigned int m
    columns.top = BOARD_ROWS
    for c in range(10):
        columns.filled[c] = 0
    for r in range(BOARD_ROWS - 1, -1, -1):
        m = board.rows[r]
        if m:
            columns.top = r
        while m:
            columns.filled[lowest_bit(m)] |= 1u << r
            m &= m - 1


cdef inline void drop(Piece* p, const Columns* columns) noexcept nogil:
    # The piece straight down until its fall is blocked, as step_down repeated until it
    # fails leaves it (fall timer 0). Its cells must be empty where it starts.
    cdef int k, bottom, room, fall = BOARD_ROWS
    cdef uint32_t below
    for k in range(DROP_COLUMNS[p.orientation]):
        bottom = p.y + DROP_BOTTOM[p.orientation][k] + BOARD_HIDDEN
        below = columns.filled[p.x + DROP_DX[p.orientation][k]] >> (bottom + 1)
        room = lowest_bit(below) if below else BOARD_ROWS - 1 - bottom
        if room < fall:
            fall = room
    p.y += fall
    p.fall_timer = 0


cdef void empty_board_walk(PlainWalk* walk, const Piece* start, uint8_t held, uint8_t level,
                           const InputModel* model, int8_t x, uint8_t orientation) noexcept nogil:
    # plain_lock's walk to (x, orientation) on the empty board, with every cell of every
    # position its frames may test successfully. A frame shifts at most a column, turns at
    # most once and falls at most a row, so whatever it tests successfully is among the
    # combinations of its start's and end's column, orientation and row.
    cdef Walk w
    cdef Piece before
    cdef int step, k
    cdef uint8_t rotate = rotate_button(start.orientation, orientation)
    memset(walk.mask, 0, sizeof(walk.mask))
    walk.last_row = 0
    walk.end = start[0]
    walk.outcome = WALK_BLOCKED
    add_cells(walk, start.orientation, start.x, start.y)
    if rotate == 0:
        return
    walk_start(&w, start, held, model)
    while w.frame < PLAIN_PATH_MAX:
        if w.p.orientation == orientation and w.p.x == x:
            walk.outcome = WALK_ON
            walk.end = w.p
            return
        before = w.p
        step = walk_frame(&w, &EMPTY_BOARD, level, model, x, orientation, rotate, False, NULL)
        for k in range(8):
            add_cells(walk, w.p.orientation if k & 1 else before.orientation,
                      w.p.x if k & 2 else before.x, w.p.y if k & 4 else before.y)
        if step != WALK_ON:
            walk.outcome = step
            walk.end = w.p
            return


cdef inline void add_cells(PlainWalk* walk, uint8_t orientation, int x, int y) noexcept nogil:
    # The piece's cells at (x, y) into walk.mask, but for those outside the board.
    cdef int k, cx, cy
    for k in range(4):
        cx = x + NES_CELLS[orientation][k][0]
        cy = y + NES_CELLS[orientation][k][1] + BOARD_HIDDEN
        if <unsigned int>cx < 10 and <unsigned int>cy < BOARD_ROWS:
            walk.mask[cy] |= 1 << cx
            if cy > walk.last_row:
                walk.last_row = cy


cdef inline uint8_t rotate_button(uint8_t start, uint8_t orientation) noexcept nogil:
    # The rotation a plain path presses to turn `start` into `orientation`: A or B,
    # whichever needs fewer turns (A on a tie); 0 if it is no orientation of the piece.
    cdef int turns_a = 0, turns_b = 0
    cdef uint8_t o = start
    while o != orientation and turns_a < 4:
        o = NES_ROTATE_A[o]
        turns_a += 1
    if turns_a == 4:
        return 0
    o = start
    while o != orientation:
        o = NES_ROTATE_B[o]
        turns_b += 1
    return BTN_A if turns_a <= turns_b else BTN_B


cdef inline void walk_start(Walk* w, const Piece* start, uint8_t held,
                            const InputModel* model) noexcept nogil:
    cdef int k
    w.p = start[0]
    w.frame = 0
    w.last_any = -model.tap_interval
    w.prev = held
    for k in range(4):
        w.last[k] = -1 if held & BUTTONS[k] else -model.tap_interval


cdef inline int walk_frame(Walk* w, const Board* board, uint8_t level, const InputModel* model,
                           int8_t x, uint8_t orientation, uint8_t rotate, bint finish_down,
                           uint8_t* pads) noexcept nogil:
    # One frame of the plain path toward (x, orientation): its pad (also to pads[frame] if
    # not NULL) through the frame step: WALK_ON, or how the walk ended.
    cdef uint8_t pad = 0, shift
    cdef int8_t x0 = w.p.x
    cdef uint8_t o0 = w.p.orientation
    cdef int k
    cdef bint combine = model.shift_and_rotate and not model.one_button
    if not model.one_button or w.frame - w.last_any >= model.tap_interval:
        if w.p.orientation != orientation and w.frame - w.last[2 if rotate == BTN_A else 3] \
                >= model.tap_interval:
            pad = rotate
        shift = BTN_LEFT if x < w.p.x else BTN_RIGHT if x > w.p.x else 0
        if shift and w.frame - w.last[0 if shift == BTN_LEFT else 1] >= model.tap_interval \
                and (combine or not pad):
            pad |= shift
    if finish_down and not pad and w.p.orientation == orientation and w.p.x == x:
        pad = BTN_DOWN               # held from here on: soft drop to the lock
    for k in range(4):
        if pad & BUTTONS[k]:
            w.last[k] = w.frame
            w.last_any = w.frame
    if pads != NULL:
        pads[w.frame] = pad
    w.frame += 1
    if piece_frame(&w.p, board, level, pad & ~w.prev, pad):
        if w.p.orientation == orientation and w.p.x == x:
            return WALK_LOCKED
        return WALK_LOCKED_ELSEWHERE
    if (pad & (BTN_LEFT | BTN_RIGHT) and w.p.x == x0) or (pad & rotate and w.p.orientation == o0):
        return WALK_BLOCKED          # the plain way does not get there
    w.prev = pad
    return WALK_ON


cdef inline bint walk_to_lock(Walk* w, const Board* board, uint8_t level,
                              const InputModel* model, int8_t x, uint8_t orientation,
                              uint8_t rotate, Piece* locked) noexcept nogil:
    # plain_lock from w on: True, and where it locks, if the plain path gets to (x, orientation).
    cdef int step
    while w.frame < PLAIN_PATH_MAX:
        if w.p.orientation == orientation and w.p.x == x:
            # In place: no later frame presses Left, Right, A or B, so the piece only falls
            # (with Down or without) and locks where its fall is first blocked. The frames
            # between its steps down change only timers, which nobody reads from a lock.
            # (The slowest fall, level 0's, ends far inside PLAIN_PATH_MAX.)
            while not step_down(&w.p, board):
                pass
            locked[0] = w.p
            return True
        step = walk_frame(w, board, level, model, x, orientation, rotate, False, NULL)
        if step == WALK_LOCKED:
            locked[0] = w.p
            return True
        if step != WALK_ON:
            return False
    return False
