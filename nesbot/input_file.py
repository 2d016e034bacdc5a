"""Reading an input file with a bound: no file, however large or endless (a symlink to
/dev/zero), makes nesbot hold more of it than the limit its reader states."""

import os

from nesbot.errors import NesbotError


def read_at_most(path: str | os.PathLike[str], limit: int, what: str) -> bytes:
    """The whole file, if it holds at most `limit` bytes; NesbotError naming it as `what`
    if it holds more (only limit + 1 bytes are read). OSError is the caller's to say."""
    with open(path, "rb") as file:
        data = file.read(limit + 1)
    if len(data) > limit:
        raise NesbotError(
            f"{what} {os.fspath(path)} is larger than {limit:,} bytes: not a file nesbot reads"
        )
    return data
