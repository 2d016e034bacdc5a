"""Whole simulated games (nesbot._core.whole_games.play) and `nesbot simulate`."""

import dataclasses
import json
import os

import cv2
import pytest
from test_cli import _assert_one_line_error, nesbot
from test_train import local_ray  # noqa: F401 (the session's one local Ray instance)

from nesbot._core.game import Game
from nesbot._core.planner import Planner
from nesbot._core.whole_games import nes_rng, play
from nesbot.bot.explain import explain
from nesbot.bot.planning import PlannerSettings, build_planner
from nesbot.bot.policy import Bot
from nesbot.bot.simulated_ram import run_policy
from nesbot.errors import NesbotError
from nesbot.evaluation.evaluators import DEFAULT_EVALUATOR, EVALUATORS, Evaluator
from nesbot.lab.game_runs import (
    GameSpec,
    game_setup,
    play_one,
    ray_runner,
    run_identity,
    simulate,
)
from nesbot.lab.statistics import Summary, summarize

SUMMARY_KEYS = [
    "games",
    "maxout_rate",
    "pre29_score_mean",
    "pre29_score_median",
    "pre29_score_p10",
    "pre29_score_p90",
    "reach29_rate",
    "lines_mean",
    "tetris_rate",
    "post29_lines_median",
    "pieces_per_s",
    "fallbacks",
    "truncated",
    "maxout_rate_se",
    "reach29_rate_se",
    "pre29_score_mean_se",
    "pre29_line_score_mean",
    "pre29_line_score_mean_se",
    "stop_level",
    "reach39_rate",
    "reach39_rate_se",
    "score39_mean",
    "score39_mean_se",
    "score39_line_mean",
    "score39_line_mean_se",
    "final_score_mean",
    "final_score_mean_se",
]
MEATFIGHTER = EVALUATORS["meatfighter-2018"]


@pytest.mark.parametrize(
    "settings",
    [
        PlannerSettings(lookahead=0),
        PlannerSettings(lookahead=1),
        PlannerSettings(lookahead=2),
        PlannerSettings(reaction=18, lookahead=1),
        PlannerSettings(reaction=18),
        PlannerSettings(reaction=18, hedge=False),
        PlannerSettings(reaction=18, premove=2),
    ],
    ids=[
        "two-piece",
        "lookahead",
        "lookahead-2",
        "reaction-18-lookahead-1",
        "reaction-18",
        "reaction-18-no-hedge",
        "premove-2",
    ],
)
def test_the_bot_on_ram_decides_as_simulated_games_do(settings):
    """The bot reading RAM (as on the ROM) and the C loop of simulated games make the same
    decisions and reach the same game, frame for frame: simulated figures carry over."""
    evaluator = EVALUATORS["nesbot-trained"]
    start = Game.start(19, nes_rng(4321), 9, 1234)
    simulated = start.copy()
    result = play(
        build_planner(evaluator, settings), simulated, max_frames=3000, reaction=settings.reaction
    )
    bot = Bot(evaluator, settings)
    on_ram = start.copy()
    frames = run_policy(bot, on_ram, 3000)
    assert frames == result["frames"] == 3000
    assert on_ram.state() == simulated.state()
    assert bot.desyncs == 0
    assert len(bot.plan_seconds) >= result["pieces"] > 60


def test_points_before_29_equal_the_score_below_the_cap():
    rng, spawn_count, frame_counter = game_setup(5, 0)
    result = play(
        Planner(MEATFIGHTER), Game.start(19, rng, spawn_count, frame_counter), max_frames=12_000
    )
    assert 0 < result["score"] < 999_999
    assert result["pre29_points"] == result["score"]
    assert result["lines_at_29"] is None and not result["maxout"]


def test_line_clear_points_leave_out_only_the_soft_drop_points():
    """BetaTetris's count: the same clears, each worth its table points times the level
    after it, and nothing for soft drops (the bot holds Down at the end of every path)."""
    rng, spawn_count, frame_counter = game_setup(5, 0)
    result = play(
        Planner(MEATFIGHTER), Game.start(19, rng, spawn_count, frame_counter), max_frames=12_000
    )
    soft_drop = result["pre29_points"] - result["pre29_line_points"]
    assert 0 < soft_drop <= 15 * result["pieces"]
    assert result["pre29_line_points"] % 20 == 0  # 40, 100, 300, 1200 times the level + 1


def test_a_game_from_level_28_counts_level_29_and_beyond_apart():
    """Points after level 29 begins are not pre-29 points: the same game stopped when level
    29 begins has the same pre-29 points and lines_at_29, and fewer lines."""
    result = play(Planner(MEATFIGHTER), Game.start(28, nes_rng(77), 1, 2))
    stopped = play(Planner(MEATFIGHTER), Game.start(28, nes_rng(77), 1, 2), stop_level=29)
    assert result["topped_out"] and not stopped["topped_out"]
    assert result["lines_at_29"] == stopped["lines_at_29"] == stopped["lines"] == 200
    assert result["lines"] > stopped["lines"]
    assert result["pre29_points"] == stopped["pre29_points"] > 999_999  # uncapped
    assert result["pre29_line_points"] == stopped["pre29_line_points"] > 990_000
    assert result["maxout"] and result["score"] == 999_999


def test_stop_level_ends_a_game_when_the_level_is_reached():
    result = play(Planner(MEATFIGHTER), Game.start(18, nes_rng(5), 0, 0), stop_level=19)
    assert result["level"] == 19 and not result["topped_out"]
    # start level 18: the first level-up comes at 130 lines, here with a clear of up to 4
    assert 130 <= result["lines"] < 134


def one_line_before_39(score: int) -> Game:
    """A level-38 game at 339 lines (the next clear reaches level 39) with this score."""
    state = Game.start(29, nes_rng(5), 0, 0).state()
    digits = f"{score:06d}"
    state |= {
        "level": 38,
        "lines": [0x39, 0x03],
        "score": [int(digits[i : i + 2], 16) for i in (4, 2, 0)],  # BCD, low byte first
    }
    return Game.from_state(state)


def test_the_whole_game_counts_its_points_past_the_cap_and_at_level_39():
    """points go on past 999,999 (what the ROM adds to a zero score); points_at_39 are the
    points when the clear that reaches level 39 is scored, whatever happens after."""
    planner = Planner(MEATFIGHTER)
    at_39 = play(planner, one_line_before_39(0), stop_level=39)
    assert (at_39["level"], at_39["lines"]) == (39, 340)
    assert at_39["points"] == at_39["points_at_39"] == at_39["score"]
    assert at_39["line_points"] == at_39["line_points_at_39"] == 40 * 40  # one line at x40
    on = play(planner, one_line_before_39(999_990), stop_level=41)
    assert on["level"] == 41 and on["score"] == 999_999  # capped on the screen
    assert on["points_at_39"] == at_39["points"]  # the same first piece and clear
    assert on["points"] > on["points_at_39"] and on["line_points"] > on["line_points_at_39"]
    assert on["line_points"] % 20 == 0 and on["pre29_points"] == 0 and not on["maxout"]


def test_level_39_figures_count_a_top_out_before_it_at_its_final_score():
    games = [
        {"points_at_39": 1_900_000, "line_points_at_39": 1_890_000, "points": 2_000_000},
        {"points_at_39": None, "line_points_at_39": None, "points": 1_000_000},
    ]
    results = [
        game
        | {
            "line_points": game["points"] - 10_000,
            "pre29_points": 0,
            "pre29_line_points": 0,
            "lines": 300,
            "lines_at_29": 230,
            "maxout": True,
            "tetrises": 60,
            "pieces": 800,
            "fallbacks": 0,
            "truncated": 0,
        }
        for game in games
    ]
    summary = summarize(results, 1.0, stop_level=49)
    assert summary.reach39_rate == 0.5
    assert summary.score39_mean == 1_450_000 and summary.score39_line_mean == 1_440_000
    assert summary.final_score_mean == 1_500_000
    below = summarize(results, 1.0, stop_level=29)
    assert below.reach39_rate is None and below.score39_mean is None
    assert "reach level 39" in summary.describe() and "reach level 39" not in below.describe()


SAFE = EVALUATORS["nesbot-rightwell-safe"]
LOWER = {"high_stack": 10.0, "safe_stack_height": 3.0}
# The safe set changed throughout as LOWER changes it from where a kill_screen set takes over.
LOWER_THROUGHOUT = dataclasses.replace(
    SAFE, name="low", weights=SAFE.weights | {"high_stack": 10.0}, safe_stack_height=3.0
)


def _game_from(level: int, evaluator: Evaluator, tap_hz: int = 30) -> dict:
    """A game started at `level`, played with the reaction."""
    planner = build_planner(evaluator, PlannerSettings(tap_hz=tap_hz, reaction=18))
    return play(planner, Game.start(level, nes_rng(9), 0, 0), 4000, reaction=18)


def _with_kill_screen(kill_screen: dict[str, float]) -> Evaluator:
    return dataclasses.replace(SAFE, name="kill", kill_screen=kill_screen)


def test_a_kill_screen_set_plays_from_level_29_as_that_set_would_throughout():
    kill = _game_from(29, _with_kill_screen(LOWER))
    assert kill == _game_from(29, LOWER_THROUGHOUT) != _game_from(29, SAFE)
    assert kill["lines"] > 20


def test_a_kill_screen_set_from_an_earlier_level_plays_from_there():
    safe = _game_from(27, SAFE)
    from_27 = _game_from(27, _with_kill_screen(LOWER | {"from_level": 27}))
    assert from_27 == _game_from(27, LOWER_THROUGHOUT) != safe
    assert _game_from(27, _with_kill_screen(LOWER)) == safe  # from level 29: not yet


def _from_one_line_before_level_29(evaluator: Evaluator, seed: int) -> dict:
    """A level-28 game at 229 lines (a line from level 29, where a piece falls a row a
    frame) played at 12 Hz with the reaction until level 29."""
    state = Game.start(28, nes_rng(seed), 0, 0).state() | {"lines": [0x29, 0x02]}
    planner = build_planner(evaluator, PlannerSettings(tap_hz=12, reaction=18))
    return play(planner, Game.from_state(state), 4000, 29, reaction=18)


@pytest.mark.parametrize("seed", [2, 3])
@pytest.mark.parametrize("name", ["nesbot-rightwell-safe", DEFAULT_EVALUATOR])
def test_the_line_into_the_kill_screen_is_judged_as_the_options_beside_it(name, seed):
    """Every board of one choice is judged at one level (within four lines of a level-up,
    the next one's). Judged at the level its own clears reached, the line into level 29
    met 1 G's piece ranges at 12 Hz and the kill_screen set while the stacks beside it
    were judged at level 28: it looked worse than any stack, and these games topped out
    a line short of level 29."""
    result = _from_one_line_before_level_29(EVALUATORS[name], seed)
    assert result["level"] == 29 and not result["topped_out"]


def test_a_slower_tap_rate_plays_its_own_kill_screen_set():
    """kill_screen_by_tap_hz: the planner and a run's identity take the bot's tap rate's
    set; a faster bot keeps kill_screen."""
    by_tap = dataclasses.replace(
        _with_kill_screen({"high_stack": 1.0}), kill_screen_by_tap_hz={20: LOWER}
    )
    assert _game_from(29, by_tap, tap_hz=15) == _game_from(29, _with_kill_screen(LOWER), 15)
    assert _game_from(29, by_tap, tap_hz=15) != _game_from(29, by_tap.at_tap_hz(30), 15)
    assert _game_from(29, by_tap) == _game_from(29, _with_kill_screen({"high_stack": 1.0}))
    slow = run_identity(GameSpec(by_tap, PlannerSettings(tap_hz=15), 29, 1, 0))
    assert slow["evaluator"]["kill_screen_safe_stack_height"] == 3.0
    fast = run_identity(GameSpec(by_tap, PlannerSettings(), 29, 1, 0))
    assert fast["evaluator"]["kill_screen_safe_stack_height"] == SAFE.safe_stack_height


def test_game_setup_depends_only_on_seed_and_index():
    assert game_setup(3, 7) != game_setup(3, 8)
    assert game_setup(3, 7) != game_setup(4, 7)
    rng, spawn_count, frame_counter = game_setup(3, 7)
    assert 0 <= spawn_count < 256 and 0 <= frame_counter < 65536
    assert rng in {nes_rng(k) for k in range(32_767)}  # a state on the NES RNG's cycle


def without_speed(summary) -> dict:
    return {k: v for k, v in vars(summary).items() if k != "pieces_per_s"}


@pytest.fixture(scope="module")
def four_games() -> tuple[Summary, list[dict]]:
    """simulate(MEATFIGHTER, 4, level=29, seed=11) on one worker, all at once and unsaved:
    the run that the tests of workers, saved games and batches each compare theirs with
    (each played it again before, about 6 s of one core apiece)."""
    return simulate(MEATFIGHTER, 4, level=29, seed=11, workers=1, progress=False)


@pytest.mark.slow  # whole games two ways: ~10 s
def test_same_seed_same_figures_whatever_the_workers(four_games):
    one, results_one = four_games
    two, results_two = simulate(MEATFIGHTER, 4, level=29, seed=11, workers=2, progress=False)
    assert results_one == results_two
    assert without_speed(one) == without_speed(two)
    assert results_one[1] == play_one(GameSpec(MEATFIGHTER, PlannerSettings(), 29, 11, 1))


@pytest.mark.slow
@pytest.mark.xdist_group("ray")
@pytest.mark.usefixtures("local_ray")
def test_same_seed_same_figures_on_ray():
    """Games played as Ray tasks come back in the order asked for, with the figures of
    the games played here; each reports as it finishes (the progress bar), and a game
    that fails on Ray is one sentence."""
    # Level 29: short games, of different lengths.
    here, results_here = simulate(MEATFIGHTER, 4, level=29, seed=6, progress=False)
    on_ray, results_on_ray = simulate(
        MEATFIGHTER, 4, level=29, seed=6, workers=2, progress=False, ray="local"
    )
    assert len({r["pieces"] for r in results_here}) == 4  # games of different lengths
    assert results_on_ray == results_here
    assert without_speed(on_ray) == without_speed(here)
    finished: list[int] = []
    specs = [GameSpec(MEATFIGHTER, PlannerSettings(), 29, 6, i) for i in (3, 0)]
    run = ray_runner("local", 2)  # the running instance
    got = run(specs, on_result=lambda index, _result: finished.append(index))
    assert got == [results_here[3], results_here[0]]
    assert sorted(finished) == [0, 1]
    with pytest.raises(NesbotError, match=r"^a game failed on the Ray cluster: TypeError"):
        run([GameSpec(None, PlannerSettings(), 29, 6, 0)])


@pytest.mark.slow  # whole games played, stopped and played on: ~10 s
def test_saved_games_let_a_run_go_on_where_it_stopped(tmp_path, four_games):
    """A run of 3 games saved, then the same run of 4: one game played, the figures those
    of 4 games played at once; the file holds each game once; another run is refused."""
    path = tmp_path / "games.jsonl"
    _, first = simulate(MEATFIGHTER, 3, level=29, seed=11, progress=False, save_games=path)
    lines = path.read_text().splitlines()
    assert len(lines) == 4 and json.loads(lines[1])["index"] == 0
    path.write_text("\n".join(lines) + '\n{"index": 3, "pie')  # a run killed mid-write
    resumed, results = simulate(MEATFIGHTER, 4, level=29, seed=11, progress=False, save_games=path)
    at_once, results_at_once = four_games
    assert results == results_at_once and results[:3] == first
    assert without_speed(resumed) == without_speed(at_once)
    assert [json.loads(line).get("index") for line in path.read_text().splitlines()] == [
        None,
        0,
        1,
        2,
        3,
    ]
    with pytest.raises(NesbotError, match="holds the games of another run"):
        simulate(MEATFIGHTER, 4, level=29, seed=12, progress=False, save_games=path)
    assert len(path.read_text().splitlines()) == 5  # refused, and left as it was


def test_saved_games_go_on_under_another_name_for_the_same_weights(tmp_path):
    """A weights file that copies a built-in evaluator plays its games: the name is not
    what the games depend on. The file keeps the name it was played under; other weights
    are another run."""
    path = tmp_path / "games.jsonl"
    simulate(MEATFIGHTER, 1, level=29, seed=11, progress=False, save_games=path)
    copy = dataclasses.replace(MEATFIGHTER, name="meatfighter-copy.json")
    _, results = simulate(copy, 2, level=29, seed=11, progress=False, save_games=path)
    header, first, _ = (json.loads(line) for line in path.read_text().splitlines())
    assert header["run"]["evaluator"]["name"] == MEATFIGHTER.name
    assert results[0] == {k: v for k, v in first.items() if k != "index"}  # not played again
    other = dataclasses.replace(MEATFIGHTER, ceiling=MEATFIGHTER.ceiling + 1)
    with pytest.raises(NesbotError, match="holds the games of another run"):
        simulate(other, 2, level=29, seed=11, progress=False, save_games=path)


def test_saved_games_of_an_older_nesbot_go_on_as_the_run_they_were(tmp_path):
    """A file whose run names no kill_screen_ widths (nesbot before them) was played with
    level 19's widths from level 29 too: that run goes on from it, today's default is
    another run."""
    path = tmp_path / "games.jsonl"
    before = PlannerSettings(kill_screen_deep_width=3, kill_screen_deep_branch=2)
    simulate(MEATFIGHTER, 1, level=29, seed=11, settings=before, progress=False, save_games=path)
    header, *games = (json.loads(line) for line in path.read_text().splitlines())
    for key in ("kill_screen_deep_width", "kill_screen_deep_branch"):
        del header["run"]["settings"][key]
    path.write_text("".join(json.dumps(line) + "\n" for line in [header, *games]))
    with pytest.raises(NesbotError, match="holds the games of another run"):
        simulate(MEATFIGHTER, 2, level=29, seed=11, progress=False, save_games=path)
    _, results = simulate(
        MEATFIGHTER, 2, level=29, seed=11, settings=before, progress=False, save_games=path
    )
    assert results[0] == {k: v for k, v in games[0].items() if k != "index"}  # not played again
    assert len(path.read_text().splitlines()) == 3


def test_saved_games_from_before_three_unknown_pieces_go_on_as_the_default(tmp_path):
    """A file whose run names no kill_screen_third_ settings (nesbot before them) looked two
    unknown pieces deep, as the default without a reaction does: the run goes on from it."""
    path = tmp_path / "games.jsonl"
    simulate(MEATFIGHTER, 1, level=29, seed=13, progress=False, save_games=path)
    header, *games = (json.loads(line) for line in path.read_text().splitlines())
    for key in ("kill_screen_third_width", "kill_screen_third_branch", "kill_screen_third_branch2"):
        del header["run"]["settings"][key]
    path.write_text("".join(json.dumps(line) + "\n" for line in [header, *games]))
    _, results = simulate(MEATFIGHTER, 2, level=29, seed=13, progress=False, save_games=path)
    assert results[0] == {k: v for k, v in games[0].items() if k != "index"}  # not played again
    deeper = PlannerSettings(kill_screen_third_width=2)
    with pytest.raises(NesbotError, match="holds the games of another run"):
        simulate(
            MEATFIGHTER, 3, level=29, seed=13, settings=deeper, progress=False, save_games=path
        )


def test_saved_games_from_before_next_width_are_the_runs_of_one_pair_each(tmp_path):
    """A file whose run names no next_width (nesbot before it) was played with each first
    placement's best pair alone: a run with next_width 1 goes on from it, 2 is another."""
    path = tmp_path / "games.jsonl"
    one_pair = PlannerSettings(next_width=1)
    simulate(MEATFIGHTER, 1, level=19, seed=12, settings=one_pair, progress=False, save_games=path)
    header, *games = (json.loads(line) for line in path.read_text().splitlines())
    assert header["run"]["settings"]["next_width"] == 1
    del header["run"]["settings"]["next_width"]
    path.write_text("".join(json.dumps(line) + "\n" for line in [header, *games]))
    with pytest.raises(NesbotError, match="holds the games of another run"):
        simulate(
            MEATFIGHTER,
            2,
            level=19,
            seed=12,
            settings=PlannerSettings(next_width=2),
            progress=False,
            save_games=path,
        )
    _, results = simulate(
        MEATFIGHTER, 1, level=19, seed=12, settings=one_pair, progress=False, save_games=path
    )
    assert results[0] == {k: v for k, v in games[0].items() if k != "index"}  # not played again


def test_saved_games_from_before_a_feature_existed_weighed_it_0(tmp_path):
    """A file whose weight vectors are a feature short (nesbot before the feature: the
    table's last, covered_ready_rows) goes on as the run it was; a run that weighs that
    feature is another."""
    path = tmp_path / "games.jsonl"
    simulate(MEATFIGHTER, 1, level=29, seed=11, progress=False, save_games=path)
    header, *games = (json.loads(line) for line in path.read_text().splitlines())
    assert header["run"]["evaluator"]["weights"][-1] == 0.0
    header["run"]["evaluator"]["weights"].pop()
    path.write_text("".join(json.dumps(line) + "\n" for line in [header, *games]))
    _, results = simulate(MEATFIGHTER, 2, level=29, seed=11, progress=False, save_games=path)
    assert results[0] == {k: v for k, v in games[0].items() if k != "index"}  # not played again
    path.write_text("".join(json.dumps(line) + "\n" for line in [header, *games]))
    weighing = dataclasses.replace(
        MEATFIGHTER, weights=dict(MEATFIGHTER.weights) | {"covered_ready_rows": 1.0}
    )
    with pytest.raises(NesbotError, match="holds the games of another run"):
        simulate(weighing, 2, level=29, seed=11, progress=False, save_games=path)


def test_simulate_json_and_plot(tmp_path):
    plot = tmp_path / "scores.png"
    result = nesbot(
        "simulate",
        "--games",
        "3",
        "--level",
        "29",
        "--seed",
        "2",
        "--workers",
        "2",
        "--json",
        "--plot",
        str(plot),
        "--evaluator",
        "meatfighter-2018",
    )
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert list(summary) == SUMMARY_KEYS
    assert summary["games"] == 3
    assert 0 <= summary["maxout_rate"] <= 1
    image = cv2.imread(str(plot))
    assert image is not None and image.shape[0] > 200 and image.shape[1] > 400


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--games", "0"], ["--games 0"]),
        (["--evaluator", "nope"], ["unknown evaluator"]),
        (["--weights", "/nonexistent.json"], ["does not exist"]),
        (["--plot", "/nonexistent/dir/x.png"], ["cannot write plot"]),
        (["--workers", "0"], ["--workers 0"]),
        (["--stop-level", "29"], ["--stop-level 29 must be above the start level 29"]),
        (["--save-games", "/nonexistent/dir/g.jsonl"], ["cannot write games file"]),
        (["--stop-level", "200"], ["--stop-level 200", "at most 155"]),
        (["--ray", "local", "--workers", "0"], ["--workers 0"]),
        (["--ray", "127.0.0.1:1"], ["cannot join the Ray cluster at 127.0.0.1:1"]),
        (["--ray", "nonsense"], ["cannot join the Ray cluster at nonsense"]),
    ],
)
def test_simulate_bad_input(args, words):
    _assert_one_line_error(nesbot("simulate", "--games", "1", "--level", "29", *args), *words)


def test_simulate_without_ray_installed(tmp_path):
    (tmp_path / "ray").mkdir()
    (tmp_path / "ray" / "__init__.py").write_text("raise ImportError('no Ray here')\n")
    result = nesbot(
        "simulate", "--games", "1", "--ray", "local", env=os.environ | {"PYTHONPATH": str(tmp_path)}
    )
    _assert_one_line_error(result, "--ray needs Ray: pip install 'nesbot[ray]'")


def test_a_failed_run_leaves_an_existing_plot_alone(tmp_path):
    plot = tmp_path / "mine.png"
    plot.write_bytes(b"the user's picture")
    result = nesbot("simulate", "--games", "0", "--plot", str(plot))
    assert result.returncode == 2
    assert plot.read_bytes() == b"the user's picture"


def test_python_callers_cannot_crash_the_process():
    """Typed extension arguments refuse None with TypeError instead of dereferencing it."""
    with pytest.raises(TypeError):
        play(None, Game.start(19, nes_rng(1)))
    with pytest.raises(TypeError):
        play(Planner(MEATFIGHTER), None)


def _pieces_met(evaluator: str, pieces_seed: int, count: int) -> list[int]:
    """The next piece at each spawn of a game played a frame at a time (so the planner
    replans every frame: play that no whole-game run would make)."""
    game = Game.start(19, nes_rng(999), 17, 4242)
    planner = Planner(EVALUATORS[evaluator], lookahead=0)
    seen = [game.state()["next_piece"]]
    while len(seen) < count and not game.topped_out:
        spawned = game.state()["spawn_count"]
        play(planner, game, max_frames=1, pieces_seed=pieces_seed)
        if game.state()["spawn_count"] != spawned:
            seen.append(game.state()["next_piece"])
    return seen


def test_same_pieces_make_the_pieces_independent_of_the_play():
    """With a pieces seed two evaluators, playing differently, meet the same pieces; other
    seeds give other pieces, with every type drawn."""
    first = _pieces_met("nesbot-trained", 7, 60)
    assert len(first) == 60
    assert _pieces_met("meatfighter-2014", 7, 60) == first
    other = _pieces_met("nesbot-trained", 8, 60)
    assert other != first and set(other) == set(first) and len(set(first)) == 7
    # without it the pieces follow the frames, which the play decides
    assert _pieces_met("meatfighter-2014", -1, 60) != _pieces_met("nesbot-trained", -1, 60)


def test_a_premove_or_the_hedge_changes_the_play_and_needs_a_reaction():
    # A game whose first 1,500 frames the three settings play apart.
    rng, spawn_count, frame_counter = game_setup(7000, 1)
    evaluator = EVALUATORS["nesbot-reaction18"]

    def game(premove: int, hedge: bool = True) -> dict:
        settings = PlannerSettings(reaction=18, premove=premove, hedge=hedge)
        start = Game.start(18, rng, spawn_count, frame_counter)
        return play(build_planner(evaluator, settings), start, max_frames=1500, reaction=18)

    assert game(2) != game(0) != game(0, hedge=False)
    assert game(2) == game(2) and game(0) == game(0)  # deterministic
    with pytest.raises(NesbotError, match="--premove needs --reaction"):
        PlannerSettings(premove=2)
    with pytest.raises(NesbotError, match="outside"):
        PlannerSettings(reaction=18, premove=99)


def test_explain_shows_the_kill_screen_set_of_its_tap_rate(tmp_path):
    board = tmp_path / "board.txt"
    board.write_text("\n".join(["." * 10] * 16 + ["#########."] * 4) + "\n")
    by_tap = dataclasses.replace(_with_kill_screen(LOWER), kill_screen_by_tap_hz={20: {}})

    def weighed(tap_hz: int) -> dict[str, str]:
        out = explain(str(board), "T", "I", 29, by_tap, PlannerSettings(tap_hz=tap_hz))
        trace = out.split("feature ", 1)[1].splitlines()[1:]
        return {line.split()[0]: line.split()[2] for line in trace if len(line.split()) == 4}

    assert weighed(30)["high_stack"] == "10"  # LOWER, the kill_screen set
    assert "high_stack" not in weighed(15)  # the 20 Hz set (none): the safe weights, 0


def test_a_huge_game_count_makes_one_batch_of_settings_at_a_time(monkeypatch):
    """simulate --games 10^12 once built every game's settings before playing any: now the
    runner gets the first batch at once, and the games' indexes in order."""
    from nesbot.lab import game_runs

    class Stop(Exception):
        pass

    given: list[list[int]] = []

    def runner(specs, workers, on_result=None):
        given.append([spec.index for spec in specs])
        raise Stop

    monkeypatch.setattr(game_runs, "run_games", runner)
    with pytest.raises(Stop):
        simulate(MEATFIGHTER, 10**12, level=29, progress=False)
    assert given == [list(range(game_runs.BATCH))]


def test_games_are_played_in_batches_with_the_same_results(monkeypatch, four_games):
    from nesbot.lab import game_runs

    _, at_once = four_games
    monkeypatch.setattr(game_runs, "BATCH", 3)  # a whole batch and a part of one, as 2 of 5 was
    _, batched = simulate(MEATFIGHTER, 4, level=29, seed=11, progress=False)
    assert batched == at_once
