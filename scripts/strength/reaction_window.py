"""Where the reaction's blind frames cost (docs/strength-log.md, "Where the reaction costs").

Games of the community's format (level 18, the default evaluator and planner, the pieces
drawn from the game's seed as `simulate --same-pieces` draws them) are played to level 29
a piece at a time. At each piece's first frame the placement the planner would choose
seeing the next piece at once is set beside what the bot does with the reaction: the
first `--reaction` frames of its blind plan, then the plan made from where they leave the
piece. Counted by level (18, where a piece falls a row in 3 frames, and 19-28, in 2):

- window locks: the piece locks inside the blind frames (nothing is planned after them);
- lost: the placement chosen seeing the next piece is out of reach after the blind frames
  (the gamepad search from where they leave the piece does not find it);
- differs: the plan after the blind frames locks elsewhere, and what it gives up, in the
  evaluation's units (its value less the value of the choice made seeing the next piece);
- of the lost, how many no input in the blind frames would have kept in reach, and how
  many heading straight for it would have (which needs the next piece).

    .venv/bin/python scripts/strength/reaction_window.py --games 10 --seed 7000 --workers 2
"""

import argparse
from collections import Counter

from piece_by_piece import BANDS, LEVEL, PieceByPiece

from nesbot._core.blind import plan_blind
from nesbot._core.buttons import DOWN
from nesbot._core.game import Game
from nesbot._core.moves import Searcher
from nesbot._core.pieces import KILL_SCREEN_LEVEL
from nesbot.bot.planning import PlannerSettings
from nesbot.evaluation.evaluators import get_evaluator
from nesbot.lab.game_runs import GameSpec
from nesbot.lab.workers import map_indexed


def reachable(searcher: Searcher, game: Game, place: tuple[int, int, int]) -> bool:
    """Whether the active piece of `game` can still lock at `place` (x, y, orientation)."""
    return game.active and place in {p[:3] for p in searcher.placements_of(game)}


def after_pads(game: Game, pads: bytes, frames: int) -> Game:
    """A copy of `game` after `frames` frames of `pads` (no input past their end)."""
    after = game.copy()
    for frame in range(frames):
        if not after.active:
            break
        after.step(pads[frame] if frame < len(pads) else 0)
    return after


def one_game(spec: GameSpec) -> dict[str, float]:
    """The counts of one game, each key prefixed with its level band ("18" or "19-28")."""
    by_piece = PieceByPiece(spec)
    game, planner, searcher = by_piece.game, by_piece.planner, by_piece.searcher
    reaction = by_piece.reaction
    counts: Counter[str] = Counter()
    for band in by_piece.bands():
        seeing = planner.plan(game.copy())
        if seeing is None:
            break
        seen_pads, place, seen_value = seeing[0], tuple(seeing[1:4]), seeing[4]
        blind_pads = plan_blind(planner, game.copy())[0]
        after = after_pads(game, blind_pads, reaction)
        counts[f"{band} pieces"] += 1
        if not after.active:
            counts[f"{band} window locks"] += 1
        else:
            replan = planner.plan(after.copy())
            if not reachable(searcher, after, place):
                counts[f"{band} lost"] += 1
                counts[f"{band} lost, no input keeps"] += reachable(
                    searcher, after_pads(game, b"", reaction), place
                )
                straight = bytes(pad & ~DOWN for pad in seen_pads)
                counts[f"{band} lost, heading for it keeps"] += reachable(
                    searcher, after_pads(game, straight, reaction), place
                )
            if replan is not None and tuple(replan[1:4]) != place:
                counts[f"{band} differs"] += 1
                counts[f"{band} value given up"] += replan[4] - seen_value
        by_piece.play_piece()
    return dict(counts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--seed", type=int, default=7000)
    parser.add_argument("--reaction", type=int, default=18)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    settings = PlannerSettings(reaction=args.reaction)
    evaluator = get_evaluator(reaction=args.reaction)
    specs = [
        GameSpec(evaluator, settings, LEVEL, args.seed, index, KILL_SCREEN_LEVEL, True)
        for index in range(args.games)
    ]
    total: Counter[str] = Counter()
    for _, counts in map_indexed(one_game, specs, args.workers):
        total.update(counts)
    print(f"{args.games} games, seed {args.seed}, --reaction {args.reaction}, level {LEVEL}")
    for band in BANDS:
        pieces = total[f"{band} pieces"]
        lost, differs = total[f"{band} lost"], total[f"{band} differs"]
        given_up = total[f"{band} value given up"] / differs if differs else 0.0
        print(
            f"levels {band:>5}: {pieces / args.games:6.1f} pieces a game, "
            f"window locks {total[f'{band} window locks'] / max(pieces, 1):6.1%}, "
            f"lost {lost / max(pieces, 1):5.1%} ({lost / args.games:.1f} a game; "
            f"no input keeps {total[f'{band} lost, no input keeps']}, heading for it keeps "
            f"{total[f'{band} lost, heading for it keeps']} of {lost}), "
            f"differs {differs / args.games:.1f} a game, giving up {given_up:.1f} each"
        )


if __name__ == "__main__":
    main()
