"""Move search: every placement a piece can reach, with the button byte of each frame.

A node is a gamepad state on one frame: the piece after the frame (x, y, orientation, fall
timer, DAS and soft-drop counters) plus the buttons of that frame and, per button, how long
until it may be pressed again. Its children are the button bytes the input model allows on
the next frame, each advanced through rules.piece_frame, the same frame step the simulator
uses. A child whose frame locks the piece is a placement. The search is breadth-first with
a visited set keyed on the whole node state, so the first path found to each lock is one
with the fewest frames, and ties resolve in a fixed order (deterministic).
"""

from libc.stdint cimport int8_t, int32_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memset

from cython_core.board cimport BOARD_HIDDEN, Board, clear_row, place, row_full
from cython_core.buttons cimport BTN_A, BTN_B, BTN_DOWN, BTN_LEFT, BTN_RIGHT
from cython_core.evaluate cimport Weights, blocks_spawn, evaluate, field_split, touches_ceiling
from cython_core.game cimport Game
from cython_core.pieces cimport NES_CELLS
from cython_core.rules cimport Piece, count_lines, piece_frame

cdef enum:
    PLACEMENT_CAPACITY = 1024
    PLACEMENT_HASH = 4096

cdef uint64_t EMPTY_KEY = <uint64_t>-1   # placement_keys slots are memset to 0xFF
cdef uint8_t PRESSABLE = BTN_LEFT | BTN_RIGHT | BTN_A | BTN_B

cdef uint8_t[4] BUTTONS = [BTN_LEFT, BTN_RIGHT, BTN_A, BTN_B]   # the order of Node.wait


cdef inline uint64_t node_key(const Node* n) noexcept nogil:
    # Everything that decides the future of the node (hold_down_points only decides points).
    return (<uint64_t>(<uint8_t>n.piece.x)
            | (<uint64_t>(<uint8_t>(n.piece.y + 2)) << 8)
            | (<uint64_t>n.piece.orientation << 16)
            | (<uint64_t>n.piece.fall_timer << 24)
            | (<uint64_t>n.piece.das << 32)
            | (<uint64_t>n.piece.soft << 40)
            | (<uint64_t>n.pad << 48)
            | (<uint64_t>(n.wait[0] | (n.wait[1] << 2) | (n.wait[2] << 4) | (n.wait[3] << 6))
               << 56))


cdef inline uint32_t mix(uint64_t key) noexcept nogil:
    key ^= key >> 33
    key *= <uint64_t>0xFF51AFD7ED558CCDULL
    key ^= key >> 33
    return <uint32_t>key


cdef class Searcher:
    """Breadth-first search over gamepad states for one piece at a time (buffers reused)."""

    def __cinit__(self, int tap_interval=2, bint shift_and_rotate=True, bint hold_shift=False,
                  bint soft_drop=False, bint one_button=False, int capacity=1 << 20):
        if not 1 <= tap_interval <= 6:
            raise ValueError(f"tap_interval {tap_interval} is outside 1-6 frames")
        self.model.tap_interval = tap_interval
        self.model.shift_and_rotate = shift_and_rotate
        self.model.hold_shift = hold_shift
        self.model.soft_drop = soft_drop
        self.model.one_button = one_button
        self.capacity = capacity
        slots = 1
        while slots < 2 * capacity:
            slots <<= 1
        self.slot_mask = slots - 1
        self.nodes = <Node*>malloc(capacity * sizeof(Node))
        self.slots = <int32_t*>malloc(slots * sizeof(int32_t))
        self.stamps = <uint32_t*>malloc(slots * sizeof(uint32_t))
        self.placements = <Placement*>malloc(PLACEMENT_CAPACITY * sizeof(Placement))
        self.placement_keys = <uint64_t*>malloc(PLACEMENT_HASH * sizeof(uint64_t))
        if not (self.nodes and self.slots and self.stamps and self.placements
                and self.placement_keys):
            raise MemoryError()
        memset(self.stamps, 0, slots * sizeof(uint32_t))
        self.stamp = 0

    def __dealloc__(self):
        free(self.nodes)
        free(self.slots)
        free(self.stamps)
        free(self.placements)
        free(self.placement_keys)

    cdef bint _visit(self, const Node* n) noexcept nogil:
        """Add the node if its state is new; False if seen before or out of room."""
        cdef uint64_t key = node_key(n)
        cdef uint32_t slot = mix(key) & self.slot_mask
        while self.stamps[slot] == self.stamp:
            if node_key(&self.nodes[self.slots[slot]]) == key:
                return False
            slot = (slot + 1) & self.slot_mask
        if self.count >= self.capacity:
            self.truncated = True
            return False
        self.stamps[slot] = self.stamp
        self.slots[slot] = self.count
        self.nodes[self.count] = n[0]
        self.count += 1
        return True

    cdef void _record(self, const Node* parent, int32_t parent_index, const Piece* locked,
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
        p.frames = parent.frames + 1
        p.hold_down_points = locked.hold_down_points
        self.placement_count += 1

    cdef void search(self, const Board* board, const Piece* start, uint8_t held,
                     uint8_t level) noexcept nogil:
        cdef Node root, child
        cdef Node* node
        cdef int32_t i
        cdef int h, r, d, k, hi, ri
        cdef uint8_t pad, newly, press
        cdef uint8_t horizontals[3]
        cdef uint8_t rotations[3]
        cdef int nh, nr
        cdef uint8_t k_wait = self.model.tap_interval - 1
        self.stamp += 1
        if self.stamp == 0:   # wrapped: clear stamps once every 4 billion searches
            memset(self.stamps, 0, (self.slot_mask + 1) * sizeof(uint32_t))
            self.stamp = 1
        self.count = 0
        self.placement_count = 0
        self.truncated = False
        memset(self.placement_keys, 0xFF, PLACEMENT_HASH * sizeof(uint64_t))
        root.piece = start[0]
        root.pad = held
        for k in range(4):
            # a button held at the root may have been pressed on the frame before
            root.wait[k] = k_wait if held & BUTTONS[k] else 0
        root.parent = -1
        root.frames = 0
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
                            self._record(node, i, &child.piece, pad)
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

    cdef bytes placement_pads(self, const Placement* p):
        """The button byte of every frame of a placement's path, the locking frame last."""
        cdef bytearray pads = bytearray(p.frames)
        cdef uint8_t* out = <uint8_t*><char*>pads
        cdef int32_t index = p.node
        cdef int k = p.frames - 1
        out[k] = p.final_pad
        while index > 0:   # the root (index 0) is the state before the first frame
            k -= 1
            out[k] = self.nodes[index].pad
            index = self.nodes[index].parent
        return bytes(pads)

    def placements_of(self, Game game):
        """Every placement of the game's active piece: [(x, y, orientation, pads)]."""
        cdef Placement* p
        self.search(&game.g.board, &game.g.piece, game.g.held, game.g.level)
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


cdef inline int lock_height(const Placement* p) noexcept nogil:
    # Height above the floor at which the piece locks: how far it would still fall on an
    # empty field, orientation kept.
    cdef int k, lowest = -2
    for k in range(4):
        if NES_CELLS[p.orientation][k][1] > lowest:
            lowest = NES_CELLS[p.orientation][k][1]
    return 19 - lowest - p.y


cdef inline int lock_and_clear(Board* b, const Placement* p) noexcept nogil:
    # The ROM's order: write the cells, then test rows y-2 .. y+1 from the top, clearing each
    # full one at once (rows above move down, so the next test sees the next row).
    cdef int k, row, cleared = 0
    cdef int first = p.y - 2
    place(b, p.orientation, p.x, p.y)
    if first < 0:
        first = 0
    for k in range(4):
        row = first + k
        if row_full(b, row):
            clear_row(b, row)
            cleared += 1
    return cleared


cdef class Planner:
    """The two-piece search chain: every placement of the current piece x every placement
    of the next, scored on the final board (lower is better); ties go to the first found."""

    cdef Searcher first
    cdef Searcher second
    cdef Weights weights
    cdef public int nodes_searched

    def __init__(self, weights, double ceiling, int tap_interval=2, bint shift_and_rotate=True,
                 bint hold_shift=False, bint soft_drop=False, bint one_button=False,
                 bint simple_second=True):
        """`simple_second`: search the next piece with one new press per frame at most (a
        subset of what the full model reaches, found with far fewer nodes)."""
        if len(weights) != 17:
            raise ValueError(f"weights need 17 values, got {len(weights)}")
        for k in range(17):
            self.weights.w[k] = weights[k]
        self.weights.ceiling_weight = ceiling
        self.first = Searcher(tap_interval, shift_and_rotate, hold_shift, soft_drop, one_button)
        self.second = Searcher(tap_interval, shift_and_rotate and not simple_second,
                               hold_shift, soft_drop, one_button or simple_second)

    def plan(self, Game game):
        """Choose the current piece's placement. Returns (pads, x, y, orientation, value) or
        None when the piece has no placement that keeps the game going."""
        cdef Placement* p1
        cdef Placement* p2
        cdef Board board1
        cdef Board board2
        cdef Piece spawn
        cdef uint8_t level1
        cdef uint8_t lines1[2]
        cdef int a, b, cleared1, cleared2, best = -1, height1
        cdef double value, best_value = 1e300
        # The next piece spawns the same way after every first placement; the bot holds no
        # buttons through the entry delay, and DAS carries over unchanged.
        spawn.x = 5
        spawn.y = 0
        spawn.orientation = game.g.next_piece
        spawn.fall_timer = 0
        spawn.das = game.g.piece.das
        spawn.soft = 0
        spawn.hold_down_points = 0
        with nogil:
            self.first.search(&game.g.board, &game.g.piece, game.g.held, game.g.level)
            self.nodes_searched = self.first.count
            for a in range(self.first.placement_count):
                p1 = &self.first.placements[a]
                board1 = game.g.board
                cleared1 = lock_and_clear(&board1, p1)
                if blocks_spawn(&board1):
                    continue   # rule 3: some piece could not spawn
                height1 = lock_height(p1)
                level1 = game.g.level
                lines1[0] = game.g.lines[0]
                lines1[1] = game.g.lines[1]
                count_lines(&level1, lines1, cleared1)
                self.second.search(&board1, &spawn, 0, level1)
                self.nodes_searched += self.second.count
                for b in range(self.second.placement_count):
                    p2 = &self.second.placements[b]
                    board2 = board1
                    cleared2 = lock_and_clear(&board2, p2)
                    if blocks_spawn(&board2):
                        continue
                    if touches_ceiling(&board2) and field_split(&board2):
                        continue   # rule 4: the field is split for good
                    value = evaluate(&board2, cleared1 + cleared2,
                                     height1 + lock_height(p2), &self.weights)
                    if cleared1 == 4:
                        value -= 1e9   # rule 1: take a Tetris now
                    elif cleared2 == 4:
                        value -= 1e8   # ... or set one up for the next piece
                    if value < best_value:
                        best_value = value
                        best = a
                if self.second.placement_count == 0 and best < 0:
                    # the next piece has nowhere to go: keep this only as a last resort
                    value = 1e200
                    if value < best_value:
                        best_value = value
                        best = a
        if best < 0:
            return None
        p1 = &self.first.placements[best]
        return self.first.placement_pads(p1), p1.x, p1.y, p1.orientation, best_value
