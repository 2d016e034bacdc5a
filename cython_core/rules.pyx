# cython: language_level=3
"""The NES frame rules (see rules.pxd). Comments cite the ROM routine each part follows.

A step is one whole NES frame: the NMI (screen row copy or line-clear animation, frame
counter, RNG step, controller poll of this step's buttons), then the game logic that uses
those buttons. This is where nes-py's step boundary lies once the emulator is aligned (see
nesbot/nes/emulator.py), so a Game stepped with the same buttons as the aligned emulator shows
what the emulator's RAM shows after each step.
"""

from libc.string cimport memset

from nesbot._core.board cimport clear_row, fits, place, row_full
from nesbot._core.pieces cimport (
    NES_POINTS,
    NES_SPAWN_ORIENTATION,
    NES_SPAWN_TABLE,
    NES_PIECE_TYPE,
    ORIENTATION_HIDDEN,
)


cdef uint16_t rng_step(uint16_t r) noexcept nogil:
    # generateNextPseudorandomNumber: bit 1 of $17 xor bit 1 of $18 enters at the top.
    cdef uint16_t bit = ((r >> 9) ^ (r >> 1)) & 1
    return (r >> 1) | (bit << 15)


cdef uint8_t pick_piece(Game* g) noexcept nogil:
    # pickRandomTetrimino: returns the new next piece's orientation ID.
    cdef uint8_t index
    g.spawn_count += 1
    index = ((g.rng >> 8) + g.spawn_count) & 7
    if index != 7 and NES_SPAWN_TABLE[index] != g.spawn_id:
        g.spawn_id = NES_SPAWN_TABLE[index]
        return g.spawn_id
    g.rng = rng_step(g.rng)
    # The reroll adds the previous orientation ID, not its 0-6 type (a ROM quirk).
    index = (((g.rng >> 8) & 7) + g.spawn_id) % 7
    g.spawn_id = NES_SPAWN_TABLE[index]
    return g.spawn_id


cdef void transition_odds(double odds[7][7]) noexcept nogil:
    # pickRandomTetrimino with each of the 8 first rolls and 8 rerolls equally likely.
    cdef int before, first, second
    cdef uint8_t spawn_id
    for before in range(7):
        spawn_id = NES_SPAWN_TABLE[before]
        for first in range(7):
            odds[before][first] = 0.0
        for first in range(8):
            if first != 7 and NES_SPAWN_TABLE[first] != spawn_id:
                odds[before][first] += 1.0 / 8
            else:
                for second in range(8):
                    odds[before][(second + spawn_id) % 7] += 1.0 / 64


def piece_odds() -> list[list[float]]:
    """transition_odds as rows: [before][next], types T J Z O S L I."""
    cdef double odds[7][7]
    transition_odds(odds)
    return [[odds[b][n] for n in range(7)] for b in range(7)]


cdef inline void lower_vram_row(Game* g) noexcept nogil:
    # updatePlayfield: redraw from two rows above the piece's origin (signed compare).
    cdef int8_t row = g.piece.y - 2
    if row < 0:
        row = 0
    if row < <int8_t>g.vram_row:
        g.vram_row = row


cdef void lock_piece(Game* g) noexcept nogil:
    # playState_lockTetrimino
    if not fits(&g.board, g.piece.orientation, g.piece.x, g.piece.y):
        g.play_state = PLAY_TOPPED_OUT
        g.curtain_row = 0xF0
        return
    if not signed_ge(g.vram_row, VRAM_DONE):
        return
    place(&g.board, g.piece.orientation, g.piece.x, g.piece.y)
    g.line_index = 0
    lower_vram_row(g)
    g.play_state = PLAY_CHECK_ROWS


cdef void check_one_row(Game* g) noexcept nogil:
    # playState_checkForCompletedRows: one of the 4 rows from y - 2 each frame.
    cdef int row
    if not signed_ge(g.vram_row, VRAM_DONE):
        return
    row = checked_row(g.piece.y, g.line_index)
    if row_full(&g.board, row):
        g.completed_lines += 1
        g.completed_row[g.line_index] = row
        clear_row(&g.board, row)
        g.piece.orientation = ORIENTATION_HIDDEN
    else:
        g.completed_row[g.line_index] = 0
    g.line_index += 1
    if signed_ge(g.line_index, 4):
        g.vram_row = 0
        g.row_y = 0
        g.play_state += 1 if g.completed_lines else 2


cdef void count_lines(uint8_t* level, uint8_t* lines, int cleared) noexcept nogil:
    # incrementLines, once per cleared line, with the level-up test of
    # docs/mechanics.md#levels-and-transitions.
    cdef int _line
    cdef uint8_t tens
    for _line in range(cleared):
        lines[0] += 1
        if (lines[0] & 0x0F) >= 0x0A:
            lines[0] += 6
            if (lines[0] & 0xF0) >= 0xA0:
                lines[0] &= 0x0F
                lines[1] += 1
        if (lines[0] & 0x0F) == 0:
            # lines/10 written in BCD but compared as binary: 140 lines reads as 20.
            tens = <uint8_t>(((lines[1] << 8) | lines[0]) >> 4)
            if not signed_ge(level[0], tens):
                level[0] += 1


cdef void add_points(Game* g) noexcept nogil:
    # addHoldDownPoints and addLineClearPoints, with their BCD slips, and the 999999 cap.
    cdef uint8_t* s = g.score
    cdef uint8_t hdp = g.piece.hold_down_points
    cdef uint8_t lo = NES_POINTS[g.completed_lines][0]
    cdef uint8_t hi = NES_POINTS[g.completed_lines][1]
    cdef uint8_t times = g.level + 1
    cdef int count = times if times else 256
    if signed_ge(hdp, 2):
        s[0] = <uint8_t>(s[0] - 1 + hdp)   # hdp - 1 added in binary, one decimal fix-up
        if (s[0] & 0x0F) >= 0x0A:
            s[0] += 6
        if (s[0] & 0xF0) >= 0xA0:
            s[0] = (s[0] & 0xF0) + 0x60     # the low digit is dropped here
            s[1] += 1
    g.piece.hold_down_points = 0
    for _ in range(count):
        s[0] += lo
        if s[0] >= 0xA0:
            s[0] += 0x60
            s[1] += 1
        s[1] += hi
        if (s[1] & 0x0F) >= 0x0A:
            s[1] += 6
        if (s[1] & 0xF0) >= 0xA0:
            s[1] += 0x60
            s[2] += 1
        if (s[2] & 0x0F) >= 0x0A:
            s[2] += 6
        if (s[2] & 0xF0) >= 0xA0:
            s[0] = 0x99
            s[1] = 0x99
            s[2] = 0x99


cdef inline void bcd_increment(uint8_t* counter) noexcept nogil:
    # lineClearStatsByType: one byte, low-nibble fix-up only.
    counter[0] += 1
    if (counter[0] & 0x0F) >= 0x0A:
        counter[0] += 6


cdef void update_lines_and_score(Game* g) noexcept nogil:
    # playState_updateLinesAndStatistics
    if g.completed_lines:
        bcd_increment(&g.line_clear_stats[g.completed_lines - 1])
        count_lines(&g.level, g.lines, g.completed_lines)
    add_points(g)
    g.completed_lines = 0
    g.play_state += 1


cdef void count_piece(Game* g, uint8_t orientation) noexcept nogil:
    # incrementPieceStat: 2-byte BCD per piece type.
    cdef uint8_t* stat = &g.piece_stats[2 * NES_PIECE_TYPE[orientation]]
    cdef uint8_t low = stat[0] + 1
    if (low & 0x0F) >= 0x0A:
        low += 6
        if low >= 0xA0:
            low += 0x60
            stat[1] += 1
    stat[0] = low


cdef void spawn(Game* g) noexcept nogil:
    # playState_spawnNextTetrimino: waits until the screen copy is done.
    if not signed_ge(g.vram_row, VRAM_DONE):
        return
    g.play_state = PLAY_ACTIVE
    spawn_piece(&g.piece, NES_SPAWN_ORIENTATION[g.next_piece])
    count_piece(g, g.piece.orientation)
    g.next_piece = pick_piece(g)


cdef void game_logic(Game* g) noexcept nogil:
    # One frame of gameModeState 2-4 for player 1.
    cdef uint8_t state = g.play_state
    if state == PLAY_ACTIVE:
        if piece_frame(&g.piece, &g.board, g.level, g.newly, g.held):
            g.play_state = PLAY_LOCK
            lower_vram_row(g)
        return
    g.piece.fall_timer += 1
    if state == PLAY_LOCK:
        lock_piece(g)
    elif state == PLAY_CHECK_ROWS:
        check_one_row(g)
    elif state == PLAY_SCORE:
        update_lines_and_score(g)
    elif state == 6 or state == 7:   # B-TYPE goal check and garbage: nothing in 1P A-TYPE
        g.play_state += 1
    elif state == PLAY_SPAWN:
        spawn(g)
    # 4: the NMI runs the animation. $0A: the curtain, which the model does not draw.


cdef void game_nmi(Game* g, uint8_t pad) noexcept nogil:
    # The NMI: render_mode_play_and_demo, frame counter, RNG, controller poll.
    cdef int _row
    if g.play_state == PLAY_CLEAR_ANIMATION:
        # updateLineClearingAnimation steps on frames divisible by 4 (before the +1).
        if (g.frame_counter & 3) == 0:
            g.row_y += 1
            if signed_ge(g.row_y, 5):
                g.play_state += 1
        g.vram_row = 0
    else:
        for _row in range(4):   # copyPlayfieldRowToVRAM, 4 rows per frame
            if signed_ge(g.vram_row, 21):
                break
            g.vram_row += 1
            if signed_ge(g.vram_row, 20):
                g.vram_row = VRAM_DONE
    g.frame_counter += 1
    g.rng = rng_step(g.rng)
    g.newly = pad & ~g.held
    g.held = pad


cdef void game_step(Game* g, uint8_t pad) noexcept nogil:
    game_nmi(g, pad)
    game_logic(g)


cdef void game_start(Game* g, uint8_t level, uint16_t rng, uint8_t spawn_count,
                     uint16_t frame_counter, uint8_t das) noexcept nogil:
    # gameModeState_initGameState for player 1, then the state of the first active frame.
    # The RNG, spawn counter, frame counter and DAS carry over from the menus.
    memset(g, 0, sizeof(Game))
    g.level = level
    g.rng = rng
    g.spawn_count = spawn_count
    g.frame_counter = frame_counter
    g.piece.das = das
    spawn_piece(&g.piece, NES_SPAWN_ORIENTATION[pick_piece(g)])
    g.rng = rng_step(g.rng)
    g.next_piece = pick_piece(g)
    count_piece(g, g.piece.orientation)
    g.piece.soft = FIRST_PIECE_HOLD
    g.play_state = PLAY_ACTIVE
    g.vram_row = 0          # initGameState: the first frames redraw the whole field
