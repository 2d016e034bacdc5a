"""The states the format's games reach level 29 in, kept a game at a time (resumable).

from_level_29.py plays all its games before it writes their states; on a shared machine this
keeps each game's state as it ends (FILE.jsonl, one line a game: its index and state, or
null for a game that topped out before level 29), so a stopped run goes on where it was,
and writes from_level_29.py's states file (the same games, the same states) when all are
played:

    .venv/bin/python scripts/learned/level29_states.py --tap-hz 15 --seed 7100 --games 100 \\
        --cache results/learned/states
"""

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1] / "strength"))
from from_level_29 import REACTION, arrive, states_path

from nesbot._core.pieces import KILL_SCREEN_LEVEL
from nesbot.bot.planning import PlannerSettings
from nesbot.evaluation.evaluators import get_evaluator


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tap-hz", type=int, default=15)
    parser.add_argument("--seed", type=int, default=7000)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--evaluator", default="nesbot-rightwell-tall")
    parser.add_argument("--cache", type=Path, default=Path("results/learned/states"))
    parser.add_argument(
        "--level",
        type=int,
        default=KILL_SCREEN_LEVEL,
        help="the level the states are kept at (29; 18: the games' starts)",
    )
    args = parser.parse_args()
    # A shipped value model acts from level 29 on: the states reaching it are the same.
    base = get_evaluator(args.evaluator, reaction=REACTION)
    settings = PlannerSettings(reaction=REACTION, tap_hz=args.tap_hz)
    final = states_path(args.cache, base, args.tap_hz, args.seed, args.games, args.level)
    partial = final.with_suffix(".jsonl")
    args.cache.mkdir(parents=True, exist_ok=True)
    done: dict[int, dict | None] = {}
    if partial.exists():
        for line in partial.read_text().splitlines():
            entry = json.loads(line)
            done[entry["index"]] = entry["state"]
    with partial.open("a") as out:
        for index in range(args.games):
            if index in done:
                continue
            done[index] = arrive((base, settings, args.seed, index, args.level))
            out.write(json.dumps({"index": index, "state": done[index]}) + "\n")
            out.flush()
            print(index, done[index] is not None, flush=True)
    final.write_text(json.dumps([done[i] for i in range(args.games)]))
    reached = sum(s is not None for s in done.values())
    print(f"{reached} of {args.games} reach level {args.level}: {final}")


if __name__ == "__main__":
    main()
