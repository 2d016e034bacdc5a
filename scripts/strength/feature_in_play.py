"""How often a feature takes each value on the boards the defaults play, before level 29
and from it: what a price on the feature would be paid on in ordinary games, before a
whole-game run measures it (docs/strength-log.md, "Deep ready stacks").

Games of the community's format (level 18, an 18-frame reaction, the defaults, the pieces
drawn as `simulate --same-pieces` draws them) are played a piece at a time to level 39
or the top-out; the board each piece spawns on is read for the feature (at its level,
the piece ranges' levels ending at 29).

    .venv/bin/python scripts/strength/feature_in_play.py --feature covered_ready_rows \
        --games 12 --seed 7000 --workers 2
"""

import argparse
from collections import Counter

from piece_by_piece import LEVEL, PieceByPiece

from nesbot._core.features import ALL_FEATURE_NAMES
from nesbot._core.pieces import KILL_SCREEN_LEVEL
from nesbot._core.value_terms import all_features_py
from nesbot.bot.planning import PlannerSettings
from nesbot.evaluation.evaluators import get_evaluator
from nesbot.lab.game_runs import GameSpec
from nesbot.lab.workers import map_indexed

REACTION = 18
STOP_LEVEL = 39


def values_seen(job: tuple[GameSpec, int]) -> Counter[tuple[bool, float]]:
    """(from level 29?, the feature's value) of every board one game's pieces spawn on."""
    spec, feature = job
    by_piece = PieceByPiece(spec)
    seen: Counter[tuple[bool, float]] = Counter()
    while by_piece.game.active:
        state = by_piece.game.state()
        level = state["level"]
        value = all_features_py(state["rows"], level=min(level, KILL_SCREEN_LEVEL))[feature]
        seen[level >= KILL_SCREEN_LEVEL, value] += 1
        by_piece.play_piece()
    return seen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--feature", required=True, choices=ALL_FEATURE_NAMES)
    parser.add_argument("--games", type=int, default=12)
    parser.add_argument("--seed", type=int, default=7000)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    evaluator = get_evaluator(None, reaction=REACTION)
    settings = PlannerSettings(reaction=REACTION)
    feature = ALL_FEATURE_NAMES.index(args.feature)
    specs = [
        GameSpec(evaluator, settings, LEVEL, args.seed, index, STOP_LEVEL, same_pieces=True)
        for index in range(args.games)
    ]
    jobs = [(spec, feature) for spec in specs]
    seen: Counter[tuple[bool, float]] = Counter()
    for _, counts in map_indexed(values_seen, jobs, args.workers):
        seen.update(counts)
    print(f"{args.feature} on the boards of {args.games} games (seed {args.seed})")
    for kill_screen, name in ((False, "before level 29"), (True, "from level 29")):
        boards = sum(n for (k, _), n in seen.items() if k == kill_screen)
        print(f"{name}: {boards:,} boards")
        for (k, value), n in sorted(seen.items()):
            if k == kill_screen:
                print(f"  {value:g}: {n:,} ({100 * n / boards:.1f}%)")


if __name__ == "__main__":
    main()
