"""Tests of the .fm2 input log reader and writer."""

import base64
import contextlib
import hashlib
import importlib.metadata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nesbot._version import __version__
from nesbot.errors import NesbotError
from nesbot.nes.fm2 import (
    FLUSH_EVERY,
    Fm2Writer,
    InputLog,
    fceux_rom_md5,
    format_pad,
    parse_fm2,
    parse_pad,
    read_fm2,
    write_fm2,
)

MD5 = "0123456789abcdef0123456789abcdef"
MD5_B64 = base64.b64encode(bytes.fromhex(MD5)).decode()

HEADER = [
    "version 3",
    "emuVersion 22020",
    "rerecordCount 0",
    "palFlag 0",
    "romFilename Tetris",
    f"romChecksum base64:{MD5_B64}",
    "guid 00000000-0000-0000-0000-000000000000",
    "fourscore 0",
    "microphone 0",
    "port0 1",
    "port1 0",
    "port2 0",
    "FDS 0",
    "NewPPU 0",
]


def log_text(*input_lines: str, header: list[str] = HEADER) -> str:
    return "\n".join([*header, *input_lines]) + "\n"


def error_of(text: str) -> str:
    with pytest.raises(NesbotError) as info:
        parse_fm2(text, "game.fm2")
    return str(info.value)


# --- pad fields -----------------------------------------------------------------------------


def test_pad_bits_follow_nes_py_order() -> None:
    assert parse_pad("R.......", 1, "x") == 0x80
    assert parse_pad(".......A", 1, "x") == 0x01
    assert parse_pad("...U....", 1, "x") == 0x10
    assert parse_pad("....T...", 1, "x") == 0x08
    assert parse_pad("RLDUTSBA", 1, "x") == 0xFF
    assert parse_pad("        ", 1, "x") == 0


def test_any_letter_counts_as_pressed() -> None:
    assert parse_pad("x......#", 1, "x") == 0x81


@given(st.integers(0, 255))
def test_format_then_parse_pad(pad: int) -> None:
    assert parse_pad(format_pad(pad), 1, "x") == pad


def test_format_pad_refuses_non_bytes() -> None:
    with pytest.raises(ValueError):
        format_pad(256)
    with pytest.raises(ValueError):
        format_pad(-1)


# --- reading --------------------------------------------------------------------------------


def test_parse_minimal_log() -> None:
    log = parse_fm2(log_text("|0|........|||", "|0|.......A|||", "|0|R......A|||"))
    assert log.frames == bytes([0, 0x01, 0x81])
    assert log.rom_md5 == MD5
    assert log.source == "<string>"
    assert log.header[0] == ("version", "3")
    assert ("romFilename", "Tetris") in log.header
    assert log.comments == ()


def test_comments_are_kept_apart_from_the_header() -> None:
    header = [*HEADER, "comment nesbot 0.1.0", "comment start_level 19", "comment seed 7"]
    log = parse_fm2(log_text("|0|........|||", header=header))
    assert log.comments == ("nesbot 0.1.0", "start_level 19", "seed 7")
    assert all(key != "comment" for key, _ in log.header)
    assert log.comment_value("start_level") == "19"
    assert log.comment_value("seed") == "7"
    assert log.comment_value("nesbot") == "0.1.0"
    assert log.comment_value("missing") is None
    assert log.comment_value("start") is None


@pytest.mark.parametrize(
    ("comments", "counts_steps"),
    [
        ((), False),  # FCEUX's movies, and any tool's that says nothing
        (("author someone",), False),
        (("nesbot 0.1.0", "start_level 19"), True),  # nesbot's logs before the mark
        (("nesbot 0.1.0", "emulator nes-py 9.0.1", "frames fceux"), False),
        (("nesbot 0.1.0", "steps nes-py"), True),
        (("written by another tool", "steps nes-py"), True),  # the contract's header line
        (("author nesbot fan", "nesbot 0.1.0"), False),  # nesbot's line comes first
    ],
)
def test_what_a_logs_lines_count(comments: tuple[str, ...], counts_steps: bool) -> None:
    header = [*HEADER, *(f"comment {comment}" for comment in comments)]
    assert parse_fm2(log_text("|0|........|||", header=header)).counts_steps is counts_steps


def test_a_log_of_steps_is_written_with_its_mark(tmp_path: Path) -> None:
    path = tmp_path / "steps.fm2"
    write_fm2(path, b"\x00\x01", MD5, ["seed 3"], counts_steps=True)
    log = read_fm2(path)
    assert log.counts_steps
    assert log.comments[2:4] == ("steps nes-py", "seed 3")


FCEUX_STYLE = (
    "version 3\r\n"
    "emuVersion 20604\r\n"
    "rerecordCount 12\r\n"
    "palFlag 0\r\n"
    "romFilename tetris\r\n"
    "romChecksum base64:Ww5XFVjIx5aTe5avRpVhxg==\r\n"
    "guid 452DE2C3-EF43-2FA9-77AC-0677FC51543B\r\n"
    "fourscore 0\r\n"
    "microphone 0\r\n"
    "port0 1\r\n"
    "port1 1\r\n"
    "port2 0\r\n"
    "FDS 0\r\n"
    "NewPPU 0\r\n"
    "RAMInitOption 0\r\n"
    "RAMInitSeed 1234\r\n"
    "comment author someone\r\n"
    "subtitle 10 Hello there\r\n"
    "subtitle 200 A second subtitle\r\n"
    "|2|........|........||\r\n"
    "|0|........|........||\r\n"
    "|0|R.......|........||\r\n"
    "|0|...U....|........||\r\n"
    "|0|....T...|........||\r\n"
    "|0|RLDUTSBA|........||\r\n"
)


def test_fceux_style_log() -> None:
    log = parse_fm2(FCEUX_STYLE, "fceux.fm2")
    assert log.frames == bytes([0, 0, 0x80, 0x10, 0x08, 0xFF])
    assert log.rom_md5 == "5b0e571558c8c796937b96af469561c6"
    assert log.comments == ("author someone",)
    assert ("emuVersion", "20604") in log.header
    assert ("rerecordCount", "12") in log.header
    assert ("subtitle", "10 Hello there") in log.header
    assert ("subtitle", "200 A second subtitle") in log.header
    assert all("\r" not in value for _, value in log.header)


def test_fceux_header_in_another_order() -> None:
    header = ["romFilename tetris", "port0 1", "comment x y", "version 3", "palFlag 0"]
    log = parse_fm2(log_text("|0|....T...|||", header=header))
    assert log.frames == b"\x08"
    assert log.rom_md5 is None
    assert log.header[0] == ("romFilename", "tetris")


def test_hex_checksum_and_bom_and_blank_lines() -> None:
    text = "\ufeffversion 3\n\nromChecksum 0x" + MD5.upper() + "\n|0|........|||\n\n"
    log = parse_fm2(text)
    assert log.rom_md5 == MD5
    assert log.frames == b"\x00"


def test_last_line_without_newline_is_complete() -> None:
    assert parse_fm2(log_text("|0|........|||", "|0|.......A|||").rstrip("\n")).frames == (
        b"\x00\x01"
    )


def test_reset_on_first_line_is_power_on() -> None:
    assert parse_fm2(log_text("|2|........|||", "|0|........|||")).frames == b"\x00\x00"
    assert parse_fm2(log_text("|1|........|||")).frames == b"\x00"


# --- malformed logs: each message names the source and the line -----------------------------


def test_pad_field_with_wrong_length() -> None:
    message = error_of(log_text("|0|........|||", "|0|....|||"))
    assert message == (
        "game.fm2 line 16: the pad field '....' has 4 characters, expected 8 (RLDUTSBA)"
    )


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("|0|........||", "4 '|' separators, expected 5"),
        ("|0|........||||", "6 '|' separators, expected 5"),
        ("|0|........|||x", "text after its last '|'"),
        ("|x|........|||", "commands field 'x' is not an integer"),
        ("||........|||", "commands field '' is not an integer"),
        ("|-1|........|||", "commands field '-1' is not an integer"),
        ("|1_0|........|||", "commands field '1_0' is not an integer"),
        ("|256|........|||", "commands field 256 is not an integer from 0 to 255"),
        ("|" + "9" * 5000 + "|........|||", "is not an integer"),
        ("|1|........|||", "frame 1 needs a soft reset (command 1)"),
        ("|2|........|||", "frame 1 needs a power cycle (command 2)"),
        ("|3|........|||", "frame 1 needs a power cycle (command 3)"),
    ],
)
def test_malformed_input_line(line: str, words: str) -> None:
    message = error_of(log_text("|0|........|||", line, "|0|........|||"))
    assert message.startswith("game.fm2 line 16")
    assert words in message


@pytest.mark.parametrize(
    ("header_line", "words"),
    [
        ("version 2", "version '2' is not supported, expected 3"),
        ("palFlag 1", "PAL"),
        ("palFlag x", "palFlag 'x' is not 0 or 1"),
        ("port0 0", "port0 is '0'"),
        ("port0 2", "gamepad"),
        ("fourscore 1", "Four Score"),
        ("binary 1", "binary input records"),
        ("savestate base64:AAAA", "savestate"),
        ("romChecksum base64:!!!", "romChecksum 'base64:!!!' is not an md5"),
        ("romChecksum base64:AAAA", "is not an md5"),
        ("romChecksum 0xzz", "is not an md5"),
        ("romChecksum " + MD5, "is not an md5"),
        (" version 3", "starts with a space"),
    ],
)
def test_refused_header(header_line: str, words: str) -> None:
    message = error_of(log_text("|0|........|||", header=[*HEADER, header_line]))
    assert message.startswith("game.fm2 line 15: ")
    assert words in message


def test_missing_version() -> None:
    message = error_of(log_text("|0|........|||", header=HEADER[1:]))
    assert message.startswith("game.fm2 line 14: ")
    assert "'version 3'" in message


def test_header_after_input() -> None:
    message = error_of(log_text("|0|........|||", "comment late", "|0|........|||"))
    assert message.startswith("game.fm2 line 16: ")
    assert "line 15" in message
    assert "headers must come first" in message


@pytest.mark.parametrize("text", ["", "\n\n", log_text(), "hello world\n"])
def test_no_input_lines(text: str) -> None:
    assert "has no input lines" in error_of(text)


def test_truncated_last_line() -> None:
    whole = log_text("|0|........|||", "|0|.......A|||")
    expected = "game.fm2 line 16 is truncated: the file ends before its closing '|'"
    # Every cut that leaves part of the last line, as a writer killed mid-line would.
    for cut in range(2, len("|0|.......A|||")):
        assert error_of(whole[: len(whole) - cut]) == expected, cut


def test_cut_line_in_the_middle_is_not_called_truncated() -> None:
    message = error_of(log_text("|0|....", "|0|........|||"))
    assert message.startswith("game.fm2 line 15 has 2 '|' separators")


def test_error_messages_are_one_line() -> None:
    message = error_of(log_text("|0|....\t\r\x1b|||"))
    assert "\n" not in message
    assert "\\x1b" in message


# --- ROM check ------------------------------------------------------------------------------


def test_check_rom() -> None:
    log = parse_fm2(log_text("|0|........|||"), "game.fm2")
    log.check_rom(MD5)
    log.check_rom(MD5.upper())
    other = "f" * 32
    with pytest.raises(NesbotError) as info:
        log.check_rom(other)
    assert str(info.value) == (
        f"game.fm2 was recorded with ROM md5 {MD5} (romChecksum), but this ROM's md5 is {other}"
    )


def test_check_rom_without_checksum_accepts_any_rom() -> None:
    header = [line for line in HEADER if not line.startswith("romChecksum")]
    parse_fm2(log_text("|0|........|||", header=header)).check_rom("f" * 32)


def test_fceux_rom_md5_skips_header_and_trainer() -> None:
    prg = bytes(range(256)) * 64
    chr_ = b"\x55" * 0x2000
    rom = b"NES\x1a\x01\x01" + bytes(10) + prg + chr_ + b"junk after the banks"
    assert fceux_rom_md5(rom) == hashlib.md5(prg + chr_).hexdigest()
    with_trainer = b"NES\x1a\x01\x01\x04" + bytes(9) + b"\xee" * 512 + prg + chr_
    assert fceux_rom_md5(with_trainer) == hashlib.md5(prg + chr_).hexdigest()
    with pytest.raises(NesbotError, match="not an iNES image"):
        fceux_rom_md5(b"PK\x03\x04")
    with pytest.raises(NesbotError, match="shorter"):
        fceux_rom_md5(rom[:100])


def test_fceux_md5_of_the_real_rom(rom_bytes: bytes) -> None:
    # FCEUX's romChecksum for NES Tetris (USA), which is not the md5 of the .nes file.
    assert fceux_rom_md5(rom_bytes) == "5b0e571558c8c796937b96af469561c6"
    assert hashlib.md5(rom_bytes).hexdigest() != fceux_rom_md5(rom_bytes)


# --- files ----------------------------------------------------------------------------------


def test_read_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "missing.fm2"
    with pytest.raises(NesbotError, match=r"cannot read .*missing\.fm2"):
        read_fm2(path)


def test_read_directory(tmp_path: Path) -> None:
    with pytest.raises(NesbotError, match="cannot read"):
        read_fm2(tmp_path)


def test_read_binary_file(tmp_path: Path) -> None:
    path = tmp_path / "game.fm2"
    path.write_bytes(b"version 3\n|0|\xff\xfe......|||\n")
    with pytest.raises(NesbotError) as info:
        read_fm2(path)
    assert str(info.value).startswith(f"{path} line 2: byte 13 is not UTF-8")


def test_read_names_the_path(tmp_path: Path) -> None:
    path = tmp_path / "game.fm2"
    path.write_text(log_text("|0|....|||"))
    with pytest.raises(NesbotError, match=f"^{path} line 15: the pad field"):
        read_fm2(path)
    path.write_text(log_text("|0|........|||"))
    assert read_fm2(path).source == str(path)
    assert read_fm2(str(path)).frames == b"\x00"


# --- writing --------------------------------------------------------------------------------


def test_written_text(tmp_path: Path) -> None:
    path = tmp_path / "game.fm2"
    write_fm2(path, bytes([0, 1, 0x81]), MD5, [("start_level", "19"), ("seed", "7")])
    lines = path.read_text().split("\n")
    # No emuVersion: no FCEUX wrote it.
    assert lines[:5] == [
        "version 3",
        "rerecordCount 0",
        "palFlag 0",
        "romFilename Tetris",
        f"romChecksum base64:{MD5_B64}",
    ]
    assert lines[5].startswith("guid ")
    assert lines[6:] == [
        "fourscore 0",
        "microphone 0",
        "port0 1",
        "port1 0",
        "port2 0",
        "FDS 0",
        "NewPPU 0",
        f"comment nesbot {__version__}",
        f"comment emulator nes-py {importlib.metadata.version('nes-py')}",
        "comment frames fceux",
        "comment start_level 19",
        "comment seed 7",
        "comment result " + "unfinished".ljust(120),  # overwritten by record_result
        "|0|........|||",
        "|0|.......A|||",
        "|0|R......A|||",
        "",
    ]


def test_guid_is_deterministic(tmp_path: Path) -> None:
    def guid(name: str, comments: list[str]) -> str:
        path = tmp_path / name
        write_fm2(path, b"\x00", MD5, comments)
        return dict(read_fm2(path).header)["guid"]

    assert guid("a.fm2", ["seed 1"]) == guid("b.fm2", ["seed 1"])
    assert guid("a.fm2", ["seed 1"]) != guid("c.fm2", ["seed 2"])


# deadline=None: each example writes and reads a file, whose time depends on the disk.
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    frames=st.binary(min_size=1, max_size=2000),
    md5=st.binary(min_size=16, max_size=16),
    comments=st.lists(
        st.text(st.characters(blacklist_characters="\r\n", blacklist_categories=["Cs"])),
        max_size=4,
    ),
)
def test_round_trip(tmp_path: Path, frames: bytes, md5: bytes, comments: list[str]) -> None:
    path = tmp_path / "round.fm2"
    write_fm2(path, frames, md5.hex(), comments)
    log = read_fm2(path)
    assert log.frames == frames
    assert log.rom_md5 == md5.hex()
    assert log.comments[0] == f"nesbot {__version__}"
    assert log.comments[2:-1] == ("frames fceux", *comments)
    assert log.comments[-1].rstrip() == "result unfinished"
    assert not log.counts_steps
    assert log.recorded_result() is None
    log.check_rom(md5.hex())


def test_the_result_is_written_in_place_when_the_log_closes(tmp_path: Path) -> None:
    path = tmp_path / "game.fm2"
    with Fm2Writer(path, MD5, ["result of a user's own"]) as writer:
        for pad in (0, 8, 0):
            writer.write_frame(pad)
        writer.record_result({"score": 999_999, "lines": 230, "frames": 3, "steps": 24_003})
    log = read_fm2(path)
    assert log.frames == bytes([0, 8, 0])
    assert log.recorded_result() == {"score": 999_999, "lines": 230, "frames": 3, "steps": 24_003}
    path.write_text(path.read_text().replace("score=999999", "score=x"))
    with pytest.raises(NesbotError, match="garbled"):
        read_fm2(path).recorded_result()


def test_writer_context_manager(tmp_path: Path) -> None:
    path = tmp_path / "game.fm2"
    with Fm2Writer(path, MD5.upper(), ["seed 7"]) as writer:
        # The header is on disk before any frame, so a crash right away leaves a known file
        # (beside the path: it is renamed into place when closed).
        assert not path.exists()
        assert Path(writer.partial_path).parent == tmp_path
        assert Path(writer.partial_path).read_text().startswith("version 3\n")
        for pad in (0, 8, 0):
            writer.write_frame(pad)
        assert writer.frames_written == 3
    assert writer.closed
    writer.close()
    with pytest.raises(ValueError):
        writer.write_frame(0)
    log = read_fm2(path)
    assert log.frames == b"\x00\x08\x00"
    assert log.rom_md5 == MD5
    assert log.comment_value("seed") == "7"


def test_writer_flushes_whole_lines_while_running(tmp_path: Path) -> None:
    path = tmp_path / "game.fm2"
    pads = bytes(i & 0xFF for i in range(2 * FLUSH_EVERY + 234))
    # (frames written, frames a reader finds on disk then, as after a kill): whole batches
    batches = ((FLUSH_EVERY, FLUSH_EVERY), (2 * FLUSH_EVERY + 100, 2 * FLUSH_EVERY))
    with Fm2Writer(path, MD5) as writer:
        for written, on_disk in batches:
            for pad in pads[writer.frames_written : written]:
                writer.write_frame(pad)
            assert read_fm2(writer.partial_path).frames == pads[:on_disk]
        for pad in pads[writer.frames_written :]:
            writer.write_frame(pad)
    assert read_fm2(path).frames == pads


def test_writer_closes_on_keyboard_interrupt(tmp_path: Path) -> None:
    path = tmp_path / "game.fm2"
    with pytest.raises(KeyboardInterrupt), Fm2Writer(path, MD5) as writer:
        for _ in range(10):
            writer.write_frame(0x40)
        raise KeyboardInterrupt
    assert read_fm2(path).frames == b"\x40" * 10


def test_writer_refuses_bad_arguments(tmp_path: Path) -> None:
    path = tmp_path / "game.fm2"
    with pytest.raises(ValueError, match="32 hex digits"):
        Fm2Writer(path, "abc")
    with pytest.raises(ValueError, match="single line"):
        Fm2Writer(path, MD5, ["two\nlines"])
    with pytest.raises(ValueError, match="one word"):
        Fm2Writer(path, MD5, [("two words", "x")])
    with Fm2Writer(path, MD5) as writer, pytest.raises(ValueError):
        writer.write_frame(300)


def test_a_log_stopped_by_an_error_leaves_the_older_one(tmp_path: Path) -> None:
    path = tmp_path / "game.fm2"
    path.write_bytes(b"an older log")
    with pytest.raises(RuntimeError), Fm2Writer(path, MD5) as writer:
        writer.write_frame(0x40)
        raise RuntimeError("the game failed")
    assert path.read_bytes() == b"an older log"
    assert sorted(tmp_path.iterdir()) == [path]  # no partial file left


def test_writer_cannot_open(tmp_path: Path) -> None:
    with pytest.raises(NesbotError, match="cannot write"):
        Fm2Writer(tmp_path / "no" / "such" / "dir.fm2", MD5)


def test_input_log_is_frozen() -> None:
    log = parse_fm2(log_text("|0|........|||"))
    assert isinstance(log, InputLog)
    with pytest.raises(AttributeError):
        log.frames = b""  # type: ignore[misc]


# --- garbage never escapes as another exception ---------------------------------------------

PIECES = [
    "version 3",
    "version 3 ",
    "palFlag 0",
    "port0 1",
    "romChecksum base64:",
    "romChecksum 0x",
    "comment ",
    "|",
    "||",
    "|0|",
    "|0|........|||",
    "|1|RLDUTSBA|||",
    "........",
    "\r",
    "\n",
    " ",
    "\ufeff",
    "0",
    "255",
    "9999",
]


@settings(max_examples=300)
@given(st.text())
def test_garbage_text(text: str) -> None:
    with contextlib.suppress(NesbotError):
        parse_fm2(text)


@settings(max_examples=300)
@given(st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=12)), max_size=40))
def test_garbage_pieces(pieces: list[str]) -> None:
    try:
        log = parse_fm2("".join(pieces))
    except NesbotError:
        return
    assert len(log.frames) >= 1


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.binary(max_size=300))
def test_garbage_file(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "garbage.fm2"
    path.write_bytes(data)
    with contextlib.suppress(NesbotError):
        read_fm2(path)


def test_an_endless_or_huge_log_is_refused_without_being_read_whole(tmp_path: Path) -> None:
    """A log symlinked to /dev/zero once was read until memory ran out."""
    from nesbot.nes.fm2 import MAX_LOG_BYTES

    endless = tmp_path / "endless.fm2"
    endless.symlink_to("/dev/zero")
    with pytest.raises(NesbotError, match=f"larger than {MAX_LOG_BYTES:,} bytes"):
        read_fm2(endless)
