"""The overlay: the playfield's screen position against the emulator's own picture, outlines
exactly on a placement's cells, the panel, the getting-ready banner, and GameWatch (which
frames show a plan, piece counts, the 999,999 moment)."""

import numpy as np
import pytest

from nesbot._core.pieces import ORIENTATION_CELLS
from nesbot.errors import NesbotError
from nesbot.nes import ram
from nesbot.nes.screen_layout import CELL, COLUMNS, PLAYFIELD_LEFT, PLAYFIELD_TOP, ROWS
from nesbot.show.overlay import (
    NEXT_PLAN_RGB,
    PANEL_WIDTH,
    PLAN_RGB,
    CapMoment,
    Figures,
    FrameInfo,
    Renderer,
    cell_box,
    check_scale,
    draw_banner,
    placement_cells,
)
from nesbot.show.watch import GameWatch


def board_cells(state: ram.GameState) -> set[tuple[int, int]]:
    return {(c, r) for r, mask in enumerate(state.board) for c in range(COLUMNS) if mask >> c & 1}


def cells_mask(cells) -> np.ndarray:
    """The playfield's pixels as the ROM draws these cells' blocks: each a 7x7 tile with a
    black column and row on its right and bottom."""
    mask = np.zeros((ROWS * CELL, COLUMNS * CELL), bool)
    for column, row in cells:
        if 0 <= row < ROWS:
            mask[row * CELL : row * CELL + 7, column * CELL : column * CELL + 7] = True
    return mask


def test_playfield_position_matches_the_emulator(emulator, new_game) -> None:
    """Every pixel of the playfield is the board RAM holds, drawn from PLAYFIELD_LEFT and
    PLAYFIELD_TOP, except where the falling piece is: the screen draws it where one of the
    last three frames left it (the sprite copy lags the logic by a frame or two)."""
    from nesbot.bot.policy import Bot

    new_game(19, seed=3)
    bot = Bot()
    checked = 0
    recent: list[set[tuple[int, int]]] = []
    for _ in range(400):
        emulator.step(bot(emulator.ram, emulator.frame))
        state = ram.decode(emulator.ram)
        piece = placement_cells((state.x, state.y, state.piece)) if state.active else set()
        recent = [*recent[-2:], piece]
        if state.vram_row != 0x20:  # the NMI is still copying changed rows to the screen
            continue
        playfield = emulator.screen[
            PLAYFIELD_TOP : PLAYFIELD_TOP + ROWS * CELL,
            PLAYFIELD_LEFT : PLAYFIELD_LEFT + COLUMNS * CELL,
        ].any(axis=2)
        near_piece = cells_mask(
            {(c, r + dr) for cells in recent for c, r in cells for dr in (-1, 0, 1)}
        )
        differ = playfield != cells_mask(board_cells(state))
        assert not (differ & ~near_piece).any()
        checked += 1
    assert checked > 300 and len(board_cells(ram.decode(emulator.ram))) > 20


@pytest.mark.parametrize("scale", [1, 2, 3])
@pytest.mark.parametrize("orientation", range(19))
def test_outline_lies_on_the_planned_cells(scale: int, orientation: int) -> None:
    renderer = Renderer(scale, panel=True)
    screen = np.zeros((240, 256, 3), np.uint8)
    plan = (4, 2, orientation)  # rows 0-3: every cell inside the playfield
    picture = renderer.render(screen, FrameInfo(Figures(0, 0, 19, 1, 0), plan=plan))
    nes = picture[:, : 256 * scale]
    marked = (nes == PLAN_RGB).all(axis=2)
    # Exactly the piece's outer edges, one NES pixel wide, inside its cells.
    expected = np.zeros((240, 256), bool)
    cells = placement_cells(plan)
    for column, row in cells:
        left, top, right, bottom = cell_box(column, row)
        expected[top : bottom + 1, left] |= (column - 1, row) not in cells
        expected[top : bottom + 1, right] |= (column + 1, row) not in cells
        expected[top, left : right + 1] |= (column, row - 1) not in cells
        expected[bottom, left : right + 1] |= (column, row + 1) not in cells
    expected = np.repeat(np.repeat(expected, scale, axis=0), scale, axis=1)
    assert (marked == expected).all()
    assert len(cells) == 4 and all(0 <= r < ROWS for _, r in cells)


def test_outline_hides_cells_above_the_playfield_and_draws_the_next_plan_lighter() -> None:
    renderer = Renderer(1, panel=True)
    screen = np.zeros((240, 256, 3), np.uint8)
    vertical_i = next(
        o for o, cells in enumerate(ORIENTATION_CELLS) if {dx for dx, _ in cells} == {0}
    )
    plan = (0, 0, vertical_i)  # two cells above row 0
    info = FrameInfo(Figures(0, 0, 19, 1, 0), plan=plan, next_plan=(9, 18, vertical_i))
    picture = renderer.render(screen, info)
    top = PLAYFIELD_TOP
    assert not picture[:top, PLAYFIELD_LEFT : PLAYFIELD_LEFT + CELL].any()  # nothing above
    assert (picture[top + CELL, PLAYFIELD_LEFT] == PLAN_RGB).all()
    grey = (picture[:, :256] == NEXT_PLAN_RGB).all(axis=2)
    columns = np.nonzero(grey.any(axis=0))[0]
    assert columns.min() == PLAYFIELD_LEFT + 9 * CELL and columns.max() == PLAYFIELD_LEFT + 79


def test_render_without_overlay_is_the_plain_upscale() -> None:
    rng = np.random.default_rng(1)
    screen = rng.integers(0, 256, (240, 256, 3), dtype=np.uint8)
    picture = Renderer(2).render(screen, FrameInfo(Figures(1, 2, 3, 4, 0), plan=(5, 5, 2)))
    assert (picture == np.repeat(np.repeat(screen, 2, axis=0), 2, axis=1)).all()


def test_panel_is_drawn_beside_the_screen_and_only_when_the_figures_change(monkeypatch) -> None:
    from nesbot.show import overlay

    renderer = Renderer(2, panel=True)
    assert (renderer.width, renderer.height) == ((256 + PANEL_WIDTH) * 2, 480)
    screen = np.zeros((240, 256, 3), np.uint8)
    drawn = []
    real = overlay.draw_panel
    monkeypatch.setattr(overlay, "draw_panel", lambda *a: (drawn.append(a[2]), real(*a)))
    figures = Figures(123_456, 78, 20, 200, 15, CapMoment(5000, 190, 27))
    first = renderer.render(screen, FrameInfo(figures)).copy()
    renderer.render(screen, FrameInfo(Figures(123_456, 78, 20, 200, 15, CapMoment(5000, 190, 27))))
    assert drawn == [figures]
    panel = first[:, 512:]
    assert panel.any() and not first[:, :512].any()
    other = renderer.render(screen, FrameInfo(Figures(0, 0, 19, 1, 0)))[:, 512:]
    assert len(drawn) == 2 and (other != panel).any()


def test_tetris_rate() -> None:
    assert Figures(0, 0, 19, 1, 0).tetris_rate is None
    assert Figures(0, 10, 19, 30, 2).tetris_rate == pytest.approx(0.8)


def test_banner_shows_progress() -> None:
    def bar_fill(done: float) -> int:
        picture = np.full((480, 512, 3), 200, np.uint8)
        draw_banner(picture, 2, ("getting ready", "step 1 of 2"), done)
        bar_row = picture[480 - 34 * 2 + 28 * 2]  # inside the bar
        return int((bar_row == (60, 188, 252)).all(axis=1).sum())

    assert bar_fill(0.0) == 0 < bar_fill(0.25) < bar_fill(0.5) < bar_fill(1.0) <= 512


@pytest.mark.parametrize("scale", [0, 9, -1, True, 2.0])
def test_bad_scale(scale: object) -> None:
    with pytest.raises(NesbotError, match="1 to 8"):
        check_scale(scale)


def fake_ram(active: bool) -> np.ndarray:
    memory = np.zeros(ram.RAM_SIZE, np.uint8)
    memory[ram.GAME_MODE] = ram.MODE_PLAY
    memory[ram.PLAY_STATE] = ram.PLAY_ACTIVE if active else 8
    memory[ram.LEVEL_NUMBER] = 19
    return memory


class FakePlans:
    planned_lock = (5, 18, 2)
    planned_next_lock = (3, 17, 0)


def test_watch_shows_a_plan_from_the_frame_the_piece_is_drawn() -> None:
    memory = fake_ram(active=True)
    watch = GameWatch(memory, FakePlans())
    assert watch.pieces == 1
    watch.observe(24_001)
    assert watch.info().plan == FakePlans.planned_lock
    memory[ram.PLAY_STATE] = 8  # locked: no plan, the piece is on the board
    watch.observe(24_002)
    assert watch.info().plan is None
    memory[ram.PLAY_STATE] = ram.PLAY_ACTIVE  # a new piece: the bot plans it before the next step
    watch.observe(24_003)
    assert watch.pieces == 2 and watch.info().plan is None
    watch.observe(24_004)
    info = watch.info()
    assert info.plan == FakePlans.planned_lock and info.next_plan == FakePlans.planned_next_lock


def test_watch_notes_when_the_score_first_reads_999999() -> None:
    memory = fake_ram(active=True)
    watch = GameWatch(memory)
    memory[ram.SCORE : ram.SCORE + 3] = (0x99, 0x99, 0x98)  # 989,999
    watch.observe(30_000)
    assert watch.cap is None
    memory[ram.SCORE : ram.SCORE + 3] = 0x99
    memory[ram.LINES : ram.LINES + 2] = (0x94, 0x01)  # 194
    memory[ram.LEVEL_NUMBER] = 27
    watch.observe(30_001)
    memory[ram.LEVEL_NUMBER] = 28
    watch.observe(30_002)
    assert watch.cap == CapMoment(30_001, 194, 27)
    figures = watch.figures
    assert (figures.score, figures.lines, figures.level, figures.cap) == (
        999_999,
        194,
        28,
        watch.cap,
    )
    assert watch.figures is figures  # unchanged figures: the same object, no new panel


def test_watch_binds_the_emulators_ram_on_its_first_step() -> None:
    class Emu:
        ram = fake_ram(active=False)
        frame = 7

    watch = GameWatch()
    watch(0, Emu())
    assert watch.pieces == 0 and watch.info().figures.level == 19
    Emu.ram[ram.PLAY_STATE] = ram.PLAY_ACTIVE
    watch(0, Emu())
    assert watch.pieces == 1
