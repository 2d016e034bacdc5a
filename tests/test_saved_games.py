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
GAME = dict.fromkeys(RESULT_KEYS, 7) | {"lines_at_29": None}


def _file(path: Path, *lines: str | bytes) -> Path:
    path.write_bytes(b"".join(line if isinstance(line, bytes) else line.encode() for line in lines))
    return path


def _line(record: object) -> str:
    return json.dumps(record) + "\n"


HEADER = _line({"format": FORMAT, "run": RUN})


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
        ((HEADER, "not json\n", _line({"index": 0} | GAME)), "line 2 is not JSON"),
        (('{"format": "other"}\n',), "line 1 is not the header"),
        ((_line({"format": FORMAT, "run": 3}),), "line 1 names no run"),
        (("{",), "line 1 is not JSON"),
        ((b"\xff\xfe\n",), "line 1 is not JSON"),
        ((HEADER, b"x" * (MAX_LINE_BYTES + 1)), f"line 2 is longer than {MAX_LINE_BYTES:,}"),
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
