"""`nesbot explain`: the evaluation of a board, and the placement the bot picks on it."""

import argparse

from nesbot.cli.options import (
    add_evaluator_options,
    add_planner_options,
    planner_settings,
    whole_number,
)

NAME = "explain"
HELP = "print the evaluation of a board and the placement the bot picks on it"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("board", metavar="BOARD", help="text file: 20 rows of 10 '#'/'.' cells")
    parser.add_argument("--piece", default="T", help="current piece, one of TJZOSLI (T)")
    parser.add_argument("--next", default="I", help="next piece (I)")
    parser.add_argument("--level", type=whole_number, default=19, help="level (19)")
    add_planner_options(parser, reaction=False)
    add_evaluator_options(parser)


def run(args: argparse.Namespace) -> int:
    from nesbot.bot.explain import explain
    from nesbot.evaluation.evaluators import get_evaluator

    evaluator = get_evaluator(args.evaluator, args.weights)
    print(explain(args.board, args.piece, args.next, args.level, evaluator, planner_settings(args)))
    return 0
