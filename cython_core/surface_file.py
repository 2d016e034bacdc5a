"""The surface table's file: an .npz of one uint8 code per surface and its provenance as
JSON, read without pickle.

nesbot.evaluation.surface_builder writes it (`nesbot surface-table`) and checks it; the
evaluator's feature surface_value reads the table nesbot ships from here, so the core needs
nothing above it.
"""

import json
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

SHIPPED_TABLE = Path(__file__).parents[1] / "data" / "surface_table.npz"


def read_surface_file(path: Path = SHIPPED_TABLE) -> tuple[npt.NDArray[np.uint8], dict[str, Any]]:
    """The codes (value = code * provenance["scale"]) and the provenance. Raises OSError,
    ValueError or KeyError for a file that is not such a table."""
    with np.load(path, allow_pickle=False) as data:
        return data["codes"], json.loads(str(data["provenance"]))
