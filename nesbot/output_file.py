"""Every file nesbot writes, written so that nothing is lost: checked before the work, written
beside its target under a temporary name, and renamed into place only when complete.

What callers must know:

- `check_output(path, what)` fails now, with one line, if `path` could not be replaced: its
  directory is missing or not writable, or it is something else than a regular file (a
  directory, a device such as /dev/null or /dev/full, a FIFO), or it lies inside nesbot's
  own package, whose data files (built-in weights, value models) commands read as inputs
  they do not name. Call it before long work.
- `check_distinct(inputs, outputs)` refuses a command whose output is one of its inputs or
  another of its outputs (the same file by any name: symlinks and hard links included).
- `OutputFile(path, what)` is the file being written: a temporary file beside the target,
  named ``STEM.partial-XXXXXXXX.SUFFIX`` (the suffix kept, so that the writers that choose a
  format by it still do). `commit()` renames it over the target, `discard()` removes it; as
  a context manager it commits when the block ends normally or by Ctrl-C (what was written
  so far is a complete file) and discards on any other exception, so the old file stays
  (`end_of_block`, which the log and video writers follow too).
  Its `write()` and the commit raise only NesbotError, naming the file and the fault; an
  error while closing after a first one never hides it.
- `write_output(path, what, data)` writes a whole file at once that way: the one call a new
  output option needs (a report, a table).

A symlink as the target is followed: the file it points to is replaced, the link kept. A
process killed outright leaves the partial file beside the target, the target untouched.
"""

import contextlib
import os
import secrets
import stat
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Self

from nesbot.errors import NesbotError

PARTIAL_MARK = ".partial-"
# nesbot's own package: its data files are inputs of most commands (the built-in weights,
# value models, the surface table), named by no option, so check_distinct cannot see them.
PACKAGE = Path(os.path.realpath(__file__)).parent


def _fault(what: str, path: str | os.PathLike[str], error: OSError) -> NesbotError:
    return NesbotError(f"cannot write {what} {os.fspath(path)}: {error.strerror or error}")


def check_output(path: str | os.PathLike[str], what: str, ours: Path | None = None) -> Path:
    """The file `path` names (symlinks followed), once it is known that it can be replaced;
    NesbotError naming the reason otherwise. Leaves everything as it was. `ours` is the one
    file of nesbot's package this output may replace (surface-table builds the shipped
    table, and reads none of the package's files)."""
    given = os.fspath(path)
    target = Path(os.path.realpath(given))
    folder = target.parent
    if target.is_relative_to(PACKAGE) and (ours is None or target != Path(os.path.realpath(ours))):
        raise NesbotError(
            f"cannot write {what} {given}: it is inside nesbot's own package {PACKAGE}, "
            "whose files nesbot reads; write it elsewhere"
        )
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        mode = None
    except OSError as error:
        raise _fault(what, given, error) from None
    if mode is not None and stat.S_ISDIR(mode):
        raise NesbotError(f"cannot write {what} {given}: it is a directory")
    if mode is not None and not stat.S_ISREG(mode):
        raise NesbotError(
            f"cannot write {what} {given}: it is not a regular file (a device or a pipe), "
            "and nesbot replaces only files"
        )
    if not folder.is_dir():
        raise NesbotError(f"cannot write {what} {given}: the directory {folder} does not exist")
    # Tried, not asked (os.access): root passes any permission check, yet a read-only or
    # virtual file system (/proc) still refuses a new file.
    descriptor, probe = _create_beside(target, what, given)
    os.close(descriptor)
    with contextlib.suppress(OSError):
        os.unlink(probe)
    return target


def _create_beside(target: Path, what: str, given: str) -> tuple[int, Path]:
    """A new file, open for writing, in the target's directory, named after it; its
    descriptor and path."""
    stem, suffix = os.path.splitext(target.name)
    while True:
        temporary = target.parent / f"{stem}{PARTIAL_MARK}{secrets.token_hex(4)}{suffix}"
        try:
            # 0o666 and the umask, as any new file gets (mkstemp would give 0o600).
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
            return os.open(temporary, flags, 0o666), temporary
        except FileExistsError:
            continue
        except OSError as error:
            raise NesbotError(
                f"cannot write {what} {given}: the directory {target.parent} refuses new "
                f"files ({error.strerror or error})"
            ) from None


def file_identity(path: str) -> tuple[int, int] | str:
    """What tells two names of one file apart from two files, and a file renamed into place
    from the one it replaced: its device and inode when it exists, else where it would be."""
    try:
        found = os.stat(path)
    except OSError:
        return os.path.realpath(path)
    return found.st_dev, found.st_ino


def check_distinct(
    inputs: dict[str, str | os.PathLike[str] | None],
    outputs: dict[str, str | os.PathLike[str] | None],
) -> None:
    """Refuse, before any work, an output that is also an input or another output. Keys
    name the options as the user gave them (``"LOG"``, ``"--trace"``); None values are
    options not given."""
    seen: dict[tuple[int, int] | str, str] = {}
    for name, path in inputs.items():
        if path is not None:
            seen.setdefault(file_identity(os.fspath(path)), name)
    for name, path in outputs.items():
        if path is None:
            continue
        given = os.fspath(path)
        identity = file_identity(given)
        if identity in seen:
            raise NesbotError(
                f"{name} {given} is also {seen[identity]}: give each output its own path, "
                "and never an input's"
            )
        seen[identity] = name


class OutputFile:
    """A file being written beside `path`, renamed over it by commit() (see the module)."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        what: str,
        binary: bool = False,
        buffering: int = -1,
        ours: Path | None = None,
    ) -> None:
        self.path = os.fspath(path)
        self.what = what
        self.target = check_output(path, what, ours)
        descriptor, self.temporary = _create_beside(self.target, what, self.path)
        encoding = None if binary else "utf-8"
        self._file: IO[Any] = os.fdopen(
            descriptor, "wb" if binary else "w", buffering=buffering, encoding=encoding
        )
        self._done = False

    @property
    def file(self) -> IO[Any]:
        """The open temporary file, for writers that take a file object (its OSErrors are
        the caller's to turn into NesbotError, e.g. by writing through write())."""
        return self._file

    def by_name(self) -> Path:
        """Close the file and give its temporary name, for a writer that opens it itself
        (PyAV, a PNG encoder); commit() then renames whatever it left there."""
        with contextlib.suppress(OSError):
            self._file.close()
        return self.temporary

    def write(self, data: Any) -> None:
        try:
            self._file.write(data)
        except OSError as error:
            raise _fault(self.what, self.path, error) from None

    def flush(self) -> None:
        try:
            self._file.flush()
        except OSError as error:
            raise _fault(self.what, self.path, error) from None

    def commit(self) -> None:
        """Close the file and rename it over the target: the target is the new file, whole,
        or (on a fault, said as NesbotError) the old one, untouched."""
        if self._done:
            return
        try:
            self._file.close()
            os.replace(self.temporary, self.target)
        except OSError as error:
            self.discard()
            raise _fault(self.what, self.path, error) from None
        self._done = True

    def discard(self) -> None:
        """Remove the temporary file, quietly: the caller is already dealing with a fault."""
        self._done = True
        with contextlib.suppress(OSError):
            self._file.close()
        with contextlib.suppress(OSError):
            os.unlink(self.temporary)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        end_of_block(lambda keep: self.commit() if keep else self.discard(), exc_type)


def end_of_block(finish: Callable[[bool], None], exc_type: type[BaseException] | None) -> None:
    """Finish an output as its `with` block ends: `finish(True)` keeps it, at a normal end
    and at Ctrl-C (or a closed window: what was written so far is a whole file);
    `finish(False)` drops it after any other exception, so an older file stays. A fault
    while finishing is raised only when no exception is already on its way, which it
    would otherwise bury."""
    keep = exc_type is None or issubclass(exc_type, KeyboardInterrupt)
    try:
        finish(keep)
    except NesbotError:
        if exc_type is None:
            raise


def write_output(path: str | os.PathLike[str], what: str, data: str | bytes) -> None:
    """Write a whole file (text as UTF-8) so that a fault leaves the old one as it was.
    `what` names it in errors: ``cannot write WHAT PATH: reason``."""
    with OutputFile(path, what, binary=isinstance(data, bytes)) as out:
        out.write(data)
