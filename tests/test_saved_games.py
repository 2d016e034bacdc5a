"""simulate --save-games' file, read back: line by line with a bound, only what is a game;
anything else one NesbotError naming the file and the line."""

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nesbot.errors import NesbotError
from nesbot.lab.saved_games import FORMAT, MAX_LINE_BYTES, SavedGames
from nesbot.lab.statistics import RESULT_KEYS

RUN = {"evaluator": {"name": "e"}, "level": 19, "seed": 0}
GAME = dict.fromkeys(RESULT_KEYS, 7) | {"lines": 28, "maxout": False, "lines_at_29": None}


def _file(path: Path, *lines: str | bytes) -> Path:
    path.write_bytes(b"".join(line if isinstance(line, bytes) else line.encode() for line in lines))
    return path


def _line(record: object) -> str:
    return json.dumps(record) + "\n"


HEADER = _line({"format": FORMAT, "run": RUN})


def _game(**figures: object) -> str:
    """The line of game 0 with `figures` changed."""
    return _line({"index": 0} | GAME | figures)


def test_the_games_of_the_run_are_read_and_the_file_written_again(tmp_path):
    path = _file(tmp_path / "g.jsonl", HEADER, _line({"index": 1} | GAME), '{"index": 2, "pi')
    saved = SavedGames(path, RUN)
    saved.close()
    assert saved.done == {1: GAME}
    assert path.read_text() == HEADER + _line({"index": 1} | GAME)  # the torn line dropped
    assert sorted(tmp_path.iterdir()) == [path]


@pytest.mark.parametrize(
    ("lines", "words"),
    [
        ((HEADER, "[1, 2]\n"), "line 2 is not a game"),
        ((HEADER, _line({"index": -1} | GAME)), "line 2 has no game index"),
        ((HEADER, _line({"index": True} | GAME)), "line 2 has no game index"),
        ((HEADER, _line({"index": 0})), "line 2 lacks"),
        ((HEADER, _line({"index": 0} | GAME | {"points": 1.5})), "points 1.5, not a whole"),
        ((HEADER, _line({"index": 0} | GAME | {"points": "x"})), "points 'x', not a whole"),
        ((HEADER, "not json\n", _line({"index": 0} | GAME)), "line 2 is not valid JSON"),
        (('{"format": "other"}\n',), "line 1 is not the header"),
        ((_line({"format": FORMAT, "run": 3}),), "line 1 names no run"),
        (("{",), "line 1 is not valid JSON"),
        ((b"\xff\xfe\n",), "line 1 is not valid JSON"),
        ((HEADER, b"x" * (MAX_LINE_BYTES + 1)), f"line 2 is longer than {MAX_LINE_BYTES:,}"),
        # JSON Python cannot hold: once a RecursionError and a ValueError
        ((HEADER, "[" * 100_000 + "\n"), "line 2 is not valid JSON (nested too deeply)"),
        ((HEADER, '{"index": 1' + "0" * 5000 + "}\n"), "line 2 is not valid JSON (Exceeds"),
        # figures no game makes: once averaged, or an OverflowError after the games
        ((HEADER, _game(pre29_points=10**400)), "line 2 has pre29_points 1000"),
        ((HEADER, _game(pre29_points=-(10**12))), "pre29_points -1000000000000, outside 0-1"),
        ((HEADER, _game(lines=100_000)), "line 2 has lines 100000, outside 0-9,999"),
        ((HEADER, _game(score=-5)), "line 2 has score -5, outside 0-999,999"),
        ((HEADER, _game(score=10**300)), "line 2 has score 1000"),
        ((HEADER, _game(level=500)), "line 2 has level 500, outside 0-255"),
        ((HEADER, _game(tetrises=8)), "line 2 has 8 tetrises in 28 lines"),
        ((HEADER, _game(lines_at_29=29)), "line 2 has lines_at_29 29 above its 28 lines"),
        ((HEADER, _game(maxout=7)), "line 2 has maxout 7, not true or false"),
        ((HEADER, _game(lines=None)), "line 2 has lines null"),
    ],
)
def test_a_file_of_the_wrong_shape_is_one_error_and_left_as_it_was(tmp_path, lines, words):
    path = _file(tmp_path / "g.jsonl", *lines)
    before = path.read_bytes()
    with pytest.raises(NesbotError, match=f"^{path} ") as raised:
        SavedGames(path, RUN)
    assert words in str(raised.value) and "\n" not in str(raised.value)
    assert path.read_bytes() == before


def test_an_endless_line_is_not_read_whole(tmp_path, monkeypatch):
    """The bound holds for a line with no end in sight: what is read of it is the bound."""
    path = _file(tmp_path / "g.jsonl", HEADER, b"7" * (20 * MAX_LINE_BYTES))
    read: list[int] = []
    real_open = Path.open

    def counting_open(self, *args, **kwargs):
        file = real_open(self, *args, **kwargs)
        readline = file.readline

        def bounded(size=-1):
            read.append(size)
            return readline(size)

        file.readline = bounded
        return file

    monkeypatch.setattr(Path, "open", counting_open)
    with pytest.raises(NesbotError, match="longer than"):
        SavedGames(path, RUN)
    assert read and all(0 < size <= MAX_LINE_BYTES + 1 for size in read)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)
GAME_LIKE = st.fixed_dictionaries(
    {"index": st.integers(-2, 5) | st.booleans() | st.none()},
    optional={key: st.integers(-5, 10**9) | st.none() | st.floats() for key in RESULT_KEYS},
)
LINES = st.lists(
    st.one_of(
        GAME_LIKE.map(_line),
        JSON.map(_line),
        st.binary(max_size=40),
        st.text(max_size=40),
    ),
    max_size=6,
)


@settings(max_examples=300, deadline=None)
@given(lines=LINES, header=st.booleans())
def test_any_games_file_is_read_as_games_or_refused(tmp_path_factory, lines, header):
    """Whatever a games file holds, SavedGames reads games of the run's shape from it or
    refuses it in one NesbotError naming the file, leaving it as it was."""
    path = _file(tmp_path_factory.mktemp("g") / "g.jsonl", *([HEADER] if header else []), *lines)
    before = path.read_bytes()
    try:
        saved = SavedGames(path, RUN)
    except NesbotError as error:
        assert str(error).startswith(str(path)) and "\n" not in str(error)
        assert path.read_bytes() == before
        return
    saved.close()
    for index, game in saved.done.items():
        assert isinstance(index, int) and not isinstance(index, bool) and index >= 0
        assert game.keys() >= RESULT_KEYS
        assert all(value is None or type(value) in (int, bool) for value in game.values())
    assert SavedGames(path, RUN).done == saved.done  # what it wrote reads back the same


# The most each figure can be (a game stops by level 155, ~1,560 lines; nesbot.lab.saved_games
# says why), and none is below 0.
MOST = {
    "score": 999_999,
    "lines": 9_999,
    "level": 255,
    **dict.fromkeys(("pre29_points", "points", "line_points_at_39", "frames"), 10**8),
    **dict.fromkeys(("pieces", "fallbacks", "truncated"), 10**8),
}


@settings(max_examples=200, deadline=None)
@given(
    key=st.sampled_from(sorted(MOST)),
    value=st.integers(-(10**400), 10**400) | st.integers(-3, 2 * 10**8),
)
def test_a_figure_is_read_only_within_its_range(tmp_path_factory, key, value):
    """A line with one figure changed is a game if the figure is within 0 to its most, and
    is refused naming the file, line and figure if not."""
    game = GAME | {"tetrises": 0, key: value}
    path = _file(tmp_path_factory.mktemp("g") / "g.jsonl", HEADER, _line({"index": 0} | game))
    if 0 <= value <= MOST[key]:
        saved = SavedGames(path, RUN)
        saved.close()
        assert saved.done == {0: game}
        return
    with pytest.raises(NesbotError) as raised:
        SavedGames(path, RUN)
    assert str(raised.value).startswith(f"{path} line 2 has {key} ")
    assert f"outside 0-{MOST[key]:,}" in str(raised.value)


def test_simulate_refuses_a_games_line_no_game_makes_before_playing(tmp_path, capsys, monkeypatch):
    """The hostile run's case: pre29_points 10^400 was an OverflowError once the new games
    were played; now the line is refused first, the file left as it was."""
    from nesbot.cli import main
    from nesbot.lab import game_runs

    def no_games(*_args, **_kwargs):
        raise AssertionError("a game was played")

    monkeypatch.setattr(game_runs, "run_games", no_games)
    path = _file(tmp_path / "g.jsonl", HEADER, _game(pre29_points=10**400))
    before = path.read_bytes()
    argv = ["simulate", "--games", "3", "--stop-level", "21", "--save-games", str(path)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"nesbot: error: {path} line 2 has pre29_points 1000")
    assert err.count("\n") == 1 and path.read_bytes() == before
