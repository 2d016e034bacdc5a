"""The Python API's whole-number arguments checked as the command line's are: the CLI's
parser turns "19" into 19 and refuses "1.5", so the API must refuse what is no whole number
itself, or a comparison deep inside would raise a TypeError, or a seed of 1.5 would play."""

from nesbot.errors import NesbotError


def check_whole(name: str, value: object) -> int:
    """`value`, if it is an int (True and False are not: they are no count or seed);
    NesbotError naming the argument otherwise."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise NesbotError(f"{name} {value!r}: a whole number is needed")
    return value
