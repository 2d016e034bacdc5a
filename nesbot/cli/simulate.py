"""`nesbot simulate`: many NES-exact simulated games, and their statistics."""

import argparse

from nesbot.cli.options import (
    SAME_PIECES_HELP,
    add_evaluator_options,
    add_planner_options,
    planner_settings,
    whole_number,
)
from nesbot.output_file import check_distinct, check_output

NAME = "simulate"
HELP = "play many NES-exact simulated games and print their statistics"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", type=whole_number, default=100, help="games to play (100)")
    parser.add_argument("--level", type=whole_number, default=19, help="start level (19)")
    parser.add_argument("--seed", type=whole_number, default=0, help="chooses the games (0)")
    parser.add_argument(
        "--workers", type=whole_number, default=1, help="processes, or --ray local's CPUs (1)"
    )
    parser.add_argument(
        "--ray",
        metavar="ADDRESS",
        help="play the games on a Ray cluster; 'local' starts one on this machine",
    )
    parser.add_argument(
        "--stop-level",
        type=whole_number,
        default=39,
        help="end each game on reaching this level (39; 49 is BetaTetris's 430 lines)",
    )
    add_planner_options(parser)
    add_evaluator_options(parser)
    parser.add_argument(
        "--value-model",
        metavar="FILE.json",
        help="judge the kill screen by this learned value too (its file says where: the "
        "best placements or the lookahead's last boards), or 'off' for none (default: the "
        "evaluator's own at the tap rate, if it ships one: nesbot-rightwell-tall's at 15 and "
        "20 Hz; scripts/learned/train_value.py trains one)",
    )
    parser.add_argument("--same-pieces", action="store_true", help=SAME_PIECES_HELP)
    parser.add_argument(
        "--save-games",
        metavar="FILE.jsonl",
        help="keep each game in FILE as it ends; the same command goes on from it",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON summary object")
    parser.add_argument("--plot", metavar="FILE.png", help="draw the pre-29 score distribution")


def run(args: argparse.Namespace) -> int:
    from nesbot.evaluation.evaluators import get_evaluator
    from nesbot.lab.game_runs import simulate
    from nesbot.lab.plot import check_plot_path, plot_scores

    check_distinct(
        {"--weights": args.weights, "--value-model": args.value_model},
        {"--save-games": args.save_games, "--plot": args.plot},
    )
    if args.save_games:
        check_output(args.save_games, "games file")
    evaluator = get_evaluator(args.evaluator, args.weights, args.reaction)
    if args.value_model:
        from pathlib import Path

        from nesbot.bot.value_model import load_value_model, with_value_model, without_value_model

        if args.value_model == "off":
            evaluator = without_value_model(evaluator)
        else:
            model = load_value_model(args.value_model)
            evaluator = with_value_model(evaluator, model, Path(args.value_model).stem)
    if args.plot:
        check_output(args.plot, "plot")
        check_plot_path(args.plot)
    summary, results = simulate(
        evaluator,
        args.games,
        level=args.level,
        seed=args.seed,
        workers=args.workers,
        settings=planner_settings(args),
        progress=True,  # a bar in a terminal, else a line every few seconds
        ray=args.ray,
        same_pieces=args.same_pieces,
        stop_level=args.stop_level,
        save_games=args.save_games,
    )
    if args.plot:
        plot_scores(
            results,
            args.plot,
            f"{evaluator.name}: {summary.games} games from level {args.level}, seed {args.seed}",
        )
    print(summary.to_json() if args.json else summary.describe())
    return 0
