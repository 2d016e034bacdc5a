"""How a rated game is shown: a table per placement and a summary by stage, or JSON or CSV."""

import csv
import io
import json

from nesbot.rating.game import GameRating
from nesbot.rating.grades import GRADES
from nesbot.rating.rater import PieceRating, describe_place

CSV_FIELDS = (
    "number",
    "level",
    "lines",
    "score",
    "piece",
    "next",
    "player",
    "best",
    "found",
    "points_lost",
    "points_lost_se",
    "grade",
    "reasons",
    "heading",
    "slack",
    "misdrop_points",
    "misdrop_points_se",
    "miss_chance",
    "misdrop_expected_points",
    "timed_miss",
    "risk_points",
)


def _lost(rating: PieceRating) -> str:
    if rating.points_lost is None:
        return ""
    return f"{rating.points_lost:,.0f} ± {rating.points_lost_se:,.0f}"


def table(game: GameRating) -> str:
    """Every placement, one line each, then the summary."""
    lines = [
        f"{'#':>4} {'lvl':>3} {'lines':>5}  {'pc':<2} {'nx':<2} {'player':<15} {'best':<15} "
        f"{'points lost':>16}  {'grade':<10} why it lost points"
    ]
    for r in game.ratings:
        best = describe_place(r.best) if r.best is not None else "none"
        mark = "" if r.found else " (not found by the search)"
        if r.heading is not None:
            odds = (
                f", missed {r.miss_chance:.0%} of the time at this precision"
                if r.miss_chance is not None
                else ""
            )
            mark += (
                f" (misdrop: heading for {describe_place(r.heading)}, {r.slack} frames of "
                f"slack{odds}, cost {r.misdrop_points:,.0f} ± {r.misdrop_points_se:,.0f})"
            )
        if r.timed_miss is not None:
            risk = f", risk {r.risk_points:,.0f}" if r.risk_points is not None else ""
            mark += f" (timed: {r.slack} frames of slack{risk})"
        lines.append(
            f"{r.number:>4} {r.level:>3} {r.lines:>5}  {r.piece:<2} {r.next:<2} "
            f"{describe_place(r.player):<15} {best:<15} {_lost(r):>16}  {r.grade:<10} "
            f"{'; '.join(r.reasons)}{mark}"
        )
    return "\n".join(lines) + "\n\n" + summary_text(game)


def summary_text(game: GameRating) -> str:
    summary = game.summary()
    lines = [
        f"{summary['pieces']} pieces from level {game.start_level}",
        (
            f"the player: {game.speed.describe()}"
            if game.measured
            else "the player's speed: not measured (a video has no buttons)"
        ),
        f"{'':<24}{'placements':>11}{'accuracy':>10}{'best/good':>10}{'lost/placement':>16}  "
        + " ".join(f"{g:>10}" for g in GRADES),
    ]
    rows = [*summary["stages"].items(), ("whole game", summary["game"])]
    for name, figures in rows:
        shares = "".join(
            f"{'' if share is None else f'{share:.1%}':>10}"
            for share in (figures["accuracy"], figures["best_or_good"])
        )
        lines.append(
            f"{name:<24}{figures['placements']:>11}{shares}"
            f"{figures['points_lost_per_placement'] or 0:>16,}  "
            + " ".join(f"{figures['grades'][g]:>10}" for g in GRADES)
        )
    notes = []
    if summary["complete"] is False:
        notes.append(
            "the video ends before the game does: what it shows is rated, not the whole game"
        )
    misdrops = summary["game"]["misdrops"]
    if misdrops:
        game_figures = summary["game"]
        notes.append(
            f"{misdrops} misdrops, {game_figures['misdrop_points_per_placement']:,} points "
            "a placement lost to them (graded by where the player was heading); weighted by "
            "the chance of missing at the player's precision, "
            f"{game_figures['misdrop_expected_points_per_placement']:,}"
        )
    if summary["not_found"]:
        notes.append(f"{summary['not_found']} placements the search at this speed does not reach")
    if summary["unrated"]:
        numbers = ", ".join(str(n) for n in summary["unrated"])
        notes.append(f"not rated: piece {numbers} (the game ended on it, or no lock explains it)")
    return "\n".join(lines + notes)


def to_json(game: GameRating) -> str:
    return json.dumps(
        {"summary": game.summary(), "placements": [r.to_json() for r in game.ratings]}
    )


def to_csv(game: GameRating) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    for r in game.ratings:
        row = r.to_json()
        row["player"] = row["player"]["text"]
        row["best"] = row["best"]["text"] if row["best"] else ""
        row["heading"] = row["heading"]["text"] if row["heading"] else ""
        row["timed_miss"] = row["timed_miss"]["text"] if row["timed_miss"] else ""
        row["reasons"] = "; ".join(row["reasons"])
        del row["factors"], row["board"]  # JSON's, for tools: the raw terms, the cells
        writer.writerow(row)
    return out.getvalue()
