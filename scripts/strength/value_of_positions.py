"""What a position's board tells of the points its game makes from it on: the first
question for a value learned from nesbot's own games (docs/strength-log.md, "A learned value").

Games of the community's format (level 18, an 18-frame reaction, the default evaluator,
the pieces drawn from the game's seed as `simulate --same-pieces` draws them) are played to
level 29 a piece at a time. Every position (the board a piece spawns on) is kept with its
features (every feature of the table, at its level), its evaluation by the default weights,
and the line clears' points its game made from it on. What a value of the board would have to
predict is what is left of those points once the lines left are accounted for (their mean
over the positions with as many lines played). Four games in five fit it, by the default
evaluation alone and by a linear fit on every feature (standardized, a small ridge); the
fifth games tell how much of its variance each explains (R^2; 0 is no better than the
mean). The same for the points of the next N pieces (less their mean at the level).

    .venv/bin/python scripts/strength/value_of_positions.py --games 120 --seed 7000 --workers 2
"""

import argparse

import numpy as np

from nesbot._core.pieces import KILL_SCREEN_LEVEL
from nesbot._core.probes import evaluate_py
from nesbot._core.value_terms import all_features_py
from nesbot._core.whole_games import play
from nesbot.bot.planning import PlannerSettings
from nesbot.evaluation.evaluators import get_evaluator
from nesbot.lab.game_runs import GameSpec, planner_for, start_game
from nesbot.lab.workers import map_indexed
from nesbot.nes.ram import bcd_value

LINE_POINTS = (0, 40, 100, 300, 1200)  # a clear's points at level 0, by its rows
REACTION = 18
HORIZONS = (10, 20, 40, 80)  # pieces


def positions(spec: GameSpec) -> tuple[list[list[int]], list[int], list[int], list[int]]:
    """Each position of one game: rows -2..19, level, lines played, and the points the
    piece that spawns there scores."""
    game, pieces_seed = start_game(spec)
    planner = planner_for(spec.evaluator, spec.settings)
    rows, levels, lines, gains = [], [], [], []
    while True:
        state = game.state()
        level, played = state["level"], bcd_value(*state["lines"])
        if level >= KILL_SCREEN_LEVEL:
            return rows, levels, lines, gains
        rows.append(state["rows"])
        levels.append(level)
        lines.append(played)
        result = play(planner, game, 10**6, KILL_SCREEN_LEVEL, REACTION, pieces_seed, 1)
        cleared = bcd_value(*game.state()["lines"]) - played
        gains.append(LINE_POINTS[cleared] * (level + 1))
        if result["topped_out"]:
            return rows, levels, lines, gains


def held_out_r2(x: np.ndarray, y: np.ndarray, test: np.ndarray) -> float:
    """R^2 on `test` of a ridge fit of y on x (standardized) made on the other rows."""
    mean, scale = x[~test].mean(0), x[~test].std(0)
    z = (x[:, scale > 0] - mean[scale > 0]) / scale[scale > 0]
    z = np.c_[z, np.ones(len(z))]
    train = ~test
    coef = np.linalg.solve(
        z[train].T @ z[train] + 1e-3 * train.sum() * np.eye(z.shape[1]), z[train].T @ y[train]
    )
    residual = y[test] - z[test] @ coef
    return float(1 - residual.var() / y[test].var())


def less_group_mean(y: np.ndarray, groups: np.ndarray) -> np.ndarray:
    out = y.astype(float).copy()
    for g in np.unique(groups):
        out[groups == g] -= y[groups == g].mean()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=120)
    parser.add_argument("--seed", type=int, default=7000)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    evaluator = get_evaluator(None, reaction=REACTION)
    settings = PlannerSettings(reaction=REACTION)
    specs = [
        GameSpec(evaluator, settings, 18, args.seed, index, KILL_SCREEN_LEVEL, same_pieces=True)
        for index in range(args.games)
    ]
    games = dict(map_indexed(positions, specs, args.workers))
    rows, levels, lines, gains, game_of, to_go, soon = [], [], [], [], [], [], []
    for index in range(args.games):
        board, level, played, gain = games[index]
        rows += board
        levels += level
        lines += played
        gains += gain
        game_of += [index] * len(gain)
        after = np.concatenate([np.cumsum(gain[::-1])[::-1], [0]])  # points from each on
        to_go += list(after[:-1])
        at = np.arange(len(gain))
        soon.append([after[at] - after[np.minimum(at + h, len(gain))] for h in HORIZONS])
    levels_a, game_a = np.array(levels), np.array(game_of)
    features = np.array([all_features_py(r, lv) for r, lv in zip(rows, levels, strict=True)])
    value = np.array(
        [evaluate_py(r, 0, 0, evaluator, 0.0, 0, lv) for r, lv in zip(rows, levels, strict=True)]
    )[:, None]
    test = game_a % 5 == 4
    left = less_group_mean(np.array(to_go), np.array(lines) // 2)
    print(f"{len(rows)} positions of {args.games} games (seed {args.seed})")
    print(
        f"points to come: sd {np.std(to_go):,.0f}; less their mean by lines played: "
        f"sd {left.std():,.0f}"
    )
    print("target (held out: every fifth game)         default evaluation   linear, all features")
    print(
        f"{'points to the end of the game':<44}{held_out_r2(value, left, test):>20.3f}"
        f"{held_out_r2(features, left, test):>23.3f}"
    )
    soon_a = np.concatenate(soon, axis=1)
    for k, horizon in enumerate(HORIZONS):
        y = less_group_mean(soon_a[k], levels_a)
        print(
            f"{f'points of the next {horizon} pieces':<44}{held_out_r2(value, y, test):>20.3f}"
            f"{held_out_r2(features, y, test):>23.3f}"
        )


if __name__ == "__main__":
    main()
