"""Where the format's burned lines come from (docs/strength-log.md, "The burned lines with
today's defaults").

Games of the community's format (level 18, the default evaluator and planner, the pieces
drawn from the game's seed as `simulate --same-pieces` draws them) are played to level 29
a piece at a time, once for each `--reactions` value, on the same pieces. Every clear is
counted by the level it is made at (18, where a piece falls a row in 3 frames, and 19-28,
in 2): its lines, and whether it is a Tetris or a burn, made from a stack with holes (an
empty cell under a filled one in columns 0-8, or a covered well) or from a clean one. A
placement that clears nothing and leaves more holes or covered well cells than it found
made holes; the script asks the gamepad search from the piece's first frame whether the
piece had a placement that made none (with a reaction, not every one of those is in reach
once the next piece is seen). Points are the line clears', as the pre-29 figure counts
them, paired game by game with the first `--reactions` value.

    .venv/bin/python scripts/strength/burns.py --games 100 --seed 7000 --workers 2 \\
        --next-width 1
"""

import argparse
from collections import Counter

import numpy as np
from piece_by_piece import BANDS, LEVEL, PieceByPiece

from nesbot._core.game import Game
from nesbot._core.moves import Searcher
from nesbot._core.pieces import KILL_SCREEN_LEVEL, POINTS
from nesbot.bot.planning import (
    FORMAT_DEEP_BRANCH,
    FORMAT_DEEP_WIDTH,
    NEXT_WIDTH_30HZ,
    NEXT_WIDTH_MAX,
    PlannerSettings,
)
from nesbot.evaluation.evaluators import get_evaluator
from nesbot.lab.game_runs import GameSpec
from nesbot.lab.statistics import standard_error
from nesbot.lab.workers import map_indexed
from nesbot.nes.ram import bcd_value

FORMAT_REACTION = 18  # every run plays the format's evaluator, whatever its reaction
WELL = 9  # the right well's column; bit c of a row is column c
HIDDEN = 2  # Game.state()["rows"] starts with the two hidden rows
LINE_POINTS = [bcd_value(*points) for points in POINTS]  # at level 0: 0, 40, 100, 300, 1200


def holes(rows: list[int]) -> tuple[int, int]:
    """Empty cells under a filled one: in columns 0-8, and in the well."""
    stack = well = 0
    for column in range(WELL + 1):
        covered = False
        for row in rows[HIDDEN:]:
            if row >> column & 1:
                covered = True
            elif covered:
                if column == WELL:
                    well += 1
                else:
                    stack += 1
    return stack, well


def has_clean_placement(searcher: Searcher, game: Game, before: tuple[int, int]) -> bool:
    """Whether the active piece had a placement that makes no hole nor covers the well."""
    for x, y, orientation, _ in searcher.placements_of(game):
        after = game.copy()
        try:
            after.lock_at(x, y, orientation)
        except ValueError:
            continue
        stack, well = holes(after.state()["rows"])
        if stack <= before[0] and well <= before[1]:
            return True
    return False


def one_game(spec: GameSpec) -> dict[str, float]:
    """The counts of one game, each key prefixed with its level band."""
    by_piece = PieceByPiece(spec)
    game = by_piece.game
    counts: Counter[str] = Counter()
    for band in by_piece.bands():
        state = game.state()  # one read a side of the piece: state() copies the whole game
        found = holes(state["rows"])
        before = game.copy()
        by_piece.play_piece()
        if game.topped_out:
            break
        after = game.state()
        cleared = bcd_value(*after["lines"]) - bcd_value(*state["lines"])
        counts[f"{band} pieces"] += 1
        if cleared:
            counts[f"{band} lines"] += cleared
            counts[f"{band} points"] += LINE_POINTS[cleared] * (state["level"] + 1)
            kind = "tetris" if cleared == 4 else "holed" if sum(found) else "clean"
            counts[f"{band} {kind}"] += cleared
            continue
        left = holes(after["rows"])
        if left[0] > found[0] or left[1] > found[1]:
            counts[f"{band} made"] += 1
            counts[f"{band} avoidable"] += has_clean_placement(by_piece.searcher, before, found)
    return dict(counts)


def per_game(games: list[dict[str, float]], band: str, key: str) -> np.ndarray:
    return np.array([g.get(f"{band} {key}", 0) for g in games], float)


def table(runs: dict[int, list[dict[str, float]]]) -> None:
    first = next(iter(runs.values()))
    print(
        "| reaction | levels | lines a game | Tetris share | burned lines a game: holed stack "
        "/ clean | placements that made holes a game (a clean one in reach) | line points "
        "a game | paired with the first |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for reaction, games in runs.items():
        for band in BANDS:
            lines = per_game(games, band, "lines")
            points = per_game(games, band, "points")
            share = per_game(games, band, "tetris").sum() / max(lines.sum(), 1)
            diff = points - per_game(first, band, "points")
            paired = (
                f"{diff.mean():+,.0f} ± {standard_error(diff):,.0f}" if games is not first else ""
            )
            holed, clean, made, avoidable = (
                per_game(games, band, key).mean() for key in ("holed", "clean", "made", "avoidable")
            )
            print(
                f"| {reaction} | {band} | {lines.mean():.1f} | {share:.1%} | {holed:.1f} / "
                f"{clean:.1f} | {made:.1f} ({avoidable:.1f}) | {points.mean():,.0f} | {paired} |"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7000)
    parser.add_argument(
        "--reactions", default="18,0", help="comma-separated reactions, each its own run"
    )
    parser.add_argument(
        "--next-width",
        type=int,
        choices=range(1, NEXT_WIDTH_MAX + 1),
        default=NEXT_WIDTH_30HZ,
        help="the planner's --next-width for every run (the format's default)",
    )
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    evaluator = get_evaluator(None, reaction=FORMAT_REACTION)
    runs = {}
    for reaction in (int(r) for r in args.reactions.split(",")):
        # the format's lookahead widths too (without a reaction the default is narrower)
        settings = PlannerSettings(
            reaction=reaction,
            deep_width=FORMAT_DEEP_WIDTH,
            deep_branch=FORMAT_DEEP_BRANCH,
            next_width=args.next_width,
        )
        specs = [
            GameSpec(evaluator, settings, LEVEL, args.seed, i, KILL_SCREEN_LEVEL, same_pieces=True)
            for i in range(args.games)
        ]
        games: list[dict[str, float]] = [{} for _ in specs]
        for index, counts in map_indexed(one_game, specs, args.workers):
            games[index] = counts
        runs[reaction] = games
    table(runs)


if __name__ == "__main__":
    main()
