"""What a run of simulated games comes to: the `nesbot simulate` Summary of the games'
results, and the standard error every lab figure carries."""

import json
from dataclasses import asdict, dataclass

import numpy as np

# A bot that keeps the stack low can survive 1 frame per row for thousands of lines (and the
# level byte wraps to 0 after 255, back to slow gravity), so a game also ends when it reaches
# level 39: post-29 lines count up to 100.
LEVEL_LIMIT = 39


@dataclass(frozen=True)
class Summary:
    """The `nesbot simulate --json` object (issue #5's keys, in its order)."""

    games: int
    maxout_rate: float
    pre29_score_mean: float
    pre29_score_median: float
    pre29_score_p10: float
    pre29_score_p90: float
    reach29_rate: float
    lines_mean: float
    tetris_rate: float
    post29_lines_median: float | None
    pieces_per_s: float
    fallbacks: int  # plans whose every option the calming rules vetoed (the least bad played)
    truncated: int  # plans whose search ran out of node capacity (played on what it found)
    # Standard errors of the games' sample: the figure of other games of the same bot lies
    # within about two of them of this one's, 19 times in 20.
    maxout_rate_se: float
    reach29_rate_se: float
    pre29_score_mean_se: float
    # The pre-29 score as BetaTetris counts it: line clears alone, no soft-drop points
    # (docs/strength.md, "How the pre-29 figure is counted").
    pre29_line_score_mean: float
    pre29_line_score_mean_se: float
    # The whole game, as the community's format counts it (docs/strength.md): games stop at
    # level stop_level. Scores are uncapped. score39 is the score when the clear that
    # reaches level 39 is made (a game that tops out before counts its final score); its
    # line form counts line clears alone, as BetaTetris does. None when stop_level < 39.
    stop_level: int
    reach39_rate: float | None
    reach39_rate_se: float | None
    score39_mean: float | None
    score39_mean_se: float | None
    score39_line_mean: float | None
    score39_line_mean_se: float | None
    final_score_mean: float
    final_score_mean_se: float

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    def describe(self) -> str:
        """The figures for a person: rounded, rates in percent with their standard error."""

        def rate(value: float, se: float) -> str:
            return f"{value:.1%} ± {se:.1%}"

        rows = [
            ("games", f"{self.games:,}"),
            ("max-out rate", rate(self.maxout_rate, self.maxout_rate_se)),
            ("reach level 29", rate(self.reach29_rate, self.reach29_rate_se)),
            (
                "pre-29 score mean",
                f"{self.pre29_score_mean:,.0f} ± {self.pre29_score_mean_se:,.0f}",
            ),
            (
                "pre-29 score p10/50/90",
                f"{self.pre29_score_p10:,.0f} / {self.pre29_score_median:,.0f} / "
                f"{self.pre29_score_p90:,.0f}",
            ),
            (
                "  of it line clears",
                f"{self.pre29_line_score_mean:,.0f} ± {self.pre29_line_score_mean_se:,.0f}"
                " (mean, BetaTetris's count)",
            ),
            *(
                []
                if self.reach39_rate is None
                else [
                    ("reach level 39", rate(self.reach39_rate, self.reach39_rate_se or 0.0)),
                    (
                        "score at level 39",
                        f"{self.score39_mean:,.0f} ± {self.score39_mean_se:,.0f}",
                    ),
                    (
                        "  of it line clears",
                        f"{self.score39_line_mean:,.0f} ± {self.score39_line_mean_se:,.0f}"
                        " (mean, BetaTetris's count)",
                    ),
                ]
            ),
            (
                f"final score (stop {self.stop_level})",
                f"{self.final_score_mean:,.0f} ± {self.final_score_mean_se:,.0f} (uncapped)",
            ),
            ("lines mean", f"{self.lines_mean:,.1f}"),
            ("tetris rate", f"{self.tetris_rate:.1%} of lines"),
            (
                "lines after 29, median",
                "none reached 29"
                if self.post29_lines_median is None
                else f"{self.post29_lines_median:,.0f}",
            ),
            ("pieces/s", f"{self.pieces_per_s:,.0f}"),
            ("fallbacks, truncated", f"{self.fallbacks}, {self.truncated}"),
        ]
        lines = [f"{name:<24}{value}" for name, value in rows]
        lines.append("(± one standard error; --json has every figure unrounded)")
        return "\n".join(lines)


# What summarize() reads of a game's result (a file of saved games must hold them all).
RESULT_KEYS = frozenset(
    (
        "pre29_points",
        "pre29_line_points",
        "lines",
        "lines_at_29",
        "maxout",
        "points",
        "line_points",
        "points_at_39",
        "line_points_at_39",
        "tetrises",
        "pieces",
        "fallbacks",
        "truncated",
    )
)


def summarize(results: list[dict], seconds: float, stop_level: int = LEVEL_LIMIT) -> Summary:
    pre29 = np.array([r["pre29_points"] for r in results], dtype=float)
    pre29_lines = np.array([r["pre29_line_points"] for r in results], dtype=float)
    lines = np.array([r["lines"] for r in results], dtype=float)
    post29 = [r["lines"] - r["lines_at_29"] for r in results if r["lines_at_29"] is not None]
    total_lines = lines.sum()
    maxouts = np.array([r["maxout"] for r in results], dtype=float)
    reached = np.array([r["lines_at_29"] is not None for r in results], dtype=float)
    final = np.array([r["points"] for r in results], dtype=float)
    level39 = _at_level_39(results, stop_level)
    return Summary(
        games=len(results),
        maxout_rate=float(maxouts.mean()),
        pre29_score_mean=float(pre29.mean()),
        pre29_score_median=float(np.median(pre29)),
        pre29_score_p10=float(np.percentile(pre29, 10)),
        pre29_score_p90=float(np.percentile(pre29, 90)),
        reach29_rate=float(reached.mean()),
        lines_mean=float(lines.mean()),
        tetris_rate=4 * sum(r["tetrises"] for r in results) / total_lines if total_lines else 0.0,
        post29_lines_median=float(np.median(post29)) if post29 else None,
        pieces_per_s=sum(r["pieces"] for r in results) / max(seconds, 1e-9),
        fallbacks=sum(r["fallbacks"] for r in results),
        truncated=sum(r["truncated"] for r in results),
        maxout_rate_se=standard_error(maxouts),
        reach29_rate_se=standard_error(reached),
        pre29_score_mean_se=standard_error(pre29),
        pre29_line_score_mean=float(pre29_lines.mean()),
        pre29_line_score_mean_se=standard_error(pre29_lines),
        stop_level=stop_level,
        **level39,
        final_score_mean=float(final.mean()),
        final_score_mean_se=standard_error(final),
    )


def _at_39_or_end(result: dict, at_39: str, at_end: str) -> int:
    return result[at_end] if result[at_39] is None else result[at_39]


def _at_level_39(results: list[dict], stop_level: int) -> dict[str, float | None]:
    """Summary's level-39 figures: the game's points when level 39 began, or at its end
    for a game that topped out before (None throughout if the games stop below 39)."""
    reached = np.array([r["points_at_39"] is not None for r in results], dtype=float)
    score = np.array([_at_39_or_end(r, "points_at_39", "points") for r in results], dtype=float)
    lines = np.array(
        [_at_39_or_end(r, "line_points_at_39", "line_points") for r in results], dtype=float
    )
    figures: dict[str, float | None] = {
        "reach39_rate": float(reached.mean()),
        "reach39_rate_se": standard_error(reached),
        "score39_mean": float(score.mean()),
        "score39_mean_se": standard_error(score),
        "score39_line_mean": float(lines.mean()),
        "score39_line_mean_se": standard_error(lines),
    }
    return figures if stop_level >= 39 else dict.fromkeys(figures)


def standard_error(sample: np.ndarray | list[float] | list[int]) -> float:
    """The standard error of a sample's mean; 0.0 for a single value (one game shows no
    spread; 0.0, not NaN, so that the figure stays a number in the JSON of summaries,
    training logs and weights files)."""
    if len(sample) < 2:
        return 0.0
    return float(np.std(sample, ddof=1) / np.sqrt(len(sample)))
