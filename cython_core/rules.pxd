# The NES frame rules: the one model of the game in the project (docs/mechanics.md).
# The planner and the simulator both advance states only through these functions.
#
# Error contract: everything here is `noexcept nogil`; no function can fail.
#
# The functions the search calls per node (piece_frame) or per placement (lock_and_clear,
# spawn_piece) are inline here, so they are one definition that inlines into every caller.
from libc.stdint cimport int8_t, uint8_t, uint16_t
from nesbot._core.board cimport Board, clear_row, fits, place, row_full
from nesbot._core.buttons cimport BTN_A, BTN_B, BTN_DOWN, BTN_DPAD, BTN_LEFT, BTN_RIGHT
from nesbot._core.pieces cimport NES_ROTATE_A, NES_ROTATE_B, gravity_frames

ctypedef struct Piece:
    # The active piece and the counters that decide what the next frame's buttons do.
    int8_t x                 # tetriminoX: origin column, 0-9
    int8_t y                 # tetriminoY: origin row, 0 = top (cells may reach row -2)
    uint8_t orientation      # currentPiece: orientation ID $00-$12, $13 = hidden
    uint8_t fall_timer       # frames since the last step-down attempt; +1 every frame
    uint8_t das              # autorepeatX: 0-16; 16 = charged (a blocked shift)
    uint8_t soft             # autorepeatY: 0 idle, 1-2 soft drop, >= $80 first-piece hold
    uint8_t hold_down_points  # soft-drop steps of the current unbroken soft drop

ctypedef struct Game:
    # Everything the ROM keeps that the rules of a running A-TYPE game read or write.
    Board board
    Piece piece
    uint8_t next_piece       # orientation ID of the preview piece (a spawn orientation)
    uint8_t level            # binary
    uint8_t play_state       # 1 active, 2 lock, 3 row checks, 4 clear animation,
                             # 5 score, 6-7 pass-through, 8 spawn, $0A topped out
    uint8_t vram_row         # next row the NMI copies to the screen; $20 = done
    uint8_t row_y            # line-clear animation step, 0-5
    uint8_t completed_lines  # rows cleared by this lock
    uint8_t line_index       # row being checked in play state 3, 0-4
    uint8_t curtain_row      # $F0 at top-out
    uint8_t completed_row[4]  # cleared row numbers, 0 = none
    uint8_t lines[2]         # BCD, little-endian
    uint8_t score[3]         # BCD, little-endian, capped at 999999
    uint8_t line_clear_stats[4]  # BCD counts of singles, doubles, triples, tetrises
    uint8_t piece_stats[14]  # 7 x 2-byte BCD spawn counts, T J Z O S L I
    uint16_t rng             # rng_seed, $17 as the high byte
    uint8_t spawn_count      # +1 per randomizer call
    uint8_t spawn_id         # last orientation ID the randomizer chose
    uint16_t frame_counter   # +1 every NMI
    uint8_t newly            # buttons newly pressed at the last poll (nes-py order)
    uint8_t held             # buttons held at the last poll (nes-py order)

cdef enum:
    PLAY_ACTIVE = 1
    PLAY_LOCK = 2
    PLAY_CHECK_ROWS = 3
    PLAY_CLEAR_ANIMATION = 4
    PLAY_SCORE = 5
    PLAY_SPAWN = 8
    PLAY_TOPPED_OUT = 0x0A
    VRAM_DONE = 0x20
    FIRST_PIECE_HOLD = 0xA0  # autorepeatY at game start: 96 frames without gravity
    HOLDING = 0x80           # autorepeatY from here up: the hold goes on (it wraps to 0)
    SPAWN_X = 5              # where playState_spawnNextTetrimino puts a new piece
    SPAWN_Y = 0
    POWER_ON_RNG = 0x8988    # rng_seed after reset ($17 = $89, $18 = $88)
    SCORE_CAP = 999999       # the score the ROM stops at (BCD $99 $99 $99)
    DAS_RESET = 16           # DAS counter value that fires a shift (and of a blocked shift)
    DAS_DELAY = 10           # value after an auto-shift: the next one comes 6 frames later

cdef uint16_t rng_step(uint16_t r) noexcept nogil
cdef uint8_t pick_piece(Game* g) noexcept nogil
# P(next piece type | the piece before it), types T J Z O S L I = 0..6, as pick_piece makes
# them when its roll (RNG high byte + spawn count) is uniform: odds[before][next].
cdef void transition_odds(double odds[7][7]) noexcept nogil
cdef void game_step(Game* g, uint8_t pad) noexcept nogil
cdef void game_logic(Game* g) noexcept nogil
cdef void count_lines(uint8_t* level, uint8_t* lines, int cleared) noexcept nogil
cdef void game_start(Game* g, uint8_t level, uint16_t rng, uint8_t spawn_count,
                     uint16_t frame_counter, uint8_t das) noexcept nogil


cdef inline bint signed_ge(uint8_t a, uint8_t b) noexcept nogil:
    # The 6502's `cmp b; bpl`: the sign of the 8-bit difference.
    return <int8_t>(a - b) >= 0


cdef inline void spawn_piece(Piece* p, uint8_t orientation) noexcept nogil:
    # playState_spawnNextTetrimino's piece: DAS (autorepeatX) and the soft-drop points
    # counter carry over from the piece before.
    p.fall_timer = 0
    p.y = SPAWN_Y
    p.x = SPAWN_X
    p.orientation = orientation
    p.soft = 0


cdef inline bint step_down(Piece* p, const Board* b) noexcept nogil:
    p.fall_timer = 0
    p.y += 1
    if fits(b, p.orientation, p.x, p.y):
        return False
    p.y -= 1
    return True


cdef inline bint piece_frame(Piece* p, const Board* b, uint8_t level,
                             uint8_t newly, uint8_t held) noexcept nogil:
    """One frame of play state 1: fall timer, shift, rotate, drop. True if the piece locked."""
    cdef int8_t x0
    cdef uint8_t o0
    cdef bint move = False
    p.fall_timer += 1   # gameModeState_updateCountersAndNonPlayerState runs first

    # shift_tetrimino: any held Down blocks shifting and freezes the DAS counter.
    if not (held & BTN_DOWN):
        if newly & (BTN_LEFT | BTN_RIGHT):
            p.das = 0
            move = True
        elif held & (BTN_LEFT | BTN_RIGHT):
            p.das += 1
            if signed_ge(p.das, DAS_RESET):
                p.das = DAS_DELAY
                move = True
        if move:
            x0 = p.x
            if held & BTN_RIGHT:       # Right wins when both are held
                p.x += 1
            elif held & BTN_LEFT:
                p.x -= 1
            if p.x != x0 and not fits(b, p.orientation, p.x, p.y):
                p.x = x0
                p.das = DAS_RESET      # blocked: stays charged, retried every frame

    # rotate_tetrimino: only new presses; A before B; no kicks.
    o0 = p.orientation
    if newly & BTN_A:
        p.orientation = NES_ROTATE_A[o0]
    elif newly & BTN_B:
        p.orientation = NES_ROTATE_B[o0]
    if p.orientation != o0 and not fits(b, p.orientation, p.x, p.y):
        p.orientation = o0

    # drop_tetrimino
    if p.soft >= HOLDING:              # first-piece hold: no gravity until a Down press
        if not (newly & BTN_DOWN):
            p.soft += 1
            return False
        p.soft = 0
    if p.soft == 0:
        if not (held & (BTN_LEFT | BTN_RIGHT)) and (newly & BTN_DPAD) == BTN_DOWN:
            p.soft = 1                 # soft drop starts; gravity still applies this frame
    elif (held & BTN_DPAD) == BTN_DOWN:
        p.soft += 1
        if p.soft >= 3:
            p.soft = 1
            p.hold_down_points += 1
            return step_down(p, b)     # a soft-drop step skips the gravity check
    else:
        p.soft = 0                     # any other D-pad bit, or no Down, ends it
        p.hold_down_points = 0

    if signed_ge(p.fall_timer, gravity_frames(level)):
        return step_down(p, b)
    return False


cdef inline int checked_row(int8_t y, int index) noexcept nogil:
    # playState_checkForCompletedRows tests rows y - 2 .. y + 1, from row 0 at the least.
    return (y - 2 if y >= 2 else 0) + index


cdef inline int lock_and_clear(Board* b, uint8_t orientation, int8_t x, int8_t y) noexcept nogil:
    """The board a lock leaves once its rows are checked (play states 2-3 at once): the
    piece written, then each checked full row cleared in the ROM's order (rows above move
    down, so the next check sees the next row). Returns the rows cleared."""
    cdef int k, row, cleared = 0
    place(b, orientation, x, y)
    for k in range(4):
        row = checked_row(y, k)
        if row_full(b, row):
            clear_row(b, row)
            cleared += 1
    return cleared
