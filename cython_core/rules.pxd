# The NES frame rules: the one model of the game in the project (mechanics §1-§11).
# The planner and the simulator both advance states only through these functions.
#
# Error contract: everything here is `noexcept nogil`; no function can fail.
from libc.stdint cimport int8_t, uint8_t, uint16_t
from nesbot._core.board cimport Board

ctypedef struct Piece:
    # The active piece and the counters that decide what the next frame's buttons do.
    int8_t x                 # tetriminoX: origin column, 0-9
    int8_t y                 # tetriminoY: origin row, 0 = top (cells may reach row -2)
    uint8_t orientation      # currentPiece: orientation ID $00-$12, $13 = hidden
    uint8_t fall_timer       # frames since the last step-down attempt; +1 every frame
    uint8_t das              # autorepeatX: 0-16; 16 = charged (a blocked shift)
    uint8_t soft             # autorepeatY: 0 idle, 1-2 soft drop, >= $80 first-piece hold
    uint8_t hold_down_points # soft-drop steps of the current unbroken soft drop

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
    uint8_t completed_row[4] # cleared row numbers, 0 = none
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

cdef uint16_t rng_step(uint16_t r) noexcept nogil
cdef uint8_t pick_piece(Game* g) noexcept nogil
cdef bint piece_frame(Piece* p, const Board* b, uint8_t level,
                      uint8_t newly, uint8_t held) noexcept nogil
cdef void game_step(Game* g, uint8_t pad) noexcept nogil
cdef void game_logic(Game* g) noexcept nogil
cdef void count_lines(uint8_t* level, uint8_t* lines, int cleared) noexcept nogil
cdef void game_start(Game* g, uint8_t level, uint16_t rng, uint8_t spawn_count,
                     uint16_t frame_counter, uint8_t das) noexcept nogil
