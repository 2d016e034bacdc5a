"""The Python API's whole-number arguments checked as the command line's are: the CLI's
parser turns "19" into 19 and refuses "1.5", so the API must refuse what is no whole number
itself, or a comparison deep inside would raise a TypeError, or a seed of 1.5 would play."""

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
