"""nesbot.output_file: an output replaces its target only whole, never anything but a file,
never an input; every fault is one NesbotError naming the file."""

import os
import resource
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from nesbot.errors import NesbotError
from nesbot.output_file import OutputFile, check_distinct, check_output, write_output


@contextmanager
def file_size_limit(limit: int) -> Iterator[None]:
    """Writes past `limit` bytes fail (EFBIG; Python ignores SIGXFSZ), as on a full disk."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))


def test_a_whole_file_replaces_the_old_one_and_nothing_else_is_left(tmp_path: Path) -> None:
    path = tmp_path / "weights.json"
    path.write_text("old")
    write_output(path, "weights", "new\n")
    assert path.read_text() == "new\n"
    write_output(path, "weights", b"\x00bytes")
    assert path.read_bytes() == b"\x00bytes"
    assert sorted(tmp_path.iterdir()) == [path]


def test_the_file_is_written_beside_its_target_with_its_suffix(tmp_path: Path) -> None:
    path = tmp_path / "game.mp4"
    with OutputFile(path, "video") as out:
        assert out.temporary.parent == tmp_path and out.temporary.suffix == ".mp4"
        assert out.temporary.name.startswith("game.partial-")
        out.write("x")
        assert not path.exists()
    assert path.read_text() == "x"


def test_a_new_file_gets_the_umasks_permissions(tmp_path: Path) -> None:
    umask = os.umask(0o022)
    try:
        write_output(tmp_path / "a.txt", "text", "a")
    finally:
        os.umask(umask)
    assert (tmp_path / "a.txt").stat().st_mode & 0o777 == 0o644


def test_a_failed_run_leaves_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    path.write_text("the old trace\n")
    with pytest.raises(RuntimeError), OutputFile(path, "trace") as out:
        out.write("half a new trace")
        raise RuntimeError("the replay failed")
    assert path.read_text() == "the old trace\n"
    assert sorted(tmp_path.iterdir()) == [path]


def test_ctrl_c_keeps_what_was_written_so_far(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    path.write_text("the old trace\n")
    with pytest.raises(KeyboardInterrupt), OutputFile(path, "trace") as out:
        out.write("so far\n")
        raise KeyboardInterrupt
    assert path.read_text() == "so far\n"


def test_a_full_disk_is_one_error_naming_the_file_and_the_old_file_stays(tmp_path: Path) -> None:
    path = tmp_path / "weights.json"
    path.write_text("old")
    with file_size_limit(4096), pytest.raises(NesbotError) as raised:
        write_output(path, "weights file", "x" * 100_000)
    assert str(raised.value).startswith(f"cannot write weights file {path}: File too large")
    assert path.read_text() == "old"
    assert sorted(tmp_path.iterdir()) == [path]


def test_a_symlink_is_followed_and_kept(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    write_output(link, "weights", "new")
    assert link.is_symlink() and real.read_text() == "new"


def test_only_a_regular_file_or_a_new_path_is_replaced(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    full = tmp_path / "full.fm2"
    full.symlink_to("/dev/full")
    refused = {
        tmp_path: "it is a directory",
        Path("/dev/null"): "not a regular file",
        full: "not a regular file",
        fifo: "not a regular file",
        tmp_path / "no" / "x.json": "does not exist",
        Path("/proc/nesbot-output.json"): "refuses new files",  # root too
        tmp_path / "fifo" / "x.json": "Not a directory",
    }
    for path, reason in refused.items():
        with pytest.raises(NesbotError, match=reason) as raised:
            check_output(path, "log")
        assert str(raised.value).startswith(f"cannot write log {path}: ")
        with pytest.raises(NesbotError, match=reason):
            write_output(path, "log", "x")
    assert Path("/dev/null").is_char_device()
    assert sorted(tmp_path.iterdir()) == [fifo, full]
    check_output(tmp_path / "new.json", "log")
    assert sorted(tmp_path.iterdir()) == [fifo, full]  # the check leaves nothing behind


def test_an_output_that_is_an_input_or_another_output_is_refused(tmp_path: Path) -> None:
    log = tmp_path / "g.fm2"
    log.write_text("a log")
    (tmp_path / "hard.fm2").hardlink_to(log)
    (tmp_path / "soft.fm2").symlink_to(log)
    for other in ("g.fm2", "hard.fm2", "soft.fm2", "./g.fm2"):
        with pytest.raises(NesbotError, match=f"^--trace .*{other} is also LOG: "):
            check_distinct({"LOG": log}, {"--trace": tmp_path / other})
    new = tmp_path / "new.mp4"
    with pytest.raises(NesbotError, match=r"^--video .*new.mp4 is also --log: "):
        check_distinct({}, {"--log": new, "--video": tmp_path / "." / "new.mp4"})
    check_distinct({"LOG": log, "--rom": None}, {"--trace": new, "--video": None})
    assert log.read_text() == "a log"
