"""Where the ROM draws on the NES's screen: the picture's size and the playfield's cells.

The facts the overlay draws over (nesbot.show.overlay) and the screen reader reads from
(nesbot.rating.reading), kept beside the ROM's other facts.
"""

SCREEN_HEIGHT = 240
SCREEN_WIDTH = 256
# Where the ROM draws the playfield on its 256x240 screen: the top-left pixel of cell
# (column 0, row 0), and the size of a cell (one 8x8 tile).
PLAYFIELD_LEFT = 96
PLAYFIELD_TOP = 48
CELL = 8
COLUMNS, ROWS = 10, 20
