"""Reading an input file: one that is not a regular file said as it is; read with a bound,
so that no file, however large or endless (a symlink to /dev/zero), makes nesbot hold more
of it than the limit its reader states; and its JSON, whatever the text, parsed into a
value or one NesbotError."""

import json
import os
from typing import Any

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


def check_input_file(path: str | os.PathLike[str], what: str) -> None:
    """NesbotError, naming the file as `what`, unless it is a regular file: missing, a
    directory, or a device or pipe (which could be endless) each said as it is."""
    given = os.fspath(path)
    if os.path.isdir(given):
        raise NesbotError(f"cannot read {what} {given}: it is a directory")
    if not os.path.exists(given):
        raise NesbotError(f"cannot read {what} {given}: no such file")
    if not os.path.isfile(given):
        raise NesbotError(f"cannot read {what} {given}: it is not a regular file")


def parse_json(text: str | bytes, where: str) -> Any:
    """The JSON value `text` holds (Any, as json.loads gives it: the caller checks it);
    NesbotError "`where` is not valid JSON (why)" for text that is not JSON or that Python
    cannot hold: json.loads raises a RecursionError for nesting thousands deep
    ('[' * 100000) and a plain ValueError for an integer of over 4,300 digits (int's own
    limit), besides JSONDecodeError. Every JSON reader of nesbot parses through here, so
    no data file ends in a traceback."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        why = f"{e.msg} at line {e.lineno}"
    except RecursionError:  # the parser recurses once per level of nesting
        why = "nested too deeply"
    except ValueError as e:  # the digits limit, or bytes that are no Unicode text
        why = str(e).split(":")[0]  # without the advice to raise the limit
    raise NesbotError(f"{where} is not valid JSON ({why})")
