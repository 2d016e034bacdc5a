"""`nesbot train`: better evaluation weights, by PSO or CMA-ES on simulated games."""

import argparse
import sys
from pathlib import Path

from nesbot.cli.options import (
    SAME_PIECES_HELP,
    add_evaluator_options,
    add_planner_options,
    planner_settings,
    whole_number,
)
from nesbot.errors import NesbotError
from nesbot.output_file import check_distinct, check_output

NAME = "train"
HELP = (
    "improve the evaluation weights (17 + NES features, or a right-well evaluation's) by PSO "
    "or CMA-ES on simulated games"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", required=True, metavar="FILE.json", help="trained weights")
    parser.add_argument("--iterations", type=whole_number, default=20, help="in total (20)")
    parser.add_argument(
        "--optimizer",
        choices=("pso", "cmaes"),
        default="pso",
        help="particle swarm (pso) or CMA-ES (cmaes; a right-well evaluation's weights, "
        "the well features among them, train with it) (pso)",
    )
    parser.add_argument(
        "--particles",
        type=whole_number,
        default=12,
        help="PSO's swarm size, CMA-ES's population (12)",
    )
    parser.add_argument("--games", type=whole_number, default=30, help="games per fitness (30)")
    parser.add_argument("--level", type=whole_number, default=19, help="start level (19)")
    parser.add_argument("--seed", type=whole_number, default=0, help="swarm and games (0)")
    parser.add_argument(
        "--patience",
        type=whole_number,
        default=4,
        help="iterations without progress before a restart (4)",
    )
    parser.add_argument(
        "--spread",
        type=float,
        default=0.5,
        help="PSO's initial swarm: start weights + normal(0, spread); CMA-ES's step, times "
        "max(|weight|, 1); above 0, at most 10 (0.5)",
    )
    parser.add_argument(
        "--max-velocity",
        type=float,
        default=1.0,
        help="velocity clamp per weight and iteration; above 0, at most 10 (1.0)",
    )
    add_planner_options(parser)
    parser.add_argument("--same-pieces", action="store_true", help=SAME_PIECES_HELP)
    parser.add_argument("--workers", type=whole_number, default=1, help="processes (1)")
    parser.add_argument(
        "--ray",
        metavar="ADDRESS",
        help="evaluate on a Ray cluster; 'local' starts one on this machine",
    )
    parser.add_argument(
        "--checkpoint", metavar="FILE.json", help="save the swarm after every iteration"
    )
    parser.add_argument("--resume", action="store_true", help="continue from --checkpoint")
    add_evaluator_options(parser)


def run(args: argparse.Namespace) -> int:
    from functools import partial

    from nesbot.arguments import check_workers
    from nesbot.evaluation.evaluators import get_evaluator, training_start_name
    from nesbot.evaluation.weights import save_weights
    from nesbot.lab.game_runs import run_games
    from nesbot.lab.train import TrainConfig, ray_runner, train, trained_weights
    from nesbot.progress import Progress

    check_workers(args.workers)
    check_distinct(
        {"--weights": args.weights}, {"--out": args.out, "--checkpoint": args.checkpoint}
    )
    if args.iterations < 1:
        raise NesbotError(f"--iterations {args.iterations}: need at least 1")
    check_output(args.out, "weights")
    if args.checkpoint:
        check_output(args.checkpoint, "checkpoint")
    named = args.evaluator or (None if args.weights else training_start_name(args.reaction))
    config = TrainConfig.starting_from(
        get_evaluator(named, args.weights),
        particles=args.particles,
        games=args.games,
        level=args.level,
        seed=args.seed,
        settings=planner_settings(args),
        optimizer=args.optimizer,
        patience=args.patience,
        spread=args.spread,
        max_velocity=args.max_velocity,
        same_pieces=args.same_pieces,
    )
    if args.ray:
        games = ray_runner(args.ray, args.workers)
    else:
        games = partial(run_games, workers=args.workers)

    def run_iteration(specs: list) -> list[dict]:
        """An iteration's games (every candidate's), with progress through them."""
        with Progress("train: this iteration", len(specs), "game") as bar:
            return games(specs, on_result=lambda *_: bar.update(1))

    checkpoint = Path(args.checkpoint) if args.checkpoint else None
    state = train(config, args.iterations, checkpoint, args.resume, run_iteration)
    command = " ".join(["nesbot", *sys.argv[1:]])
    weights = trained_weights(state, config, command, run_iteration)
    save_weights(weights, args.out)
    print(
        f"fitness {weights.provenance['fitness']:,.0f} after {state.iteration} iterations; "
        f"weights in {args.out}",
        file=sys.stderr,
    )
    return 0
