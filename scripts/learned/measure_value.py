"""A learned value against the defaults, paired, from the states games reach level 29 in.

Each state (scripts/learned/level29_states.py's file for the games of `--seed`) is played on
to level 39 or the top-out once by the defaults and once with each model (at its scale, or
each `--scale`), with the same pieces (from_level_29.py's play_on: the game's own pieces
seed), so the differences are paired. Each row's games are kept as they end (FILE.jsonl in
`--out`, resumable). Prints, per row: reach 39, the line clears' points from level 29 to
level 39 or the top-out (BetaTetris's count), the paired differences ± one standard error,
and the lines played.

    .venv/bin/python scripts/learned/measure_value.py --seed 7100 --tap-hz 15 \\
        --states results/learned/states/states-nesbot-rightwell-tall-15hz-7100-100.json \\
        --model results/learned/value15.json --out results/learned/measure
"""

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parents[1] / "strength"))
from from_level_29 import REACTION, play_on

from nesbot.bot.planning import PlannerSettings
from nesbot.bot.value_model import load_value_model, with_value_model, without_value_model
from nesbot.evaluation.evaluators import Evaluator, get_evaluator


def outcomes(
    name: str, evaluator: Evaluator, settings: PlannerSettings, seed: int, states: list, out: Path
) -> dict[int, dict]:
    """Every state's outcome with `evaluator`, kept in out/NAME.jsonl as each ends."""
    path = out / f"{name}.jsonl"
    done: dict[int, dict] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            entry = json.loads(line)
            done[entry["index"]] = entry["result"]
    with path.open("a") as file:
        for index, state in enumerate(states):
            if state is None or index in done:
                continue
            done[index] = play_on((evaluator, settings, seed, index, state))
            file.write(json.dumps({"index": index, "result": done[index]}) + "\n")
            file.flush()
    return done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=7100)
    parser.add_argument("--tap-hz", type=int, default=15)
    parser.add_argument("--states", type=Path, required=True)
    parser.add_argument("--model", type=Path, action="append", default=[])
    parser.add_argument("--scale", type=float, action="append", default=[])
    parser.add_argument(
        "--use",
        choices=("choices", "leaves"),
        action="append",
        default=[],
        help="where each model plays: re-ranking the final choices, or at the lookahead's "
        "last boards (default: as its file says; repeat for both)",
    )
    parser.add_argument(
        "--kill-screen-third-width",
        type=int,
        default=0,
        help="the models' rows plan this many kill-screen placements three unknown pieces "
        "deep (0: the defaults' two at 15 Hz and slower)",
    )
    parser.add_argument("--evaluator", default="nesbot-rightwell-tall")
    parser.add_argument("--out", type=Path, default=Path("results/learned/measure"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    settings = PlannerSettings(reaction=REACTION, tap_hz=args.tap_hz)
    # The evaluation alone, whatever model the evaluator ships: the row all others pair with.
    base = without_value_model(get_evaluator(args.evaluator, reaction=REACTION))
    states = json.loads(args.states.read_text())
    tag = f"{args.tap_hz}hz-{args.seed}"
    # each row: its evaluator and the settings it plays
    rows = {f"defaults-{tag}": (base, settings)}
    third = args.kill_screen_third_width
    model_settings = replace(settings, kill_screen_third_width=third) if third else settings
    deeper = f"-third{third}" if third else ""
    for path in args.model:
        model = load_value_model(path)
        uses = [use == "leaves" for use in args.use] or [model.at_leaves]
        for scale in args.scale or [model.scale]:
            for leaves in uses:
                where = "leaves" if leaves else ""
                learned = with_value_model(base, model, path.stem, scale, leaves)
                rows[f"{path.stem}@{where}{scale:g}{deeper}-{tag}"] = (learned, model_settings)
    results = {
        name: outcomes(name, evaluator, row_settings, args.seed, states, args.out)
        for name, (evaluator, row_settings) in rows.items()
    }
    base_results = results[f"defaults-{tag}"]
    indices = sorted(base_results)
    base_points = np.array([base_results[i]["points"] for i in indices], float)
    base_reach = np.array([base_results[i]["reached_39"] for i in indices], float)
    n = len(indices)
    print(f"{n} level-29 states of seed {args.seed} at {args.tap_hz} Hz")
    for name, done in results.items():
        points = np.array([done[i]["points"] for i in indices], float)
        reach = np.array([done[i]["reached_39"] for i in indices], float)
        dp, dr = points - base_points, reach - base_reach
        se_p = dp.std(ddof=1) / np.sqrt(n) if n > 1 else 0.0
        se_r = dr.std(ddof=1) / np.sqrt(n) if n > 1 else 0.0
        lines = np.mean([done[i]["lines"] for i in indices])
        print(
            f"{name:32} reach 39 {reach.mean():6.1%} ({dr.mean():+.1%} ± {se_r:.1%})  "
            f"points to 39 {points.mean():9,.0f} ({dp.mean():+9,.0f} ± {se_p:7,.0f})  "
            f"lines {lines:5.1f}"
        )


if __name__ == "__main__":
    main()
