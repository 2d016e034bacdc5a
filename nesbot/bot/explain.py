"""`nesbot explain`: the evaluator's view of a board, and what the planner does on it.

The board file has 20 lines of 10 characters, top row first: '#' (or any letter) filled,
'.' empty; blank lines and lines starting with ';' are skipped. A board the game cannot show
is refused: a full row (the ROM clears it), or one that covers the piece's spawn place
(the game would be over).
"""

from nesbot._core.buttons import describe
from nesbot._core.features import ALL_FEATURE_NAMES, NES_FEATURE_NAMES, REACH_FEATURE_NAMES
from nesbot._core.game import Game, board_text
from nesbot._core.pieces import ORIENTATION_CELLS, PIECE_NAMES, SPAWN_TABLE
from nesbot._core.value_terms import all_features_py, evaluate_trace, format_trace
from nesbot.bot.planning import DEFAULT_SETTINGS, PlannerSettings, build_planner
from nesbot.errors import NesbotError
from nesbot.evaluation.evaluators import Evaluator
from nesbot.input_file import read_at_most


def read_board(path: str) -> list[int]:
    """The 20 row masks (bit c = column c) of a board file."""
    try:  # 20 rows of 10 cells and comments: a megabyte is far more than a board
        text = read_at_most(path, 1 << 20, "board").decode("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise NesbotError(f"cannot read board {path}: {error}") from None
    return parse_board(text, f"board {path}")


def parse_board(text: str, name: str = "the board") -> list[int]:
    """The 20 row masks of a board's text (the module's docstring says how it is written);
    `name` says which board in an error."""
    rows = [
        line.strip()
        for line in text.splitlines()
        if line.strip() and not line.lstrip().startswith(";")
    ]
    if len(rows) != 20:
        raise NesbotError(f"{name} has {len(rows)} rows, expected 20 (top row first)")
    masks = []
    for number, row in enumerate(rows, start=1):
        if len(row) != 10:
            raise NesbotError(f"{name} row {number} has {len(row)} cells, expected 10")
        masks.append(sum(1 << c for c, cell in enumerate(row) if cell != "."))
        if masks[-1] == FULL_ROW:
            raise NesbotError(f"{name} row {number} is full: the game clears a full row")
    return masks


FULL_ROW = (1 << 10) - 1
SPAWN_X = 5  # the column a piece spawns in, in row 0


def spawn_orientation(name: str) -> int:
    """The spawn orientation ID of a piece's letter (T, J, Z, O, S, L, I)."""
    if len(name) != 1 or name.upper() not in PIECE_NAMES:
        raise NesbotError(f"piece {name!r} is not one of {', '.join(PIECE_NAMES)}")
    return SPAWN_TABLE[PIECE_NAMES.index(name.upper())]


def _nes_features(rows: list[int], level: int, tap_interval: int) -> str:
    """The board's NES and piece-range features, shown whether or not the evaluator weighs
    them (burned lines belong to placements, not boards)."""
    values = dict(zip(ALL_FEATURE_NAMES, all_features_py(rows, level, tap_interval), strict=True))
    shown = [name for name in (*NES_FEATURE_NAMES, *REACH_FEATURE_NAMES) if name != "burned_lines"]
    return "NES features: " + ", ".join(f"{name} {values[name]:g}" for name in shown)


def explain(
    board_path: str,
    piece: str,
    next_piece: str,
    level: int,
    evaluator: Evaluator,
    settings: PlannerSettings = DEFAULT_SETTINGS,
) -> str:
    if not 0 <= level <= 255:
        raise NesbotError(f"--level {level}: the game's level is a byte, 0-255")
    rows = read_board(board_path)
    evaluator = evaluator.at_tap_hz(settings.tap_hz)  # the kill-screen set the bot plays
    at = {"level": level, "tap_interval": settings.tap_interval}
    lines = [
        "board:",
        board_text(rows),
        "",
        format_trace(evaluate_trace(rows, 0, 0, evaluator, **at)),
        _nes_features(rows, **at),
    ]
    spawned = spawn_orientation(piece)
    if any(rows[y] >> (SPAWN_X + x) & 1 for x, y in ORIENTATION_CELLS[spawned] if y >= 0):
        raise NesbotError(f"the board covers {piece.upper()}'s spawn place: the game is over")
    game = Game.spawned(rows, spawned, spawn_orientation(next_piece), level)
    planner = build_planner(evaluator, settings)
    chosen = planner.plan(game)
    if chosen is None:
        return "\n".join([*lines, "", f"{piece.upper()} has no placement on this board"])
    pads, x, y, orientation, _value = chosen
    after = game.copy()
    for pad in pads:
        after.step(pad)
    while after.play_state not in (1, 0x0A) and not after.topped_out:
        after.step(0)  # through the lock, line clears and the next spawn
    board_after = after.state()["rows"][2:]
    presses = " ".join(f"{i + 1}:{describe(p)}" for i, p in enumerate(pads) if p)
    lines += [
        "",
        f"{piece.upper()} (next {next_piece.upper()}) at level {level}: lock at "
        f"x={x} y={y} orientation ${orientation:02X} after {len(pads)} frames",
        f"buttons (frame:RLDUTSBA): {presses or 'none'}",
        *(
            ["every option breaks a calming rule: this is the least bad"]
            if planner.fallback_last
            else []
        ),
        "",
        "board after it:",
        board_text(board_after),
        "",
        format_trace(evaluate_trace(board_after, 0, 0, evaluator, **at)),
        _nes_features(board_after, **at),
    ]
    return "\n".join(lines)
