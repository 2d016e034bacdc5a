"""Every picture nesbot shows or records is one NES frame as the PPU drew it.

nes-py's screen after a step is torn where the step ended (nesbot.show.frames), which shows on every
Tetris flash: the flash lasts one frame, so a torn picture is white on part of the border
only. Here a real-ROM game with Tetrises is recorded as `play` records it and decoded: no
picture may be torn, and each Tetris brings its five flash frames whole. Early in the
whole-frame window the tear is mid-picture; past step ~56,500, where the step boundary
straddles the NMI, near its top or bottom.
"""

from pathlib import Path

import av
import numpy as np
import pytest

from nesbot.bot.policy import Bot
from nesbot.nes import ram
from nesbot.show.frames import WholeFrames
from nesbot.show.video import VideoWriter
from nesbot.show.watch import GameWatch

BORDER_COLUMN = 4  # left of the playfield: the background, which a Tetris flash turns white
FLASH_ROWS = 208  # the rows of that column a whole flash whitens (the rest is the frame's)
FLASHES_PER_TETRIS = 5
WHITE = 200  # in each of R, G, B, and in the decoded luma (black is 16, white 235)


def flashed_rows(screen: np.ndarray) -> int:
    """Rows of the border column that are white in an RGB screen."""
    return int(np.sum(np.all(screen[:, BORDER_COLUMN] >= WHITE, axis=1)))


def luma_flashed_rows(frame: av.VideoFrame) -> int:
    """The same in a decoded picture's luma, which the lossless stream keeps exactly (its
    chroma is subsampled, which blurs the column's colour at the flash's ends)."""
    plane = frame.planes[0]
    luma = np.frombuffer(plane, np.uint8).reshape(-1, plane.line_size)
    return int(np.sum(luma[:240, BORDER_COLUMN] >= WHITE))


@pytest.mark.parametrize(
    ("start", "until"),
    # the late one shares the worker that reaches step 56,300 for the bot's test of it
    [(0, 29_000), pytest.param(56_300, 61_000, marks=pytest.mark.xdist_group("late_steps"))],
)
def test_no_decoded_frame_is_torn(emulator, new_game, tmp_path: Path, start, until) -> None:
    new_game(19, seed=11, not_before=start)
    bot = Bot()
    watch = GameWatch(emulator.ram, bot)
    whole = WholeFrames()
    path = tmp_path / "game.mp4"
    torn_screens = 0
    with VideoWriter(path, scale=1) as writer:
        whole(0, emulator)
        whole.consumers.append(writer)
        emulator.observers.extend([watch, whole])
        while emulator.frame < until:
            emulator.step(bot(emulator.ram, emulator.frame))
            torn_screens += 0 < flashed_rows(emulator.screen) < FLASH_ROWS
    emulator.observers.clear()
    tetrises = ram.bcd_value(int(emulator.ram[ram.LINE_CLEAR_STATS + 3]))
    assert bot.desyncs == 0 and tetrises >= 5
    assert torn_screens > 0  # nes-py's own screens are torn: the test can see it

    with av.open(str(path)) as container:
        rows = [luma_flashed_rows(frame) for frame in container.decode(video=0)]
    assert len(rows) == writer.frames_written
    # Torn: a flash that covers only part of the border. None is; each flash is whole.
    assert set(rows) == {0, FLASH_ROWS}
    assert rows.count(FLASH_ROWS) == FLASHES_PER_TETRIS * tetrises
