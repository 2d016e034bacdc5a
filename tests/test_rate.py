"""`nesbot rate`: positions and placements read from a replayed log, the player's speed, the
paired playouts, grades, and the whole command on a game the bot recorded."""

import csv
import io
import json
import math
import re
import warnings
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest
from public_data import public_folder

import nesbot
from nesbot._core.buttons import DOWN, LEFT, RIGHT, A
from nesbot._core.game import Game
from nesbot._core.whole_games import play
from nesbot.bot.planning import PlannerSettings, build_planner
from nesbot.bot.policy import Bot
from nesbot.bot.session import play_game
from nesbot.cli import main
from nesbot.errors import NesbotWarning
from nesbot.evaluation.evaluators import get_evaluator
from nesbot.nes import ram
from nesbot.nes.fm2 import Fm2Writer, fceux_rom_md5, read_fm2
from nesbot.nes.menus import GameSetup, reach_level_menu, start_game
from nesbot.nes.polls import FrameRecorder
from nesbot.rating import report
from nesbot.rating.game import rate_pieces
from nesbot.rating.grades import GRADES, accuracy, grade
from nesbot.rating.intent import Intent, read_intent
from nesbot.rating.marks import LEGEND, RatingWatch
from nesbot.rating.playouts import compare_places, playout_points
from nesbot.rating.positions import (
    LoggedPiece,
    Position,
    _shows_spawn,
    logged_pieces,
    placement_between,
)
from nesbot.rating.rater import (
    Rater,
    RatingSettings,
    describe_place,
    plain_reasons,
    worse_factors,
)
from nesbot.rating.speed import measure_speed, miss_chance
from nesbot.show.overlay import Renderer
from nesbot.show.video import probe_video

WELL = [0] * 16 + [0b1111111110] * 4  # four rows full but column 0
EVALUATOR = get_evaluator("nesbot-trained")


def _position(rows=WELL, piece="I", next_piece="T", level=18, lines=0) -> Position:
    return Position.of(rows, piece, next_piece, level, lines)


# --- the simulator's lock and the line horizon ---------------------------------------------


def test_lock_at_clears_and_scores_by_the_rom_rules():
    position = _position()
    game = position.after((0, 18, 0x11))  # the vertical I into the well: a Tetris
    state = game.state()
    assert state["rows"][2:] == [0] * 20
    assert ram.bcd_value(*state["lines"]) == 4
    assert ram.bcd_value(*state["score"]) == 1200 * 19
    assert game.active and state["orientation"] == 0x02  # the T spawned
    with pytest.raises(nesbot.NesbotError, match="cannot lock"):
        position.after((0, 10, 0x11))  # in the air


def test_resting_places_are_the_places_a_lock_can_leave():
    game = _position().game()
    places = game.resting_places()
    assert (0, 18, 0x11) in places and (5, 14, 0x11) in places
    assert all(p[2] in (0x11, 0x12) for p in places)  # the I's two orientations only
    assert (0, 17, 0x11) not in places  # it would fall further


def test_line_levels_follow_the_level_up_rule():
    later = [level for level in range(20, 29) for _line in range(10)]
    # 130 lines to level 19, then 10 a level: 230 in all, the last one reaching 29
    assert Game.start(18, 0x8988).line_levels(29) == [18] * 129 + [19] * 10 + later + [29]
    assert len(Game.start(19, 0x8988).line_levels(29)) == 230
    assert Game.start(29, 0x8988).line_levels(29) == []


def test_play_stops_on_the_first_frame_of_the_piece_after_max_pieces():
    planner = build_planner(EVALUATOR, PlannerSettings(lookahead=0))
    game = Game.start(18, 0x8988)
    result = play(planner, game, max_pieces=5, pieces_seed=1)
    assert result["pieces"] == 5 and game.active
    assert (
        sum(ram.bcd_value(*game.state()["piece_stats"][2 * t : 2 * t + 2]) for t in range(7)) == 6
    )


# --- positions ------------------------------------------------------------------------------


def test_position_of_reads_a_board_text_and_letters():
    text = "\n".join(["." * 10] * 19 + ["#########."])
    position = Position.of(text, "t", "I", 19, lines=12, score=3400)
    assert position.rows[-1] == 0b0111111111 and position.piece == 0x02 and position.next == 0x12
    state = position.game().state()
    assert ram.bcd_value(*state["lines"]) == 12 and ram.bcd_value(*state["score"]) == 3400
    for bad in ("X", "TT"):
        with pytest.raises(nesbot.NesbotError, match="not one of"):
            Position.of(text, bad, "I", 19)
    with pytest.raises(nesbot.NesbotError, match="expected 20"):
        Position.of("#" * 10, "T", "I", 19)


def test_placement_between_finds_the_one_lock_and_rejects_others():
    position = _position()
    after = position.after((0, 18, 0x11))
    rows, lines = tuple(after.state()["rows"][2:]), 4
    assert placement_between(position, rows, lines) == (0, 18, 0x11)
    assert placement_between(position, rows, lines, hint=(9, 14, 0x11)) == (0, 18, 0x11)
    assert placement_between(position, rows, 3) is None  # not what that lock leaves
    assert placement_between(position, tuple(WELL), 0) is None  # no lock leaves it as it was


# --- the player's speed ---------------------------------------------------------------------


def test_speed_is_the_fastest_repeated_press_and_the_habits_shown():
    taps = bytes([0, 0, LEFT, 0, 0, LEFT, 0, 0, LEFT, 0])  # every 3 frames: 20 Hz
    held = bytes([RIGHT] * 20 + [0])  # a direction held until it repeats: DAS
    dropped = bytes([0, 0, 0, 0, A, 0, DOWN, DOWN])
    speed = measure_speed([taps, held, dropped])
    assert speed.tap_interval == 3 and speed.tap_hz == 20
    assert speed.das and speed.soft_drop
    assert speed.first_input_median == 2 and speed.pieces == 3
    assert "20 Hz" in speed.describe()
    slow = measure_speed([bytes([0, A, 0, 0, 0, 0, 0, 0, 0, A])])  # every 8 frames
    assert slow.tap_hz == 10 and not slow.das and not slow.soft_drop
    assert measure_speed([b"\x00" * 5]).tap_hz == 30  # never tapped twice: the fastest


def test_precision_is_the_spread_of_the_intervals_within_runs_of_taps():
    def taps(*frames: int) -> bytes:
        pads = bytearray(max(frames) + 2)
        for frame in frames:
            pads[frame] = LEFT
        return bytes(pads)

    steady = measure_speed([taps(0, 4, 8, 12, 16)])  # a run every 4 frames, exactly
    assert steady.timing_sd == 0 and miss_chance(1, steady.timing_sd) == 0
    # Intervals 3, 5, 3, 5 about their mean 4: variance 4/3 per interval, 2/3 per press.
    shaky = measure_speed([taps(0, 3, 8, 11, 16)])
    assert shaky.timing_sd == pytest.approx(math.sqrt(2 / 3))
    assert "timing spread 0.82" in shaky.describe()
    # Taps more than RUN_GAP frames apart start a new run; two taps are no run.
    assert measure_speed([taps(0, 30)]).timing_sd is None
    assert miss_chance(3, None) is None
    # A window of s frames aimed at its middle: missed when the error passes s / 2.
    assert miss_chance(2, 1.0) == pytest.approx(1 - math.erf(1 / math.sqrt(2)))
    assert miss_chance(1, 1.0) > miss_chance(2, 1.0) > miss_chance(8, 1.0)


# --- misdrops ----------------------------------------------------------------------------------


def _frames_to_lock(position: Position, pads: bytes = b"") -> tuple[int, tuple]:
    game, frame = position.game(), 0
    while game.active:
        game.step(pads[frame] if frame < len(pads) else 0)
        frame += 1
    return frame, game.position


def test_a_press_just_after_the_lock_is_a_misdrop():
    position = Position.of([0] * 20, "T", "I", 18)
    frames, place = _frames_to_lock(position)
    assert place == (5, 18, 0x02)
    intent = read_intent(position, bytes(frames), bytes([0, RIGHT, 0]), place)
    assert intent.misdrop and intent.heading == (6, 18, 0x02)
    assert intent.missed == (frames + 1, "Right") and intent.slack >= 1


def test_a_shift_blocked_by_the_stack_is_a_misdrop_with_its_slack():
    position = Position.of([0] * 14 + [1 << 7] * 6, "T", "I", 18)  # column 7, six high
    for frame in range(30, 57):  # the first frame a Right press is blocked by column 7
        pads = bytearray(80)
        pads[frame] = RIGHT
        length, place = _frames_to_lock(position, pads)
        if place[0] == 5:
            break
    intent = read_intent(position, bytes(pads[:length]), b"", place)
    assert intent.misdrop and intent.heading == (6, 13, 0x02)  # on top of column 7
    assert intent.missed == (frame, "Right") and intent.slack >= 1


def test_taps_against_the_wall_and_the_bots_moves_are_no_misdrops(bot_pieces):
    position = Position.of([0] * 20, "T", "I", 18)
    pads = bytes([LEFT, 0] * 6)  # six taps: four move the T to the wall, two press on it
    frames, place = _frames_to_lock(position, pads)
    assert place == (1, 18, 0x02)
    intent = read_intent(position, pads + bytes(frames - len(pads)), b"", place)
    assert intent == Intent(place, False)
    assert read_intent(position, b"", b"", (5, 18, 0x02)) is None  # no lock: nothing said
    for piece in bot_pieces[:-1]:  # each read as the game read it: along its path in RAM
        intent = read_intent(
            piece.position, piece.pads, piece.late, piece.place, piece.lead, piece.path
        )
        assert intent == Intent(piece.place, False)


def test_buttons_the_game_read_a_step_late_are_read_so():
    """Where nes-py's step ends between the poll and the logic, each frame acts on the step
    before's buttons: the path in RAM tells which reading the game made."""
    position = Position.of([0] * 20, "T", "I", 18)
    pads = bytes([0, RIGHT, 0, RIGHT] + [0] * 60)
    lead = bytes([0, RIGHT])  # a Right on the spawn's step, read on the first frame
    late_start = replace(position, held=lead[0])
    game, trail = late_start.game(), []
    for pad in bytes(lead[1:]) + pads:
        game.step(pad)
        trail.append(game.position)
        if not game.active:
            break
    place = game.position
    assert place == (8, 18, 0x02)  # three steps right: the spawn step's Right counted
    steps = len(trail)
    intent = read_intent(position, pads[:steps], b"", place, lead, tuple(trail))
    assert intent == Intent(place, False)
    assert read_intent(position, pads[:steps], b"", place, b"", tuple(trail)) is None


def test_a_tuck_has_its_window_and_where_a_late_press_locks():
    """A T slid left under an overhang from column 8: the Left works once the T is below
    the overhang and before it locks (3 frames at level 18); a frame after, it stays."""
    position = Position.of([0] * 17 + [0b0001111111, 0, 0], "T", "I", 18)
    pads = bytearray([RIGHT, 0, RIGHT, 0, RIGHT, 0] + [0] * 80)
    game, frame = position.game(), 0
    while game.position[1] < 18:  # down to the floor, beside the overhang
        game.step(pads[frame])
        frame += 1
    pads[frame] = LEFT
    frames, place = _frames_to_lock(position, bytes(pads))
    assert place == (7, 18, 0x02)  # under the overhang
    intent = read_intent(position, bytes(pads[:frames]), bytes(3), place)
    assert intent == Intent(place, False, slack=3, miss=(8, 18, 0x02))
    rater = Rater(RatingSettings(EVALUATOR, playouts=4, horizon=6, timing_sd=1.0))
    logged = LoggedPiece(1, 0, position, place, bytes(pads[:frames]), late=bytes(3))
    rating = rater.rate(position, place, 1, logged)
    assert rating.timed_miss == (8, 18, 0x02) and rating.slack == 3 and rating.heading is None
    assert rating.miss_chance == miss_chance(3, 1.0) and rating.risk_points >= 0
    assert rating.to_json()["timed_miss"]["text"] == "cols 7-9 $02"


def test_a_misdrop_is_graded_by_where_the_player_was_heading():
    rater = Rater(RatingSettings(EVALUATOR, playouts=4, horizon=6))
    position = _position(piece="O")
    frames, place = _frames_to_lock(position, bytes([RIGHT, 0] * 4))  # toward the right wall
    assert place == (9, 14, 0x0A)  # the best place, beside the well
    pads = bytes([RIGHT, 0] * 4) + bytes(frames - 8)
    rating = rater.rate(position, place, 1, LoggedPiece(1, 0, position, place, pads))
    assert rating.grade == "best" and rating.heading is None
    still = bytes(frames)  # no input: the O stays at columns 4-5; a Right came too late
    logged = LoggedPiece(1, 0, position, (5, 14, 0x0A), still, late=bytes([RIGHT]))
    rating = rater.rate(position, (5, 14, 0x0A), 1, logged)
    assert rating.heading == (6, 14, 0x0A) and rating.slack >= 1
    assert rating.misdrop_points is not None and rating.grade != "best"
    assert rating.miss_chance is None and rating.misdrop_expected_points is None  # unmeasured
    shaky = Rater(RatingSettings(EVALUATOR, playouts=4, horizon=6, timing_sd=1.5))
    weighed = shaky.rate(position, (5, 14, 0x0A), 1, logged)
    assert weighed.miss_chance == miss_chance(weighed.slack, 1.5)
    assert weighed.misdrop_expected_points == pytest.approx(
        weighed.miss_chance * weighed.misdrop_points
    )
    assert weighed.to_json()["miss_chance"] == round(weighed.miss_chance, 4)


# --- playouts and grades ----------------------------------------------------------------------


def test_playouts_are_paired_and_repeatable():
    planner = build_planner(EVALUATOR, PlannerSettings(lookahead=0))
    position = _position()
    first = playout_points(planner, position, (0, 18, 0x11), seed=7, horizon=6)
    assert first == playout_points(planner, position, (0, 18, 0x11), seed=7, horizon=6)
    assert first >= 1200 * 19  # the Tetris itself, then the rest
    covered = _position(piece="O")  # the O over the well, or beside it
    comparison = compare_places(planner, covered, (1, 14, 0x0A), (9, 14, 0x0A), [1, 2, 3, 4], 6)
    assert comparison.gap < -5_000  # covering the well forgoes the Tetris for a while
    assert comparison.playouts == 4 and comparison.gap_se >= 0


def test_grades_follow_the_cut_offs_scaled_by_level():
    assert grade(None, 18) == "best"
    assert [grade(points, 18) for points in (0, 1_499, 1_500, 4_999, 14_999, 15_000)] == [
        "good",
        "good",
        "inaccuracy",
        "inaccuracy",
        "mistake",
        "blunder",
    ]
    assert grade(100, 0) == "inaccuracy"  # a line is worth 19 times less at level 0
    assert grade(1_499, 0) == "blunder"
    # worth 30/19 as much at 29, and levels past it rate as 29
    assert grade(20_000, 29) == grade(20_000, 39) == "mistake" != grade(20_000, 18)
    assert GRADES[0] == "best" and GRADES[-1] == "blunder"


def test_accuracy_weighs_what_placements_lost_against_an_all_tetris_game():
    # an all-Tetris game scores 2,400 a placement at level 19 (24,000 a Tetris, 10 pieces)
    assert accuracy([(None, 19)] * 10) == 1.0
    assert accuracy([(None, 19), (1_200, 19)]) == pytest.approx(0.75)
    # nine best and one that costs a Tetris: 90% graded best, a game that kept less
    assert accuracy([(None, 19)] * 9 + [(24_000, 19)]) == 0.0
    assert accuracy([(240, 0)]) == accuracy([(4_800, 19)]) == 0.0  # scaled by level
    assert accuracy([(120, 0), (None, 0)]) == pytest.approx(0.5)
    assert accuracy([(1_500, 39)]) == accuracy([(1_500, 29)])  # past 29 rated as 29
    assert accuracy([]) is None


def test_a_rated_placement_against_the_best():
    rater = Rater(RatingSettings(EVALUATOR, playouts=4, horizon=6))
    position = _position()
    best = rater.rate(position, (0, 18, 0x11))
    assert best.grade == "best" and best.points_lost is None and best.factors == ()
    assert best.best == (0, 18, 0x11) and best.found
    worse = rater.rate(_position(piece="O"), (1, 14, 0x0A))  # over the well
    assert worse.best == (9, 14, 0x0A) and worse.grade in ("mistake", "blunder")
    assert worse.points_lost > 5_000 and not math.isnan(worse.points_lost_se)
    assert worse.factors[0].startswith("total_weighted_column_holes")
    assert worse.reasons[0] == "made a hole low in the stack"  # the feature table's words
    assert worse.to_json()["reasons"] == list(worse.reasons)
    assert describe_place(worse.player) == "cols 0-1 $0A"
    with pytest.raises(nesbot.NesbotError, match="cannot rest"):
        rater.rate(position, (5, 10, 0x11))


def test_a_piece_spawned_over_the_stack_is_rated_against_no_top_out():
    """The ROM lets a piece spawn over the stack (here the Z over column 4) and move off it;
    a lock where it spawned is the game's end, no place to play out. A hidamari game on
    the ROM had this position: the player slid the Z right and lived."""
    rows = (16, 24, 52, 1020, 1022, 487, 1022, 503, 1006, 447, 894, 991, 1017, 759, 1022)
    rows += (511, 1021, 893, 511, 767)
    position = Position(rows, 0x08, 0x02, 19, 63, 51900)
    assert (5, 0, 0x08) not in position.game().resting_places()
    rating = Rater(RatingSettings(EVALUATOR, playouts=2, horizon=2)).rate(position, (6, 1, 0x08))
    assert rating.best in (None, (6, 1, 0x08)) and rating.points_lost is None


def test_api_rates_a_position():
    rating = nesbot.rate(_position(), (0, 18, 0x11), playouts=2, horizon=2)
    assert isinstance(rating, nesbot.PieceRating) and rating.grade == "best"
    with pytest.raises(nesbot.NesbotError, match="needs the placement"):
        nesbot.rate(_position())
    with pytest.raises(nesbot.NesbotError, match=r"\.fm2 input logs, videos"):
        nesbot.rate("game.txt")
    with pytest.raises(nesbot.NesbotError, match=r"cannot read video game\.mp4: no such file"):
        nesbot.rate("game.mp4")


@pytest.mark.parametrize(
    ("game", "arguments", "message"),
    [
        (None, {}, "game None: a path"),
        (5, {}, "game 5: a path"),
        ("g.fm2", {"playouts": "8"}, "playouts '8': a whole number is needed"),
        ("g.fm2", {"seed": -1}, "--seed -1 is negative"),
        ("g.fm2", {"settings": "fast"}, "a nesbot.PlannerSettings is needed"),
        ("g.fm2", {"crop": "0,0,1,1"}, "four numbers"),
        ("g.fm2", {"crop": (0, 0, 256, 224)}, "an .fm2 log has none"),
        ("g.fm2", {"place": (1, 2, 3)}, "place is a Position's placement"),
    ],
)
def test_api_refuses_what_the_command_line_would(game, arguments, message, rom_path, tmp_path):
    """Each a NesbotError, before any work: no TypeError from deep inside, and nothing the
    game given would silently ignore."""
    log = tmp_path / "g.fm2"
    log.write_text("version 3\n")
    if game == "g.fm2":
        game = log
    with pytest.raises(nesbot.NesbotError, match=re.escape(message)):
        nesbot.rate(game, rom=rom_path, **arguments)


# --- a whole game from its log, on the ROM ------------------------------------------------

GAME_FRAMES = 1_800


@pytest.fixture(scope="session")
def bot_game(rom, emulator, tmp_path_factory):
    """A level-18 game the bot played at 20 Hz (so its speed shows), as an .fm2 log from
    power-on with the menus passed as soon as they allow, as a person's log is: the game
    is in the steps where nes-py's step boundary lies before or inside the game logic."""
    path = tmp_path_factory.mktemp("rate") / "bot.fm2"
    settings = PlannerSettings(tap_hz=20)
    bot = Bot(EVALUATOR, settings)
    with Fm2Writer(path, fceux_rom_md5(rom.data), [("seed", "2")]) as log:
        result = _play_from_power_on(emulator, rom, bot, log, GAME_FRAMES)
    return path, result.pieces, settings


def _play_from_power_on(emulator, rom, bot, log, frames, start_after=0):
    """The bot's level-18 game, logged from power-on; it starts as soon as the menus allow
    after `start_after` steps (the bot warns that it plays outside the aligned steps)."""
    emulator.power_on()
    recorder = FrameRecorder(log)
    emulator.observers[:] = [recorder]
    setup = GameSetup(level=18, seed=2)
    reach_level_menu(emulator, align=False)
    while emulator.frame < start_after:
        emulator.step(0)
    start_game(emulator, setup, align=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NesbotWarning)
        result = play_game(emulator, setup, rom, policy=bot, max_frames=frames)
    recorder.close()
    emulator.observers.clear()
    return result


def test_pieces_are_read_where_steps_end_inside_the_game_logic(rom, emulator, tmp_path):
    """Around step 11,000 nes-py's step ends inside the game logic: RAM can show a piece
    active before its place is copied back, and its places a step late or part-updated.
    Every piece is still read at its spawn and its buttons still play it where it locked."""
    path = tmp_path / "mid.fm2"
    with Fm2Writer(path, fceux_rom_md5(rom.data)) as log:
        result = _play_from_power_on(
            emulator, rom, Bot(EVALUATOR), log, frames=1_500, start_after=10_600
        )
    shown_early = []

    def spawn_shown_early(_pad, emu):  # active, while the place is still the last piece's
        memory = emu.ram
        if ram.piece_active(memory) and not _shows_spawn(memory):
            shown_early.append(emu.frame)

    pieces = list(logged_pieces(rom, read_fm2(path), (spawn_shown_early,)))
    assert len(pieces) == result.pieces and shown_early
    for piece in pieces[:-1]:
        assert piece.place is not None
        intent = read_intent(
            piece.position, piece.pads, piece.late, piece.place, piece.lead, piece.path
        )
        assert intent == Intent(piece.place, False)


@pytest.fixture(scope="session")
def bot_pieces(rom, bot_game):
    """The bot's game as nesbot rate reads it from the log."""
    return list(logged_pieces(rom, read_fm2(bot_game[0])))


QUICK = {"playouts": 2, "horizon": 4}


@pytest.fixture(scope="session")
def bot_rating(bot_game, bot_pieces):
    return rate_pieces(bot_pieces, RatingSettings(EVALUATOR, bot_game[2], **QUICK))


def test_rating_the_bots_own_game_grades_its_placements_best(bot_game, bot_rating):
    _path, pieces, _settings = bot_game
    rating = bot_rating
    assert rating.pieces == pieces and rating.start_level == 18
    assert rating.speed.tap_hz == 20 and rating.speed.soft_drop and not rating.speed.das
    assert rating.unrated == [pieces]  # the piece the log ends on has not locked
    assert len(rating.ratings) == pieces - 1
    assert all(r.found for r in rating.ratings)  # every placement at the measured speed
    best = sum(r.grade == "best" for r in rating.ratings)
    assert best >= 0.95 * len(rating.ratings)
    summary = rating.summary()
    assert summary["game"]["placements"] == pieces - 1
    assert list(summary["stages"]) == ["before the transition"]


def test_rating_is_the_same_on_more_workers(bot_game, bot_pieces, bot_rating):
    settings = RatingSettings(EVALUATOR, bot_game[2], **QUICK)
    assert rate_pieces(bot_pieces, settings, workers=2).ratings == bot_rating.ratings


def test_reports_show_every_placement(bot_rating):
    table = report.table(bot_rating)
    assert "points lost" in table and "whole game" in table and "accuracy" in table
    assert len(table.splitlines()) > len(bot_rating.ratings)
    out = json.loads(report.to_json(bot_rating))
    assert len(out["placements"]) == len(bot_rating.ratings)
    assert set(out["placements"][0]["player"]) == {"x", "y", "orientation", "text"}
    rows = list(csv.DictReader(io.StringIO(report.to_csv(bot_rating))))
    assert len(rows) == len(bot_rating.ratings) and rows[0]["grade"] in GRADES

    # Why a placement lost points is said in words everywhere (a phrase two terms share
    # once); the raw terms stay in JSON. The bot's own placements lose none: one made up.
    factors = ("stack_holes 1 vs 0", "burns_needed 2 vs 0", "total_column_holes 1 vs 0")
    lost = replace(
        bot_rating.ratings[0], factors=factors, grade="mistake", points_lost=6e3, points_lost_se=9.0
    )
    game = replace(bot_rating, ratings=[lost])
    assert lost.reasons == ("made a hole", "a row only a burn can clear")
    (row,) = csv.DictReader(io.StringIO(report.to_csv(game)))
    assert row["reasons"] == "made a hole; a row only a burn can clear" and "factors" not in row
    assert row["reasons"] in report.table(game)
    (placed,) = json.loads(report.to_json(game))["placements"]
    assert placed["reasons"] == list(lost.reasons) and placed["factors"] == list(factors)
    assert placed["board"] == [
        f"{row:010b}"[::-1].replace("0", ".").replace("1", "#") for row in lost.board
    ]


def test_rate_command_rates_the_log_and_films_the_game(bot_game, bot_rating, capsys, tmp_path):
    video = tmp_path / "rated.mp4"
    args = ["rate", str(bot_game[0]), "--playouts", "2", "--horizon", "4"]
    args += ["--evaluator", EVALUATOR.name]  # the fixtures' evaluator
    assert main([*args, "--json", "--video", str(video), "--scale", "1"]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(report.to_json(bot_rating))
    facts = probe_video(video)
    assert (facts.width, facts.height) == (256 + 128, 240)  # the game and the panel
    assert abs(facts.frames - GAME_FRAMES) <= 2  # the game alone, from its first piece


def test_the_video_overlay_shows_the_rating_of_the_piece_on_screen(bot_rating):
    watch = RatingWatch(bot_rating.ratings)
    memory = np.zeros(0x800, np.uint8)
    memory[ram.GAME_MODE], memory[ram.PLAY_STATE] = ram.MODE_PLAY, ram.PLAY_ACTIVE
    emulator = SimpleNamespace(ram=memory, frame=0)
    watch(0, emulator)  # the first piece's first frame: the screen shows it a frame later
    watch(0, emulator)
    first = bot_rating.ratings[0]
    info = watch.info()
    assert (info.plan, info.next_plan) == (first.best, first.player)
    assert info.figures.legend == LEGEND and info.figures.note[0] == f"#1 {first.grade.upper()}"
    plain = Renderer(1, panel=True).render(np.zeros((240, 256, 3), np.uint8), info).copy()
    bare = replace(info, figures=replace(info.figures, note=()))
    assert (Renderer(1, panel=True).render(np.zeros((240, 256, 3), np.uint8), bare) != plain).any()


def test_rate_command_says_when_a_log_has_no_game(rom, tmp_path, capsys):
    path = tmp_path / "menus.fm2"
    with Fm2Writer(path, fceux_rom_md5(rom.data)) as log:
        for _ in range(200):
            log.write_frame(0)
    assert main(["rate", str(path)]) == 2
    assert "no game to rate" in capsys.readouterr().err
    assert main(["rate", str(path), "--playouts", "1"]) == 2
    assert "--playouts 1 is outside 2-1000" in capsys.readouterr().err


def test_rate_command_rejects_what_it_cannot_read(tmp_path, capsys):
    assert main(["rate", str(tmp_path / "game.txt")]) == 2
    assert "reads .fm2 input logs and videos" in capsys.readouterr().err
    assert main(["rate", str(tmp_path / "game.mp4")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["rate", str(tmp_path / "missing.fm2")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("nesbot: error:") and err.count("\n") == 1


def test_a_blunder_is_played_out_again_by_the_bot_as_it_plays():
    """On this 16-row level-19 stack the playouts' cheap bot (plain paths, no lookahead)
    tops out after the J locks high in the middle, where the bot as it plays lives on (the
    player, nguyen-morua's bot, did too). The cheap figure alone would call it a lost game."""
    board = "\n".join(
        ["." * 10] * 4
        + ["...##.....", "...###....", "..#####...", ".######...", ".#######.."]
        + [".#######.."] * 5
        + ["#########."] * 6
    )
    position = Position.of(board, "J", "O", 19, lines=54)
    rater = Rater(RatingSettings(get_evaluator("nesbot-trained")))
    player = (4, 3, 0x07)
    rating = rater.rate(position, player, 1)
    assert rating.best is not None and rating.best != player
    cheap = compare_places(
        rater.playout_planner, position, player, rating.best, rater.playout_seeds(1), 16
    )
    assert -cheap.gap > 500_000 and rating.points_lost < 0.5 * -cheap.gap


def test_reasons_say_only_what_the_board_shows():
    """A term's words are said when its value went their way; a weight of the uncommon
    sign (nesbot-trained weighs a lower stack worse) leaves its term unsaid."""
    assert plain_reasons(("total_column_heights 12 vs 10",)) == ("a higher stack",)
    assert plain_reasons(("total_column_heights 10 vs 12",)) == ()
    assert plain_reasons(("surface_value 3 vs 5",)) == ("a surface fewer pieces fit",)
    assert plain_reasons(("surface_value 5 vs 3", "stack_holes 1 vs 0")) == ("made a hole",)


def test_worse_factors_weigh_as_the_planner_of_the_settings_does():
    """A placement's factors are the evaluator's terms at the rated tap rate: its
    kill-screen set there (kill_screen_by_tap_hz) and its piece ranges."""
    safe = get_evaluator("nesbot-rightwell-safe")
    evaluator = replace(
        safe,
        kill_screen={"high_stack": 10.0, "safe_stack_height": 3.0},
        kill_screen_by_tap_hz={20: {}},  # 20 Hz and slower: the safe weights throughout
    )
    position = Position([0] * 12 + [0x1FF] * 8, 0x12, 0x02, 29)
    on_the_stack, in_the_well = (0, 10, 0x11), (9, 18, 0x11)  # vertical I's

    def factors(tap_hz: int) -> tuple:
        settings = PlannerSettings(tap_hz=tap_hz)
        return worse_factors(position, on_the_stack, in_the_well, evaluator, settings)

    assert "high_stack" in {factor.split()[0] for factor in factors(30)}
    assert "high_stack" not in {factor.split()[0] for factor in factors(15)}
    assert factors(15) == worse_factors(
        position, on_the_stack, in_the_well, safe, PlannerSettings(tap_hz=15)
    )


def test_a_b_type_game_is_refused_in_one_line(rom_path, capsys):
    """TASVideos' B-TYPE clear (../shared/movies): nesbot rates A-TYPE games alone."""
    movie = public_folder("movies") / "b_type_clear" / "tasvideos_4210m_converted.fm2"
    args = ["rate", str(movie), "--rom", str(rom_path), "--go-on", "--playouts", "2"]
    assert main(args) == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert error == "nesbot: error: the game is B-TYPE: nesbot rates A-TYPE games"
