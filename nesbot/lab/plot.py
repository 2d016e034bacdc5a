"""The `nesbot simulate --plot` picture: the pre-29 scores' histogram and CDF."""

import io
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType

import numpy as np

from nesbot.errors import NesbotError
from nesbot.nes import ram
from nesbot.output_file import write_output

MEATFIGHTER_MEDIAN = 989_200  # his published median of ~1.7 million 19-28 games


def check_plot_path(path: str | Path) -> None:
    """Fail with one sentence, before a long run, if --plot cannot draw at `path`: no
    matplotlib, a format (the name's ending) it does not write, or one whose writer lacks
    what it needs (.pgf: LaTeX), which only drawing tells: a small figure is drawn in it."""
    plt = _pyplot()
    from matplotlib.backend_bases import FigureCanvasBase

    form = _format(path)
    known = FigureCanvasBase.get_supported_filetypes()
    if form not in known:
        raise NesbotError(
            f"--plot {path}: matplotlib writes no .{form} picture; end the name with one of "
            + ", ".join(f".{ending}" for ending in known)
        )
    figure = plt.figure(figsize=(1, 1))
    try:
        figure.suptitle("0.0M")
        figure.savefig(io.BytesIO(), format=form)
    except Exception as error:  # whatever the writer lacks, the real plot would fail alike
        reason = (str(error).strip().splitlines() or [type(error).__name__])[0]
        raise NesbotError(f"--plot {path}: matplotlib cannot write .{form}: {reason}") from None
    finally:
        plt.close(figure)


def _pyplot() -> ModuleType:
    """matplotlib.pyplot, drawing to files alone (Agg); NesbotError without matplotlib."""
    try:
        import matplotlib
    except ImportError:
        raise NesbotError("--plot needs matplotlib: pip install 'nesbot[plot]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _format(path: str | Path) -> str:
    """The picture format a plot's name asks for (matplotlib's default, PNG, without one)."""
    return Path(path).suffix.lstrip(".").lower() or "png"


def plot_scores(results: Iterable[dict], path: str | Path, title: str) -> None:
    """Histogram and CDF of pre-29 scores, meatfighter's median and the cap marked."""
    plt = _pyplot()
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
        figure.savefig(picture, dpi=110, format=_format(path))
    finally:
        plt.close(figure)
    write_output(path, "plot", picture.getvalue())
