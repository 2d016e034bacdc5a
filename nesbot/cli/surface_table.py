"""`nesbot surface-table`: the surface table (the value of each stack top), by value
iteration."""

import argparse
import sys
from pathlib import Path

from nesbot.cli.options import whole_number
from nesbot.output_file import check_distinct, check_output

NAME = "surface-table"
HELP = "build the surface table (the value of each stack top) by value iteration"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from nesbot.evaluation.surface_builder import CHECKPOINT_PATH, TABLE_PATH

    parser.add_argument(
        "--out", default=str(TABLE_PATH), metavar="FILE.npz", help="the table (nesbot's own)"
    )
    parser.add_argument("--discount", type=float, default=0.9, help="per piece (0.9)")
    parser.add_argument(
        "--tolerance", type=float, default=0.01, help="largest error left, in pieces (0.01)"
    )
    parser.add_argument("--iterations", type=whole_number, default=200, help="at most (200)")
    parser.add_argument("--workers", type=whole_number, default=1, help="processes (1)")
    parser.add_argument(
        "--checkpoint",
        default=str(CHECKPOINT_PATH),
        metavar="FILE.npz",
        help=f"values after every iteration; a rerun continues it ({CHECKPOINT_PATH})",
    )
    parser.add_argument(
        "--restart", action="store_true", help="discard --checkpoint and start over"
    )


def run(args: argparse.Namespace) -> int:
    from nesbot.arguments import check_workers
    from nesbot.evaluation.surface_builder import TABLE_PATH, SurfaceInputs, build_surface_table

    check_workers(args.workers)
    check_distinct({}, {"--out": args.out, "--checkpoint": args.checkpoint})
    check_output(args.out, "surface table", ours=TABLE_PATH)
    check_output(args.checkpoint, "checkpoint")
    table = build_surface_table(
        Path(args.out),
        inputs=SurfaceInputs(discount=args.discount),
        tolerance=args.tolerance,
        iterations=args.iterations,
        workers=args.workers,
        checkpoint=Path(args.checkpoint),
        restart=args.restart,
        command=" ".join(["nesbot", *sys.argv[1:]]),
    )
    done = table.provenance
    print(
        f"{done['iterations']} iterations, values within {done['error_bound']:.2g} of the fixed "
        f"point, {done['build_seconds']:.0f} s; table in {args.out}",
        file=sys.stderr,
    )
    return 0
