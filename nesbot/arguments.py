"""Arguments checked alike for the command line and the Python API: the CLI's parser
turns "19" into 19 and refuses "1.5", so the API must refuse what is no whole number, no
path or no crop itself, or a comparison deep inside would raise a TypeError, or a seed of
1.5 would play; and the worker count every command takes, bounded by the machine."""

import os

from nesbot.errors import NesbotError


def check_path(name: str, value: object) -> None:
    """NesbotError naming the argument unless `value` is a path (a str or an os.PathLike)."""
    if not isinstance(value, (str, os.PathLike)):
        raise NesbotError(f"{name} {value!r}: a path is needed")


def check_whole(name: str, value: object) -> int:
    """`value`, if it is an int (True and False are not: they are no count or seed);
    NesbotError naming the argument otherwise."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise NesbotError(f"{name} {value!r}: a whole number is needed")
    return value


def check_crop(crop: object) -> None:
    """NesbotError unless `crop` is None or four numbers (x, y, width, height); their
    values are Geometry.of_crop's to judge."""
    if crop is not None and not (
        isinstance(crop, tuple)
        and len(crop) == 4
        and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in crop)
    ):
        raise NesbotError(f"crop {crop!r}: four numbers (x, y, width, height)")


# Processes a CPU: more are never faster, and each holds the simulator's tables or an
# emulator (tens of MB), so a typo's 100000 must not start that many.
WORKERS_PER_CPU = 4


def max_workers() -> int:
    """The most processes a command runs on this machine."""
    return WORKERS_PER_CPU * (os.cpu_count() or 1)


def check_workers(workers: int) -> None:
    """NesbotError unless `workers` is 1 to max_workers()."""
    if not 1 <= check_whole("workers", workers) <= max_workers():
        raise NesbotError(
            f"--workers {workers}: need 1 to {max_workers()} "
            f"({WORKERS_PER_CPU} a CPU on this machine's {os.cpu_count() or 1})"
        )
