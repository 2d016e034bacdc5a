"""Two `nesbot simulate --save-games` files of the same seed, compared game by game.

Game i of a seed meets the same start in every run, so the difference of two runs' results
game by game is paired: its standard error is that of the differences, far smaller than
either run's own. Prints, over the games both files hold, each run's figure and B - A with
its standard error: reach level 29 and 39 (points), the score at level 39 (line clears; a
game that ended before counts its end), the pre-29 line clears.

    .venv/bin/python scripts/strength/paired_games.py \\
        results/strength/whole_game_15hz_one_level_seed8000.jsonl \\
        results/strength/whole_game_15hz_value_seed8000.jsonl
"""

import argparse
from pathlib import Path

import numpy as np

from nesbot.errors import NesbotError
from nesbot.lab.saved_games import read_games
from nesbot.lab.statistics import standard_error

FIGURES = {  # name -> a game's value
    "reach level 29 (%)": lambda g: 100.0 * (g["lines_at_29"] is not None),
    "reach level 39 (%)": lambda g: 100.0 * (g["points_at_39"] is not None),
    "score at level 39": lambda g: (
        g["line_points"] if g["line_points_at_39"] is None else g["line_points_at_39"]
    ),
    "pre-29 line clears": lambda g: g["pre29_line_points"],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("a", type=Path)
    parser.add_argument("b", type=Path)
    args = parser.parse_args()
    try:
        run_a, a = read_games(args.a)
        run_b, b = read_games(args.b)
    except NesbotError as e:
        raise SystemExit(f"paired_games.py: {e}") from None
    if (run_a["seed"], run_a["level"]) != (run_b["seed"], run_b["level"]):
        raise SystemExit("the two files are not of the same seed and start level: not paired")
    common = sorted(set(a) & set(b))
    print(f"{len(common)} games of seed {run_a['seed']} in both")
    print(f"A: {run_a['evaluator']['name']}\nB: {run_b['evaluator']['name']}")
    for name, value in FIGURES.items():
        first = np.array([value(a[i]) for i in common], dtype=float)
        second = np.array([value(b[i]) for i in common], dtype=float)
        difference = second - first
        print(
            f"{name:20} A {first.mean():>12,.1f}  B {second.mean():>12,.1f}  "
            f"B - A {difference.mean():>+11,.1f} ± {standard_error(difference):,.1f}"
        )


if __name__ == "__main__":
    main()
