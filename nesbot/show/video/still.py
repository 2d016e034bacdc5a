"""--still: one picture of the game as a lossless PNG."""

import os
from pathlib import Path

import cv2
import numpy as np

from nesbot.errors import NesbotError
from nesbot.output_file import write_output
from nesbot.show.video.formats import check_png_path


def save_png(picture: np.ndarray, path_png: str | os.PathLike[str]) -> None:
    """Write an RGB picture as a PNG (lossless: the --still of a game)."""
    path = Path(path_png)
    check_png_path(path)
    if not isinstance(picture, np.ndarray) or picture.ndim != 3 or picture.shape[2] != 3:
        raise ValueError("a picture must be a height x width x 3 RGB array")
    try:
        encoded, png = cv2.imencode(".png", cv2.cvtColor(picture, cv2.COLOR_RGB2BGR))
    except cv2.error:
        encoded = False
    if not encoded:
        raise NesbotError(f"cannot write still {path}: the picture does not encode as a PNG")
    write_output(path, "still", png.tobytes())
