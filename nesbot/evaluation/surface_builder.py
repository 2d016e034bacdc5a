"""The surface table: what the top of the stack is worth to the pieces still to come.

A surface is the stack's top in columns 0-8 (column 9 is the Tetris well), as the 8
differences between neighbouring column heights, each clamped to [-3, 3]: 7 ** 8 surfaces,
the encoding StackRabbit's `rateSurface` indexes (its table, too, is one value per such
surface). `nesbot._core.surface` has the encoding and the placements; this module builds,
saves and reads the table.

What a value means. A piece is placed cleanly on a surface when it leaves no hole and stays
out of the well (so no line is ever cleared, and the heights only grow). V(s) is the expected
discounted number of pieces that can be placed cleanly, one after another, starting from
surface s, before the first piece that has no clean placement, when each piece goes where
that number is largest:

    V(s) = sum over piece types p of odds[p] * (1 + discount * max V(s') over p's clean
           placements s'), a piece without one adding 0 and ending the count.

It lies between odds[I] (a vertical I always fits) and 1 / (1 - discount). A surface that
only some pieces can take, or that only leads to such surfaces, is worth less: a deep
1-wide pit needs an I, a jagged surface leaves the O and the S/Z nowhere to go, and even a
flat one has no clean place for an S or a Z (the best surfaces have gentle steps). The
default discount, 0.9, looks about 10 pieces ahead: the 9 pieces that fill the 36 cells of
four rows beside the well, one Tetris.

The odds. The NES picker draws the next piece from the current one (a repeat is rerolled
once, so a repeat has odds 1/32 or 1/16 where others have 5/32 to 6/32). The table's state
is the surface alone, and each piece is drawn independently with the picker's stationary
odds (the long-run share of each piece type, `stationary_odds`). A state of (surface,
previous piece) would follow the picker exactly, but it is 7 times the table (over 40
million values), and an evaluator that scores a surface after a whole sequence of
placements would average it over the previous piece anyway; the dependence only moves each
piece's odds by a few percent after the one that repeats it.

Convergence. One iteration applies the equation above to every surface at once, from the
previous iteration's values (Jacobi: so slices can be swept by separate processes and the
result does not depend on how they are cut), starting from all zeros. The equation is a
contraction by `discount` in the largest-change norm, so the values rise monotonically to
their one fixed point, and after an iteration that changed no value by more than c they
are within discount / (1 - discount) * c of it. The build stops when that bound is at most
`tolerance` (pieces), or after `iterations` iterations.

The build (`nesbot surface-table`) saves every iteration's values to a checkpoint; a run
with the same inputs continues from it, one with other inputs refuses unless told to start
over. The table ships as nesbot/data/surface_table.npz: the values quantized to uint8
(value = code * scale, scale = 1 / (1 - discount) / 255, so a value is off by at most half
a step, 0.02 pieces at discount 0.9, about twice the default tolerance), compressed, with
the build's provenance.
"""

import json
import math
import multiprocessing
import os
import platform
import sys
import time
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from itertools import pairwise
from multiprocessing.shared_memory import SharedMemory
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from nesbot._core.surface import bellman_sweep, encode, picker_odds, surface_count
from nesbot._core.surface_file import SHIPPED_TABLE, read_surface_file
from nesbot._version import __version__
from nesbot.errors import NesbotError
from nesbot.input_file import parse_json
from nesbot.output_file import OutputFile
from nesbot.progress import Progress

TABLE_PATH = SHIPPED_TABLE
CHECKPOINT_PATH = Path("surface_table.checkpoint.npz")  # in the working directory
SURFACE_COLUMNS = 9  # the columns left of the well
CHECKPOINT_FORMAT = 1
PIECE_NAMES = "TJZOSLI"
QUANTUM = 255  # uint8 codes: steps of 0.04 pieces at discount 0.9; uint16 is over 11 MB
SLICES_PER_WORKER = 4  # a slow worker delays an iteration by a quarter of its share


def stationary_odds() -> tuple[float, ...]:
    """The long-run share of each piece type (T J Z O S L I) under the NES picker."""
    chain = np.array(picker_odds())
    share = np.full(7, 1 / 7)
    for _ in range(200):  # the chain mixes within a few steps; 200 leave no visible error
        share = share @ chain
    return tuple(float(p) for p in share / share.sum())


@dataclass(frozen=True)
class SurfaceInputs:
    """What the table's values depend on; a checkpoint only continues the same inputs.

    `columns` below 9 makes a small table (7 ** (columns - 1) surfaces) for tests.
    """

    discount: float = 0.9
    odds: tuple[float, ...] = field(default_factory=stationary_odds)
    columns: int = SURFACE_COLUMNS

    def check(self) -> None:
        if not 0.0 < self.discount < 1.0:
            raise NesbotError(f"the discount must be between 0 and 1, not {self.discount}")
        if len(self.odds) != 7 or min(self.odds) < 0 or abs(sum(self.odds) - 1) > 1e-9:
            raise NesbotError("the odds must be 7 probabilities (T J Z O S L I) summing to 1")
        if not 2 <= self.columns <= SURFACE_COLUMNS:
            raise NesbotError(f"a surface has 2-{SURFACE_COLUMNS} columns, not {self.columns}")

    def as_json(self) -> dict[str, Any]:
        return json.loads(json.dumps(asdict(self)))


@dataclass
class SurfaceTable:
    """One value per surface (float32, indexed by nesbot._core.surface.encode) and the
    build's provenance."""

    values: npt.NDArray[np.float32]
    provenance: dict[str, Any]

    @property
    def columns(self) -> int:
        return int(self.provenance["inputs"]["columns"])

    def value(self, heights: Sequence[int]) -> float:
        """The value of the surface with these column heights: 10 heights of the whole
        field (column 9, the well, is left out), or exactly `columns` of them."""
        if len(heights) == 10 and self.columns == SURFACE_COLUMNS:
            heights = heights[:SURFACE_COLUMNS]
        if len(heights) != self.columns:
            raise NesbotError(f"a surface needs {self.columns} or 10 heights, not {len(heights)}")
        return float(self.values[encode(list(heights))])


def board_heights(rows: Sequence[int]) -> list[int]:
    """Column heights of a board given as 20 row masks, top row first (bit c = column c)."""
    heights = [0] * 10
    for row, mask in enumerate(rows):
        for column in range(10):
            if heights[column] == 0 and mask >> column & 1:
                heights[column] = len(rows) - row
    return heights


# ---------------------------------------------------------------- the build


@dataclass
class _Progress:
    """Where a build stands: saved in the checkpoint after every iteration."""

    values: npt.NDArray[np.float32]
    iteration: int = 0
    change: float = float("inf")  # the last iteration's largest change
    seconds: float = 0.0  # spent on iterations, over every run of the build


def error_bound(inputs: SurfaceInputs, change: float) -> float:
    """How far values whose last iteration changed them by at most `change` can be from
    the fixed point."""
    return inputs.discount / (1 - inputs.discount) * change


def build_surface_table(
    out: Path | None = TABLE_PATH,
    *,
    inputs: SurfaceInputs | None = None,
    tolerance: float = 0.01,
    iterations: int = 200,
    workers: int = 1,
    checkpoint: Path | None = CHECKPOINT_PATH,
    restart: bool = False,
    command: str = "",
    progress: bool = True,
    log: Callable[[str], None] = lambda line: print(line, file=sys.stderr),
) -> SurfaceTable:
    """Run value iteration until the error bound is at most `tolerance` or `iterations`
    iterations are done in all, and write the table to `out` (None: only return it).

    With a `checkpoint` the values are saved there after every iteration, and a checkpoint
    of the same inputs is continued (`restart` discards it); one of other inputs is an
    error unless `restart`. `command` goes into the provenance.
    """
    inputs = inputs if inputs is not None else SurfaceInputs()
    inputs.check()
    if not 0 < tolerance < math.inf:  # NaN too: it fails every comparison
        raise NesbotError(f"the tolerance must be a finite number above 0, not {tolerance:g}")
    if iterations < 1 or workers < 1:
        raise NesbotError("the build needs iterations >= 1 and workers >= 1")
    state = None
    if checkpoint is not None and checkpoint.exists() and not restart:
        state = _load_checkpoint(checkpoint, inputs)
        log(f"surface-table: resumed {checkpoint} after iteration {state.iteration}")
    if state is None:
        state = _Progress(np.zeros(surface_count(inputs.columns), np.float32))
    with (
        _Sweeper(inputs, workers, state.values) as sweeper,
        Progress("surface-table", iterations, "iteration", enabled=progress) as bar,
    ):
        bar.advance_to(state.iteration)
        while state.iteration < iterations and error_bound(inputs, state.change) > tolerance:
            started = time.perf_counter()
            state.values, state.change = sweeper.iterate()
            state.iteration += 1
            state.seconds += time.perf_counter() - started
            if checkpoint is not None:
                _save_checkpoint(checkpoint, inputs, state)
            bar.advance_to(state.iteration, f"bound {error_bound(inputs, state.change):.2g}")
    table = SurfaceTable(
        state.values,
        {
            "command": command,
            "inputs": inputs.as_json(),
            "tolerance": tolerance,
            "iterations": state.iteration,
            "last_change": state.change,
            "error_bound": error_bound(inputs, state.change),
            "converged": error_bound(inputs, state.change) <= tolerance,
            "nesbot_version": __version__,
            "build_seconds": round(state.seconds, 1),
            "workers": workers,
            "machine_cores": os.cpu_count(),
            "machine": platform.machine(),
            "built": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        },
    )
    if out is not None:
        save_surface_table(table, out)
    return table


class _Sweeper:
    """Jacobi iterations over the table: in this process, or sliced over worker processes
    that share the two value arrays (read one, write the other, swap)."""

    def __init__(self, inputs: SurfaceInputs, workers: int, start: npt.NDArray[np.float32]):
        self.inputs, self.workers = inputs, workers
        self.size = len(start)
        self.odds = np.array(inputs.odds, np.float64)
        self.memory = [SharedMemory(create=True, size=start.nbytes) for _ in range(2)]
        self.arrays = [np.ndarray(start.shape, np.float32, m.buf) for m in self.memory]
        self.arrays[0][:] = start
        self.source = 0
        self.pool = None
        if workers > 1:
            context = multiprocessing.get_context("spawn")
            self.pool = context.Pool(
                workers,
                initializer=_attach,
                initargs=([m.name for m in self.memory], self.size, inputs.columns),
            )
        parts = workers * SLICES_PER_WORKER if workers > 1 else 1
        edges = np.linspace(0, self.size, parts + 1).astype(np.int64)
        self.slices = [(int(a), int(b)) for a, b in pairwise(edges) if b > a]

    def iterate(self) -> tuple[npt.NDArray[np.float32], float]:
        """One iteration; returns the new values (a copy) and the largest change."""
        target = 1 - self.source
        discount = self.inputs.discount
        if self.pool is None:
            change = bellman_sweep(
                self.arrays[self.source],
                self.arrays[target],
                self.odds,
                discount,
                self.inputs.columns,
                0,
                self.size,
            )
        else:
            tasks = [(self.source, self.odds, discount, a, b) for a, b in self.slices]
            change = max(self.pool.starmap(_sweep_slice, tasks))
        self.source = target
        return self.arrays[target].copy(), change

    def __enter__(self) -> "_Sweeper":
        return self

    def __exit__(self, *exc: object) -> None:
        if self.pool is not None:
            self.pool.terminate()
            self.pool.join()
        del self.arrays
        for memory in self.memory:
            memory.close()
            memory.unlink()


_worker_arrays: list[npt.NDArray[np.float32]] = []
_worker_memory: list[SharedMemory] = []
_worker_columns = SURFACE_COLUMNS


def _attach(names: list[str], size: int, columns: int) -> None:
    """A worker's start: map the two shared value arrays."""
    global _worker_columns
    # track=False: the parent owns the blocks; a worker's exit must not unlink them.
    _worker_memory[:] = [SharedMemory(name, track=False) for name in names]
    _worker_arrays[:] = [np.ndarray((size,), np.float32, m.buf) for m in _worker_memory]
    _worker_columns = columns


def _sweep_slice(
    source: int, odds: npt.NDArray[np.float64], discount: float, start: int, stop: int
) -> float:
    values, out = _worker_arrays[source], _worker_arrays[1 - source]
    return bellman_sweep(values, out, odds, discount, _worker_columns, start, stop)


def _save_checkpoint(path: Path, inputs: SurfaceInputs, state: _Progress) -> None:
    meta = {
        "format": CHECKPOINT_FORMAT,
        "inputs": inputs.as_json(),
        "iteration": state.iteration,
        "change": state.change,
        "seconds": state.seconds,
    }
    # Renamed into place when whole: a crash leaves the previous checkpoint.
    with OutputFile(path, "checkpoint", binary=True) as out:
        try:  # a file, so numpy adds no ".npz" to the name
            np.savez(out.file, values=state.values, meta=np.array(json.dumps(meta)))
        except OSError as e:
            raise NesbotError(f"cannot write checkpoint {path}: {e.strerror}") from None


def _load_checkpoint(path: Path, inputs: SurfaceInputs) -> _Progress:
    """The build a checkpoint holds, every part checked (a damaged or hand-made file is
    one NesbotError); no part is read that is larger than the build's own would be."""
    count = surface_count(inputs.columns)
    try:
        with np.load(path, allow_pickle=False) as data:
            sizes = {info.filename: info.file_size for info in data.zip.infolist()}
            if sizes.get("values.npy", 0) > 4 * count + 1024 or sizes.get("meta.npy", 0) > 1 << 20:
                raise ValueError("a part is larger than a checkpoint's")
            values = data["values"]
            meta = parse_json(str(data["meta"]), f"checkpoint {path}: its meta")
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, AttributeError) as e:
        raise NesbotError(f"cannot read checkpoint {path}: {e}") from None
    if not isinstance(meta, dict) or meta.get("format") != CHECKPOINT_FORMAT:
        raise NesbotError(f"checkpoint {path} is not a surface-table checkpoint of this version")
    if not isinstance(meta.get("inputs"), dict):
        raise NesbotError(f"checkpoint {path} names no inputs")
    if meta["inputs"] != inputs.as_json():
        differ = [k for k, v in inputs.as_json().items() if meta["inputs"].get(k) != v]
        raise NesbotError(
            f"checkpoint {path} was made with other inputs ({', '.join(differ)}): "
            "pass --restart to start over"
        )
    if values.shape != (count,) or values.dtype.kind != "f" or not np.all(np.isfinite(values)):
        raise NesbotError(f"checkpoint {path}: values must be {count:,} finite numbers")
    iteration = meta.get("iteration")
    if isinstance(iteration, bool) or not isinstance(iteration, int) or iteration < 0:
        raise NesbotError(f"checkpoint {path}: iteration must be a whole number, not {iteration!r}")
    numbers = []
    for key in ("change", "seconds"):  # the change is infinite before the first iteration
        number = meta.get(key)
        if isinstance(number, bool) or not isinstance(number, int | float) or math.isnan(number):
            raise NesbotError(f"checkpoint {path}: {key} must be a number, not {number!r}")
        numbers.append(float(number))
    return _Progress(values.astype(np.float32), iteration, *numbers)


# ---------------------------------------------------------------- the shipped file


def save_surface_table(table: SurfaceTable, path: Path) -> None:
    """Write the table quantized to uint8 (value = code * scale), compressed."""
    discount = table.provenance["inputs"]["discount"]
    scale = 1 / (1 - discount) / QUANTUM  # the largest possible value gets the top code
    codes = np.rint(table.values / scale).clip(0, QUANTUM).astype(np.uint8)
    provenance = dict(table.provenance, scale=scale)
    with OutputFile(path, "surface table", binary=True, ours=SHIPPED_TABLE) as out:
        try:
            np.savez_compressed(out.file, codes=codes, provenance=np.array(json.dumps(provenance)))
        except OSError as e:
            raise NesbotError(f"cannot write surface table {path}: {e.strerror}") from None


def load_surface_table(path: Path = TABLE_PATH) -> SurfaceTable:
    """The table as `save_surface_table` wrote it (by default the one nesbot ships)."""
    codes, provenance = _read(path)
    return SurfaceTable((codes * provenance["scale"]).astype(np.float32), provenance)


def _read(path: Path) -> tuple[npt.NDArray[np.uint8], dict[str, Any]]:
    try:
        return read_surface_file(path)
    except (OSError, ValueError, KeyError) as e:
        raise NesbotError(f"cannot read surface table {path}: {e}") from None
