"""Train a learned value (nesbot/lab/value_training.py says how) and write it.

    .venv/bin/python scripts/learned/train_value.py --tap-hz 15 --seed 1 --iterations 8 \\
        --games 40 \\
        --states results/learned/states/states-nesbot-rightwell-tall-15hz-7000-40.json \\
        --checkpoint results/learned/value15_checkpoint.npz --out results/learned/value15.json

The states are those from_level_29.py keeps (the tuning games' level-29 states; for a model
that plays from an earlier --from-level, those level29_states.py --level keeps), and
--bonus-level is where --reach-bonus is earned (39: surviving the kill screen; 29 at slow
taps, where the stack before it is the risk). After every iteration the checkpoint and the
model file (with its provenance: command, seed, games, commit, each iteration's figures)
are written; the same command with --resume goes on from the checkpoint (a larger
--iterations continues the same run).
"""

import argparse
import json
import shlex
import subprocess
import sys
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np

from nesbot._core.pieces import KILL_SCREEN_LEVEL
from nesbot.bot.value_model import (
    load_value_model,
    save_value_model,
    without_value_model,
)
from nesbot.errors import NesbotError
from nesbot.evaluation.evaluators import get_evaluator
from nesbot.lab.value_training import (
    ValueTrainingConfig,
    iterate,
    load_checkpoint,
    model_file,
    new_state,
    save_checkpoint,
)


def commit() -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tap-hz", type=int, default=15)
    parser.add_argument("--reaction", type=int, default=18)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--iterations", type=int, default=8)
    parser.add_argument("--games", type=int, default=40, help="episodes an iteration (40)")
    parser.add_argument("--lam", type=float, default=0.9, help="TD(lambda)'s lambda (0.9)")
    parser.add_argument("--sweeps", type=int, default=3)
    parser.add_argument("--ridge", type=float, default=30.0)
    parser.add_argument("--replay", type=int, default=2)
    parser.add_argument(
        "--scale",
        type=float,
        default=3.0,
        help="evaluation units a thousand points of value are worth (3)",
    )
    parser.add_argument(
        "--at-leaves",
        action="store_true",
        help="the model plays at the lookahead's last boards, not re-ranking the choices",
    )
    parser.add_argument("--init", type=Path, help="a value model file to start from")
    parser.add_argument("--max-pieces", type=int, default=600)
    parser.add_argument(
        "--reach-bonus",
        type=float,
        default=0.0,
        help="thousands of points an episode earns for reaching --bonus-level (0)",
    )
    parser.add_argument("--bonus-level", type=int, default=39)
    parser.add_argument(
        "--points-weight",
        type=float,
        default=1.0,
        help="what the line points count in the rewards (1; 0: the bonus alone)",
    )
    parser.add_argument(
        "--from-level",
        type=int,
        default=KILL_SCREEN_LEVEL,
        help="the level the model plays from: the start states' (29)",
    )
    parser.add_argument("--evaluator", default="nesbot-rightwell-tall")
    parser.add_argument("--states", type=Path, required=True)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--checkpoint", type=Path, required=True)
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    try:
        starts = [s for s in json.loads(args.states.read_text()) if s is not None]
        config = ValueTrainingConfig(
            tap_hz=args.tap_hz,
            reaction=args.reaction,
            seed=args.seed,
            games=args.games,
            lam=args.lam,
            sweeps=args.sweeps,
            ridge=args.ridge,
            replay=args.replay,
            scale=args.scale,
            max_pieces=args.max_pieces,
            states=args.states.name,
            evaluator=args.evaluator,
            at_leaves=args.at_leaves,
            init=args.init.name if args.init else "",
            reach_bonus=args.reach_bonus,
            from_level=args.from_level,
            bonus_level=args.bonus_level,
            points_weight=args.points_weight,
        )
        # The policy is the evaluation and the model being trained, not a shipped one.
        evaluator = without_value_model(get_evaluator(args.evaluator, reaction=args.reaction))
        if args.resume:
            state = load_checkpoint(args.checkpoint, config)
        elif args.checkpoint.exists():
            raise NesbotError(f"{args.checkpoint} exists: --resume it, or name another")
        else:
            start = load_value_model(args.init) if args.init else None
            if start is not None and start.tap_hz != args.tap_hz:
                raise NesbotError(f"{args.init} was trained at {start.tap_hz} Hz")
            state = new_state(config, np.array(start.table) if start else None)
    except (OSError, json.JSONDecodeError, NesbotError) as e:
        print(f"train_value.py: {e}", file=sys.stderr)
        return 2
    print(
        f"{len(starts)} start states; iteration {state.iteration} of {args.iterations}", flush=True
    )
    command = shlex.join(["python", *sys.argv])
    while state.iteration < args.iterations:
        began = time.time()
        entry = iterate(state, evaluator, starts, args.workers)
        entry["seconds"] = round(time.time() - began, 1)
        save_checkpoint(state, args.checkpoint)
        provenance = {
            "source": "scripts/learned/train_value.py: policy iteration, TD(lambda)",
            "command": command,
            "commit": commit(),
            "config": asdict(config),
            "iterations": state.iteration,
            "games": state.iteration * args.games,
            "log": state.log,
        }
        save_value_model(model_file(state, provenance), args.out)
        print(json.dumps(entry), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
