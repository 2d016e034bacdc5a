"""Read and write game input logs in FCEUX's text movie format (.fm2, version 3).

A movie holds one pad byte (nes-py's bit order) per NES frame counted from power-on, as
FCEUX counts them: that is the format FCEUX, TASVideos and replay devices use, and what nesbot
writes. nes-py's step is not an NES frame (docs/steps.md); nesbot.nes.polls maps one to the
other. Logs nesbot wrote before it did so hold one line per nes-py step instead:
`InputLog.counts_steps` tells them apart (their first comment ``nesbot <version>`` without the
mark ``frames fceux``, or the header line ``comment steps nes-py`` that other tools write).
What callers must know:

- `parse_fm2` / `read_fm2` raise only `NesbotError`, with one sentence naming the source and
  the line, for anything nesbot cannot replay exactly: PAL logs, savestate starts, resets after
  the first frame, other controllers than a gamepad on port 0, cut or malformed lines. The
  port1/port2 fields of input lines are not read: nesbot plays with one gamepad.
- ROM identity uses FCEUX's md5 (`fceux_rom_md5`: PRG+CHR, without the 16-byte iNES header),
  not the md5 of the .nes file, so that logs written by FCEUX itself are accepted.
- `Fm2Writer` keeps the file a readable log while a game runs: the header is written at once,
  frames reach the OS in batches of whole lines (at least every `FLUSH_EVERY` frames). It
  writes beside its path (`partial_path`, nesbot.output_file) and close() renames the log
  into place; the context manager closes it on a normal end and on KeyboardInterrupt, and
  discards it on any other exception, leaving an older file at the path as it was. A log
  closed before its first frame has no input lines and does not read back.
- Every log written starts with the comments ``nesbot <version>``, the emulator that played
  it and the mark of what its lines count (``frames fceux``, or ``steps nes-py`` for a log
  of steps), before the caller's comments, and ends its comments with ``result``:
  ``result unfinished`` (padded with spaces) while the game runs, overwritten in place by
  `Fm2Writer.record_result` when the log is closed, e.g.
  ``result score=999999 lines=321 level=38 pieces=834 frames=33835 steps=57851``. Replay
  reads it back (`InputLog.recorded_result`) to say whether the game replays as recorded.
"""

import base64
import binascii
import hashlib
import importlib.metadata
import os
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from types import TracebackType
from typing import Self

from nesbot._core.buttons import FM2_LETTERS, describe
from nesbot._version import __version__
from nesbot.errors import NesbotError
from nesbot.input_file import read_at_most
from nesbot.output_file import OutputFile, end_of_block

__all__ = [
    "FLUSH_EVERY",
    "FRAMES_MARK",
    "RESULT_KEY",
    "STEPS_MARK",
    "Fm2Writer",
    "InputLog",
    "fceux_rom_md5",
    "format_pad",
    "parse_fm2",
    "parse_pad",
    "read_fm2",
    "write_fm2",
]

# The comments that say what a log's lines count: NES frames as FCEUX counts them, or
# nes-py's steps (a contract: other tools write it too).
FRAMES_MARK = "frames fceux"
STEPS_MARK = "steps nes-py"
_NESBOT_KEY = "nesbot"

# Ten seconds of NTSC frames: an interrupted run loses at most this much of its log.
FLUSH_EVERY = 600

# Larger than FLUSH_EVERY input lines (15 bytes each), so the buffer never spills on its own:
# the OS only ever receives whole lines and a killed process leaves no cut line behind.
_BUFFER_SIZE = 1 << 16
RESULT_KEY = "result"
_RESULT_UNFINISHED = "unfinished"
_RESULT_WIDTH = 120  # the result comment's text, padded: room for every field's digits

_CMD_SOFT_RESET = 1
_CMD_POWER = 2
_RELEASED = ". "
_EXPECTED_LINE = "|0|........|||"
_MAX_SHOWN = 24


def _show(text: str) -> str:
    """Quote a piece of a line for an error message, escaped and kept short."""
    if len(text) > _MAX_SHOWN:
        text = text[:_MAX_SHOWN] + "..."
    return repr(text)


def format_pad(pad: int) -> str:
    """Return a nes-py pad byte as the 8-character fm2 pad field, e.g. 'R......A'."""
    if not 0 <= pad <= 0xFF:
        raise ValueError(f"pad byte {pad} is outside 0..255")
    return describe(pad)


def parse_pad(field: str, line_no: int, source: str) -> int:
    """Return the nes-py pad byte of an fm2 pad field ('.' or space = released)."""
    if len(field) != len(FM2_LETTERS):
        raise NesbotError(
            f"{source} line {line_no}: the pad field {_show(field)} has {len(field)} "
            f"characters, expected {len(FM2_LETTERS)} ({FM2_LETTERS})"
        )
    pad = 0
    for index, char in enumerate(field):
        # FCEUX counts any character but '.' and space as pressed, whatever the letter.
        if char not in _RELEASED:
            pad |= 0x80 >> index
    return pad


def fceux_rom_md5(rom: bytes) -> str:
    """Return the md5 FCEUX records as romChecksum for an iNES image (hex).

    FCEUX hashes the PRG and CHR banks only, so the header (and a trainer) are skipped.
    """
    if len(rom) < 16 or rom[:4] != b"NES\x1a":
        raise NesbotError("the ROM is not an iNES image (it does not start with 'NES\\x1a')")
    start = 16 + (512 if rom[6] & 0x04 else 0)
    size = rom[4] * 0x4000 + rom[5] * 0x2000
    if len(rom) < start + size:
        raise NesbotError(
            f"the ROM is {len(rom)} bytes, shorter than the {start + size} its iNES header says"
        )
    return hashlib.md5(rom[start : start + size]).hexdigest()


@dataclass(frozen=True)
class InputLog:
    """A parsed .fm2 log: one nes-py pad byte per frame from power-on."""

    frames: bytes
    header: tuple[tuple[str, str], ...]
    comments: tuple[str, ...]
    rom_md5: str | None
    source: str

    def comment_value(self, key: str) -> str | None:
        """Return the value of the first ``comment <key> <value>`` line, or None."""
        for comment in self.comments:
            found, _, value = comment.partition(" ")
            if found == key:
                return value
        return None

    @property
    def counts_steps(self) -> bool:
        """The log holds one line per nes-py step, not per NES frame: it says so (``comment
        steps nes-py``), or nesbot wrote it before its logs counted frames (a first comment
        ``nesbot <version>`` without ``frames fceux``)."""
        if STEPS_MARK in self.comments:
            return True
        written_by_nesbot = bool(self.comments) and self.comments[0].startswith(_NESBOT_KEY + " ")
        return written_by_nesbot and FRAMES_MARK not in self.comments

    def recorded_result(self) -> dict[str, int] | None:
        """The figures the log's ``result`` comment recorded when the game ended, or None
        (an older log, or a game that never finished: its writer was killed)."""
        # The last result comment: the writer's, after any of the caller's comments.
        values = [c.partition(" ")[2] for c in self.comments if c.partition(" ")[0] == RESULT_KEY]
        value = values[-1].strip() if values else ""
        if not value or value == _RESULT_UNFINISHED:
            return None
        try:
            return {key: int(number) for key, number in (f.split("=") for f in value.split())}
        except ValueError:
            raise NesbotError(f"{self.source}: the result comment {value!r} is garbled") from None

    def check_rom(self, md5_hex: str, *also_accepted: str) -> None:
        """Refuse a ROM other than the one the log was recorded with (see `fceux_rom_md5`).

        `also_accepted` lists other digests of the same ROM that count as a match (tools
        differ on whether romChecksum hashes the whole file or only PRG and CHR).
        """
        accepted = {md5.lower() for md5 in (md5_hex, *also_accepted)}
        if self.rom_md5 is not None and self.rom_md5 not in accepted:
            raise NesbotError(
                f"{self.source} was recorded with ROM md5 {self.rom_md5} (romChecksum), "
                f"but this ROM's md5 is {md5_hex.lower()}"
            )


def _decode_checksum(value: str, line_no: int, source: str) -> str:
    value = value.strip()
    try:
        # FCEUX writes base64 but reads both of its binary-to-text forms.
        if value.startswith("base64:"):
            digest = base64.b64decode(value.removeprefix("base64:"), validate=True)
        elif value[:2] in ("0x", "0X"):
            digest = bytes.fromhex(value[2:])
        else:
            digest = b""
    except (binascii.Error, ValueError):
        digest = b""
    if len(digest) != 16:
        raise NesbotError(
            f"{source} line {line_no}: romChecksum {_show(value)} is not an md5 "
            "written as 'base64:...' or '0x...'"
        )
    return digest.hex()


def _check_header(key: str, value: str, line_no: int, source: str) -> None:
    """Refuse header settings under which a power-on NTSC replay would not match."""
    setting = value.strip()
    where = f"{source} line {line_no}"
    if key == "version" and setting != "3":
        raise NesbotError(f"{where}: version {_show(setting)} is not supported, expected 3")
    if key == "palFlag" and setting != "0":
        if setting == "1":
            raise NesbotError(f"{where}: the log is for a PAL console, but nesbot is NTSC only")
        raise NesbotError(f"{where}: palFlag {_show(setting)} is not 0 or 1")
    if key == "port0" and setting != "1":
        raise NesbotError(f"{where}: port0 is {_show(setting)}, but nesbot needs a gamepad (1)")
    if key == "fourscore" and setting != "0":
        raise NesbotError(f"{where}: the log uses a Four Score, but nesbot plays with one pad")
    if key == "binary" and setting != "0":
        raise NesbotError(f"{where}: binary input records are not supported, only text lines")
    if key == "savestate" and setting:
        raise NesbotError(
            f"{where}: the log starts from a savestate, but nesbot replays from power-on only"
        )


def _parse_input_line(
    line: str, line_no: int, source: str, frame: int, unterminated: bool
) -> tuple[int, str]:
    """Return the commands and the pad field of one input line."""
    line = line.rstrip(" \t")
    bars = line.count("|")
    if unterminated and bars < _EXPECTED_LINE.count("|"):
        raise NesbotError(
            f"{source} line {line_no} is truncated: the file ends before its closing '|'"
        )
    if bars != _EXPECTED_LINE.count("|"):
        raise NesbotError(
            f"{source} line {line_no} has {bars} '|' separators, expected 5 as in "
            f"'{_EXPECTED_LINE}' (|commands|port0|port1|port2|)"
        )
    if not line.endswith("|"):
        raise NesbotError(f"{source} line {line_no} has text after its last '|'")
    _, commands_field, pad_field, _, _, _ = line.split("|")
    # Checked before int() so that signs, underscores and non-ASCII digits are refused too.
    if not (commands_field.isascii() and commands_field.isdigit() and len(commands_field) <= 3):
        raise NesbotError(
            f"{source} line {line_no}: the commands field {_show(commands_field)} is not an "
            "integer from 0 to 255"
        )
    commands = int(commands_field)
    if commands > 0xFF:
        raise NesbotError(
            f"{source} line {line_no}: the commands field {commands} is not an integer "
            "from 0 to 255"
        )
    # A reset or power command on the first frame is where the movie starts: power-on.
    if frame and commands & (_CMD_SOFT_RESET | _CMD_POWER):
        kind = "power cycle" if commands & _CMD_POWER else "soft reset"
        raise NesbotError(
            f"{source} line {line_no}: frame {frame} needs a {kind} (command {commands}), "
            "but nesbot replays from power-on only"
        )
    return commands, pad_field


def parse_fm2(text: str, source: str = "<string>") -> InputLog:
    """Parse the text of a version 3 .fm2 log; raise NesbotError if nesbot cannot replay it."""
    lines = text.removeprefix("\ufeff").split("\n")
    last_index = len(lines) - 1
    header: list[tuple[str, str]] = []
    comments: list[str] = []
    rom_md5: str | None = None
    version_seen = False
    first_input_line = 0
    frames = bytearray()
    # A game has a few hundred thousand frames but only a handful of distinct pad fields.
    pads: dict[str, int] = {}

    for index, raw in enumerate(lines):
        line_no = index + 1
        line = raw.removesuffix("\r")
        if not line.strip():
            continue
        if line.startswith("|"):
            if not first_input_line:
                if not version_seen:
                    raise NesbotError(
                        f"{source} line {line_no}: the input lines start before any "
                        "'version 3' header line"
                    )
                first_input_line = line_no
            unterminated = index == last_index
            _, pad_field = _parse_input_line(
                line, line_no, source, frame=len(frames), unterminated=unterminated
            )
            pad = pads.get(pad_field)
            if pad is None:
                pad = pads[pad_field] = parse_pad(pad_field, line_no, source)
            frames.append(pad)
            continue

        key, _, value = line.partition(" ")
        if first_input_line:
            raise NesbotError(
                f"{source} line {line_no}: header line {_show(key)} comes after the input "
                f"lines that start at line {first_input_line}; headers must come first"
            )
        if not key:
            raise NesbotError(
                f"{source} line {line_no}: header line {_show(line)} starts with a space, "
                "expected 'key value'"
            )
        _check_header(key, value, line_no, source)
        if key == "comment":
            comments.append(value)
            continue
        if key == "version":
            version_seen = True
        elif key == "romChecksum":
            rom_md5 = _decode_checksum(value, line_no, source)
        header.append((key, value))

    if not frames:
        line_count = len(lines) - (lines[-1] == "")
        raise NesbotError(
            f"{source} has no input lines (lines starting with '|') in its {line_count} "
            "lines, so there are no frames to replay"
        )
    return InputLog(
        frames=bytes(frames),
        header=tuple(header),
        comments=tuple(comments),
        rom_md5=rom_md5,
        source=source,
    )


# The largest input log read: a line is ~15 bytes, so this is ten days of frames; a larger
# file is not a game's log and is not read whole.
MAX_LOG_BYTES = 256 << 20


def read_fm2(path: str | os.PathLike[str]) -> InputLog:
    """Read and parse a .fm2 file; raise NesbotError if it cannot be read or replayed."""
    source = os.fspath(path)
    try:
        data = read_at_most(path, MAX_LOG_BYTES, "input log")
    except OSError as error:
        raise NesbotError(f"cannot read {source}: {error.strerror or error}") from error
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line_no = data.count(b"\n", 0, error.start) + 1
        raise NesbotError(
            f"{source} line {line_no}: byte {error.start} is not UTF-8 text, so this is not "
            "a text .fm2 log"
        ) from error
    return parse_fm2(text, source)


def _comment_texts(
    comments: Iterable[tuple[str, str]] | Iterable[str], counts_steps: bool
) -> list[str]:
    texts = [
        f"{_NESBOT_KEY} {__version__}",
        f"emulator nes-py {importlib.metadata.version('nes-py')}",
        STEPS_MARK if counts_steps else FRAMES_MARK,
    ]
    for comment in comments:
        if isinstance(comment, str):
            text = comment
        else:
            key, value = comment
            # A key with a space would be split differently when the log is read back.
            if not key or key != key.strip() or " " in key:
                raise ValueError(f"comment key {key!r} must be one word")
            text = f"{key} {value}"
        if "\n" in text or "\r" in text:
            raise ValueError(f"comment {text!r} must be a single line")
        texts.append(text)
    return texts


class Fm2Writer:
    """Write a .fm2 log line by line while a game runs; use it as a context manager.

    Its lines are NES frames as FCEUX counts them (nesbot.nes.polls.FrameRecorder turns
    nes-py's steps into them), or with `counts_steps` nes-py's steps, marked as such.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        rom_md5_hex: str,
        comments: Iterable[tuple[str, str]] | Iterable[str] = (),
        counts_steps: bool = False,
    ) -> None:
        try:
            digest = bytes.fromhex(rom_md5_hex)
        except ValueError:
            digest = b""
        if len(digest) != 16:
            raise ValueError(f"rom_md5_hex {rom_md5_hex!r} is not 32 hex digits")
        texts = _comment_texts(comments, counts_steps)
        self.path = os.fspath(path)
        self.frames_written = 0
        guid = uuid.uuid5(uuid.NAMESPACE_URL, "nesbot:" + digest.hex() + "\n" + "\n".join(texts))
        header = [
            "version 3",  # no emuVersion: no FCEUX made it (the comments say what did)
            "rerecordCount 0",
            "palFlag 0",
            "romFilename Tetris",
            "romChecksum base64:" + base64.b64encode(digest).decode("ascii"),
            f"guid {str(guid).upper()}",
            "fourscore 0",
            "microphone 0",
            "port0 1",
            "port1 0",
            "port2 0",
            "FDS 0",
            "NewPPU 0",
            *(f"comment {text}" for text in texts),
        ]
        # The result's line goes last among the comments; close() overwrites it in place.
        self._result_offset = len(("\n".join(header) + "\n").encode("utf-8"))
        self._result: dict[str, int] | None = None
        header.append(_result_line(_RESULT_UNFINISHED))
        self._out = OutputFile(path, "log", binary=True, buffering=_BUFFER_SIZE)
        self._closed = False
        try:
            self._out.write(("\n".join(header) + "\n").encode("utf-8"))
            self._out.flush()
        except BaseException:
            self._out.discard()
            self._closed = True
            raise

    @property
    def partial_path(self) -> str:
        """Where the log is while it is written: renamed to `path` when it is closed."""
        return os.fspath(self._out.temporary)

    @property
    def closed(self) -> bool:
        return self._closed

    def write_frame(self, pad: int) -> None:
        """Append one input line (a nes-py pad byte)."""
        if self._closed:
            raise ValueError(f"write_frame on the closed log {self.path}")
        # One write per line: the buffer holds whole lines only, see _BUFFER_SIZE.
        self._out.write(f"|0|{format_pad(pad)}|||\n".encode("ascii"))
        self.frames_written += 1
        if self.frames_written % FLUSH_EVERY == 0:
            self._out.flush()

    def record_result(self, figures: dict[str, int]) -> None:
        """What the game came to (score, lines, ...): close() writes it into the log's
        ``result`` comment, for replay to check against."""
        self._result = dict(figures)

    def close(self) -> None:
        """Write the result if one was recorded and rename the log into place (over an
        older file at `path`); calling it again does nothing."""
        if self._closed:
            return
        self._closed = True
        try:
            if self._result is not None:
                text = " ".join(f"{key}={value}" for key, value in self._result.items())
                self._out.flush()
                self._out.file.seek(self._result_offset)
                self._out.write(_result_line(text).encode("utf-8"))
        except BaseException:
            self._out.discard()
            raise
        self._out.commit()

    def discard(self) -> None:
        """Close without keeping the log: a file at `path` stays as it was."""
        self._closed = True
        self._out.discard()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        end_of_block(lambda keep: self.close() if keep else self.discard(), exc_type)


def _result_line(text: str) -> str:
    """The result comment's line, always the same length, so that close() can overwrite
    the one written first."""
    if len(text) > _RESULT_WIDTH:
        raise ValueError(f"the result {text!r} is longer than {_RESULT_WIDTH} characters")
    return f"comment {RESULT_KEY} {text.ljust(_RESULT_WIDTH)}"


def write_fm2(
    path: str | os.PathLike[str],
    log_frames: bytes,
    rom_md5_hex: str,
    comments: Iterable[tuple[str, str]] | Iterable[str] = (),
    counts_steps: bool = False,
) -> None:
    """Write a whole log at once (one pad byte per line: NES frames, or with `counts_steps`
    nes-py's steps)."""
    with Fm2Writer(path, rom_md5_hex, comments, counts_steps) as writer:
        for pad in log_frames:
            writer.write_frame(pad)
