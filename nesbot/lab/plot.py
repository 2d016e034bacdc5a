"""The `nesbot simulate --plot` picture: the pre-29 scores' histogram and CDF."""

import io
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from nesbot.errors import NesbotError
from nesbot.nes import ram
from nesbot.output_file import write_output

MEATFIGHTER_MEDIAN = 989_200  # his published median of ~1.7 million 19-28 games


def require_matplotlib() -> None:
    """Fail with one sentence, before a long run, if --plot cannot draw."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise NesbotError("--plot needs matplotlib: pip install 'nesbot[plot]'") from None


def plot_scores(results: Iterable[dict], path: str | Path, title: str) -> None:
    """Histogram and CDF of pre-29 scores, meatfighter's median and the cap marked."""
    require_matplotlib()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    scores = np.sort([r["pre29_points"] for r in results])
    figure, (hist, cdf) = plt.subplots(1, 2, figsize=(12, 4.5), constrained_layout=True)
    hist.hist(scores, bins=40, color="#4477aa")
    hist.set_xlabel("points before level 29")
    hist.set_ylabel("games")
    cdf.step(scores, np.arange(1, len(scores) + 1) / len(scores), where="post", color="#4477aa")
    cdf.set_xlabel("points before level 29")
    cdf.set_ylabel("share of games at or below")
    for axis in (hist, cdf):
        axis.axvline(
            MEATFIGHTER_MEDIAN,
            color="#cc6677",
            linestyle="--",
            label=f"meatfighter median {MEATFIGHTER_MEDIAN:,}",
        )
        axis.axvline(ram.SCORE_CAP, color="#228833", linestyle=":", label="999,999 cap")
        axis.xaxis.set_major_formatter(lambda v, _pos: f"{v / 1e6:.1f}M")
    cdf.legend(loc="upper left")
    figure.suptitle(title)
    picture = io.BytesIO()  # drawn whole first: a fault while writing leaves the old plot
    try:
        figure.savefig(picture, dpi=110, format=Path(path).suffix.lstrip(".") or None)
    finally:
        plt.close(figure)
    write_output(path, "plot", picture.getvalue())
