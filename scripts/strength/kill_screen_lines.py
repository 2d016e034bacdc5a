"""Where the kill screen's lines go (docs/strength-log.md, "What the blind frames cost at the kill
screen").

The states the format's games reach level 29 in (from_level_29.py's, from the same cache)
are played on to level 39 a piece at a time with the same evaluator, and every piece from
the first one to spawn at level 29 is counted by the rows that stood ready for a Tetris
when it came (full but for column 9, just above its top): an I by the lines it cleared,
any other piece by the lines it burned (only an I makes a Tetris).

    .venv/bin/python scripts/strength/kill_screen_lines.py --games 200 --seed 7000 \\
        --evaluator nesbot-rightwell-tall --kill-screen-third-width 0
"""

import argparse
from collections import Counter
from pathlib import Path

from from_level_29 import LEVEL_39, REACTION, level_states

from nesbot._core.game import Game
from nesbot._core.piece_ranges import I_SPAWN
from nesbot._core.pieces import KILL_SCREEN_LEVEL
from nesbot._core.probes import ready_rows_py
from nesbot._core.whole_games import play
from nesbot.bot.planning import BY_FORMAT, DEFAULT_KILL_DEEP_WIDTH, PlannerSettings
from nesbot.evaluation.evaluators import Evaluator, get_evaluator
from nesbot.lab.game_runs import MAX_FRAMES, pieces_seed_of, planner_for
from nesbot.lab.workers import map_indexed
from nesbot.nes.ram import bcd_value

READY_BANDS = ("0", "1-3", "4+")


def band(ready: int) -> str:
    return READY_BANDS[0] if ready == 0 else READY_BANDS[1] if ready < 4 else READY_BANDS[2]


def count_pieces(job: tuple[Evaluator, PlannerSettings, int, int, dict]) -> dict:
    """One state played on to level 39 a piece at a time: (is an I, ready rows, lines) per
    piece, and whether the game topped out."""
    evaluator, settings, seed, index, state = job
    planner = planner_for(evaluator, settings)
    game = Game.from_state(state)
    pieces_seed = pieces_seed_of(seed, index)
    result = {"topped_out": False, "level": KILL_SCREEN_LEVEL}
    if not game.active:  # the state is the clear that reached level 29: its piece is next
        result = play(planner, game, MAX_FRAMES, LEVEL_39, REACTION, pieces_seed, 1)
    pieces = []
    while not result["topped_out"] and result["level"] < LEVEL_39:
        before = game.state()
        lines = bcd_value(*before["lines"])
        result = play(planner, game, MAX_FRAMES, LEVEL_39, REACTION, pieces_seed, 1)
        pieces.append(
            (
                before["orientation"] == I_SPAWN,
                ready_rows_py(before["rows"]),
                result["lines"] - lines,
            )
        )
    return {"pieces": pieces, "topped_out": result["topped_out"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--evaluator", help="plays to level 29 and on (the format's default)")
    parser.add_argument("--cache", type=Path, default=Path("from_level_29"))
    parser.add_argument(
        "--kill-screen-third-width",
        type=int,
        choices=range(DEFAULT_KILL_DEEP_WIDTH + 1),
        default=BY_FORMAT,
        help="as nesbot simulate's (the format's default: 2; 0: two unknown pieces deep)",
    )
    args = parser.parse_args()

    settings = PlannerSettings(
        reaction=REACTION, kill_screen_third_width=args.kill_screen_third_width
    )
    evaluator = get_evaluator(args.evaluator, reaction=REACTION)
    states = level_states(
        evaluator, settings, args.seed, args.games, KILL_SCREEN_LEVEL, args.cache, args.workers
    )
    jobs = [
        (evaluator, settings, args.seed, i, state)
        for i, state in enumerate(states)
        if state is not None
    ]
    games: list[dict] = [{}] * len(jobs)
    for k, game in map_indexed(count_pieces, jobs, args.workers):
        games[k] = game

    bars: Counter[tuple[str, int]] = Counter()  # (ready band, lines) of each I
    others: Counter[str] = Counter()  # other pieces by ready band
    burned: Counter[str] = Counter()  # their lines by ready band
    lines = tetrises = pieces = 0
    for game in games:
        for is_bar, ready, cleared in game["pieces"]:
            pieces += 1
            lines += cleared
            tetrises += cleared == 4
            if is_bar:
                bars[band(ready), cleared] += 1
            else:
                others[band(ready)] += 1
                burned[band(ready)] += cleared
    bar_count = sum(bars.values())
    print(
        f"{len(games)} games from level 29 ({sum(g['topped_out'] for g in games)} top out "
        f"before level 39): {pieces:,} pieces, {lines:,} lines, Tetris share "
        f"{4 * tetrises / max(lines, 1):.0%}"
    )
    print(f"I pieces: {bar_count:,} ({bar_count / max(pieces, 1):.1%} of the pieces)")
    for name in READY_BANDS:
        came = sum(n for (b, _), n in bars.items() if b == name)
        made = ", ".join(f"{cleared} lines {bars[name, cleared]:,}" for cleared in range(5))
        print(f"  came with {name:3} ready rows: {came:5,} ({made})")
    print(f"other pieces: {sum(others.values()):,}, burning {sum(burned.values()):,} lines")
    for name in READY_BANDS:
        print(f"  with {name:3} ready rows: {others[name]:5,} pieces, {burned[name]:,} lines")


if __name__ == "__main__":
    main()
