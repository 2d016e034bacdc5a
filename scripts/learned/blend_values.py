"""Blend two value models of one tap rate into one: what each adds to the evaluation
(scale x table) mixed by a weight, written with the first model's scale.

A model's value is a sum of table entries (nesbot.bot.value_model), so the blend of the
tables is the blend of the values: `--weight 0.3` plays 30% of the second model's judgement
and 70% of the first's. Used to trade the 20 Hz model's points for the survival of the
15 Hz table played at 20 Hz (docs/strength-log.md, "Toward 85% at 20 Hz").

    python scripts/learned/blend_values.py FIRST.json SECOND.json --weight 0.5 --out OUT.json
"""

import argparse
import sys
from dataclasses import replace

from nesbot.bot.value_model import ValueModelFile, load_value_model, save_value_model
from nesbot.errors import NesbotError


def blend(
    first: ValueModelFile, second: ValueModelFile, weight: float, provenance: dict
) -> ValueModelFile:
    """`first` and `second` mixed (1 - weight : weight), at `first`'s scale."""
    if (first.tap_hz, first.from_level, first.at_leaves, first.goal_level) != (
        second.tap_hz,
        second.from_level,
        second.at_leaves,
        second.goal_level,
    ):
        raise NesbotError(
            "the two models differ in tap rate, first level, where they play or goal level"
        )
    ratio = second.scale / first.scale
    table = tuple(
        (1 - weight) * a + weight * ratio * b
        for a, b in zip(first.table, second.table, strict=True)
    )
    return replace(first, table=table, provenance=provenance)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("first")
    parser.add_argument("second")
    parser.add_argument("--weight", type=float, required=True, help="the second model's share")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    try:
        if not 0 <= args.weight <= 1:
            raise NesbotError(f"--weight {args.weight} is not between 0 and 1")
        first, second = load_value_model(args.first), load_value_model(args.second)
        provenance = {
            "source": "scripts/learned/blend_values.py",
            "command": " ".join(["python", *sys.argv]),
            "first": args.first,
            "second": args.second,
            "weight": args.weight,
        }
        save_value_model(blend(first, second, args.weight, provenance), args.out)
    except NesbotError as error:
        print(f"blend_values.py: error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
