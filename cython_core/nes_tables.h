/* NES Tetris data tables, as in the ROM (docs/mechanics.md#pieces-and-orientations,
 * docs/mechanics.md#rotation, docs/mechanics.md#gravity-and-frames-per-drop,
 * docs/mechanics.md#scoring).
 * Checked byte-for-byte against the ROM file by tests/test_tables.py. */
#ifndef NESBOT_NES_TABLES_H
#define NESBOT_NES_TABLES_H

#define NES_ORIENTATIONS 19

/* (dx, dy) of the 4 cells of each orientation ID; +x right, +y down (orientationTable $8A9C). */
static const signed char NES_CELLS[NES_ORIENTATIONS][4][2] = {
    {{-1, 0}, {0, 0}, {1, 0}, {0, -1}},   /* $00 T up    */
    {{0, -1}, {0, 0}, {1, 0}, {0, 1}},    /* $01 T right */
    {{-1, 0}, {0, 0}, {1, 0}, {0, 1}},    /* $02 T down (spawn) */
    {{0, -1}, {-1, 0}, {0, 0}, {0, 1}},   /* $03 T left  */
    {{0, -1}, {0, 0}, {-1, 1}, {0, 1}},   /* $04 J left  */
    {{-1, -1}, {-1, 0}, {0, 0}, {1, 0}},  /* $05 J up    */
    {{0, -1}, {1, -1}, {0, 0}, {0, 1}},   /* $06 J right */
    {{-1, 0}, {0, 0}, {1, 0}, {1, 1}},    /* $07 J down (spawn) */
    {{-1, 0}, {0, 0}, {0, 1}, {1, 1}},    /* $08 Z horizontal (spawn) */
    {{1, -1}, {0, 0}, {1, 0}, {0, 1}},    /* $09 Z vertical */
    {{-1, 0}, {0, 0}, {-1, 1}, {0, 1}},   /* $0A O (spawn) */
    {{0, 0}, {1, 0}, {-1, 1}, {0, 1}},    /* $0B S horizontal (spawn) */
    {{0, -1}, {0, 0}, {1, 0}, {1, 1}},    /* $0C S vertical */
    {{0, -1}, {0, 0}, {0, 1}, {1, 1}},    /* $0D L right */
    {{-1, 0}, {0, 0}, {1, 0}, {-1, 1}},   /* $0E L down (spawn) */
    {{-1, -1}, {0, -1}, {0, 0}, {0, 1}},  /* $0F L left  */
    {{1, -1}, {-1, 0}, {0, 0}, {1, 0}},   /* $10 L up    */
    {{0, -2}, {0, -1}, {0, 0}, {0, 1}},   /* $11 I vertical */
    {{-2, 0}, {-1, 0}, {0, 0}, {1, 0}},   /* $12 I horizontal (spawn) */
};

/* rotationTable $88EE: the orientation after a new press of A (clockwise) or B. */
static const unsigned char NES_ROTATE_A[NES_ORIENTATIONS] = {
    0x01, 0x02, 0x03, 0x00, 0x05, 0x06, 0x07, 0x04, 0x09, 0x08,
    0x0A, 0x0C, 0x0B, 0x0E, 0x0F, 0x10, 0x0D, 0x12, 0x11};
static const unsigned char NES_ROTATE_B[NES_ORIENTATIONS] = {
    0x03, 0x00, 0x01, 0x02, 0x07, 0x04, 0x05, 0x06, 0x09, 0x08,
    0x0A, 0x0C, 0x0B, 0x10, 0x0D, 0x0E, 0x0F, 0x12, 0x11};

/* tetriminoTypeFromOrientation: T J Z O S L I = 0..6. */
static const unsigned char NES_PIECE_TYPE[NES_ORIENTATIONS] = {
    0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 4, 4, 5, 5, 5, 5, 6, 6};

/* spawnTable: spawn orientation of each piece type, T J Z O S L I. */
static const unsigned char NES_SPAWN_TABLE[7] = {0x02, 0x07, 0x08, 0x0A, 0x0B, 0x0E, 0x12};

/* spawnOrientationFromOrientation. */
static const unsigned char NES_SPAWN_ORIENTATION[NES_ORIENTATIONS] = {
    0x02, 0x02, 0x02, 0x02, 0x07, 0x07, 0x07, 0x07, 0x08, 0x08,
    0x0A, 0x0B, 0x0B, 0x0E, 0x0E, 0x0E, 0x0E, 0x12, 0x12};

/* framesPerDropTable $898E, levels 0-28; level 29 and above use 1. */
static const unsigned char NES_FRAMES_PER_ROW[29] = {
    48, 43, 38, 33, 28, 23, 18, 13, 8, 6, 5, 5, 5, 4, 4, 4, 3, 3, 3,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2};

/* pointsTable: BCD points (low byte, high byte) for 0-4 cleared lines. */
static const unsigned char NES_POINTS[5][2] = {
    {0x00, 0x00}, {0x40, 0x00}, {0x00, 0x01}, {0x00, 0x03}, {0x00, 0x12}};

#endif
