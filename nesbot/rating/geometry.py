"""Finding the NES picture in a frame of a capture: where it lies and how it is scaled.

A capture shows the NES picture anywhere in its frame: with black borders or with its
edges cut off (overscan), scaled from 1x to 5x, and stretched (square pixels, 8:7, 4:3 or
16:9: x and y scaled apart), blurred by a composite signal or a scaler. What does not
change in a game of NES Tetris is the screen around the game: the brick background, the
playfield's frame, the boxes of LINES, SCORE, LEVEL, NEXT and the statistics. The finder
matches those landmarks, drawn from the user's own ROM (the game screen nes-py shows at a
game's start, its changing parts masked), against the frame at every scale a capture can
have: a coarse grid of x and y scales on a picture shrunk to a quarter of the NES
resolution, then a finer grid around the best at half resolution and a climb at full
resolution. The match is a normalised
correlation of the brightest colour channel (so a capture's brightness, contrast and
palette do not matter), 1 for a perfect one.
"""

import math
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from nesbot.errors import NesbotError

# NES pixel boxes (x, y, width, height) whose content changes in a game: the playfield,
# the next box, the statistics' pieces and counts, and the counters' digits.
CHANGING = (
    (96, 48, 80, 160),
    (192, 112, 32, 32),
    (24, 80, 56, 128),
    (152, 16, 24, 8),
    (192, 32, 48, 8),
    (192, 64, 48, 8),
    (208, 168, 16, 8),
)
SHOWN_TOP, SHOWN_LINES = 8, 224  # lines 8-231 of the 240: what every NTSC set shows
FOUND = 0.6  # a match below this is no game screen
FINDING_FRAMES = 30  # a video's frames the picture is looked for in, a second apart at 60 Hz
FINDING_STEP = 60
FINDING_SPAN = FINDING_STEP * (FINDING_FRAMES - 1) + 1  # the frames up to the last of them
COARSE = 0.25  # the coarse search's resolution, in template pixels per NES pixel
COARSE_STEP = 1.05  # its ratio between neighbouring scales
SCALES = (0.8, 5.5)  # NES pixel heights (video lines) searched
ASPECTS = (0.8, 1.8)  # a pixel's width over its height: square 1, 8:7 1.14, 4:3 of 224 lines 1.17


@dataclass(frozen=True)
class Geometry:
    """Where the NES picture lies in a frame: NES pixel (x, y) is at frame pixel
    (left + x * sx, top + y * sy). `match`: how well the landmarks matched there (a
    normalised correlation: 1 perfect, under FOUND no game screen)."""

    left: float
    top: float
    sx: float
    sy: float
    match: float = 1.0

    @classmethod
    def of_crop(cls, x: float, y: float, width: float, height: float) -> "Geometry":
        """The geometry of `--crop X,Y,W,H`: the frame's rectangle that shows NES lines
        8-231 (the 256 x 224 pixels an NTSC set shows). NesbotError unless the four are
        finite and the width and height above 0 (check_inside then says whether it lies in
        the picture)."""
        if not all(math.isfinite(v) for v in (x, y, width, height)) or width <= 0 or height <= 0:
            raise NesbotError(
                f"--crop {x:g},{y:g},{width:g},{height:g}: four finite numbers, the width "
                "and height above 0"
            )
        sx, sy = width / 256, height / SHOWN_LINES
        return cls(x, y - SHOWN_TOP * sy, sx, sy)

    def check_inside(self, width: int, height: int) -> None:
        """NesbotError unless the NES picture's shown lines (8-231) lie in a frame of
        width x height: a --crop outside it would read the border as an empty board."""
        x, y = self.left, self.top + SHOWN_TOP * self.sy
        w, h = 256 * self.sx, SHOWN_LINES * self.sy
        if x < 0 or y < 0 or x + w > width or y + h > height:
            raise NesbotError(
                f"--crop {x:g},{y:g},{w:g},{h:g} is not inside the {width} x {height} picture"
            )


@dataclass(frozen=True)
class Landmarks:
    """The static screen (greyscale, lines 8-231) and its mask (1 = a landmark pixel)."""

    picture: np.ndarray
    mask: np.ndarray
    # the picture and mask at each resolution asked for, made once
    _scaled: dict[float, tuple[np.ndarray, np.ndarray]] = field(
        default_factory=dict, compare=False, repr=False
    )

    @classmethod
    def of_screen(cls, screen: np.ndarray) -> "Landmarks":
        """From the game screen nes-py drew (240 x 256, the brightest channel)."""
        mask = np.ones(screen.shape, np.uint8)
        for x, y, width, height in CHANGING:
            mask[y : y + height, x : x + width] = 0
        rows = slice(SHOWN_TOP, SHOWN_TOP + SHOWN_LINES)
        return cls(screen[rows].astype(np.float32), mask[rows])

    def at(self, resolution: float) -> tuple[np.ndarray, np.ndarray]:
        """The picture and mask at `resolution` template pixels per NES pixel."""
        if resolution not in self._scaled:
            size = (round(256 * resolution), round(SHOWN_LINES * resolution))
            picture = cv2.resize(self.picture, size, interpolation=cv2.INTER_AREA)
            mask = cv2.resize(self.mask.astype(np.float32), size, interpolation=cv2.INTER_AREA)
            self._scaled[resolution] = picture, (mask > 0.99).astype(np.uint8)
        return self._scaled[resolution]


def is_finding_frame(index: int) -> bool:
    """Whether a video's frame `index` is one of those the picture is looked for in."""
    return index % FINDING_STEP == 0 and index < FINDING_SPAN


def find_in_frames(greys: list[np.ndarray], landmarks: Landmarks) -> Geometry:
    """The geometry of a video's frames (their brightest channel): found on the frames'
    pixel-wise median (the landmarks stay, the game's pieces and counters mostly fade out
    of it), then fitted on each frame; its match is the median of those frames' matches,
    so a picture that only some frames show is not taken for the video's."""
    median = np.median(np.stack(greys), axis=0) if len(greys) > 1 else greys[0]
    found = find_geometry(median, landmarks)
    matches = [
        _fit(grey.astype(np.float32), landmarks, found.sx, found.sy, 1.0, found).match
        for grey in greys
    ]
    return replace(found, match=float(np.median(matches)))


def match_at(greys: list[np.ndarray], landmarks: Landmarks, geometry: Geometry) -> Geometry:
    """`geometry` (a --crop's: where the user says the picture is) with its match there,
    the median over the frames: the landmarks' correlation with each frame sampled at the
    middle of every NES pixel, without searching around it."""
    picture, mask = landmarks.at(1.0)
    to_frame = np.array(
        [
            [geometry.sx, 0, geometry.left + 0.5 * geometry.sx - 0.5],
            [0, geometry.sy, geometry.top + (SHOWN_TOP + 0.5) * geometry.sy - 0.5],
        ],
        np.float32,
    )
    scores = []
    for grey in greys:
        window = cv2.warpAffine(
            grey.astype(np.float32),
            to_frame,
            (picture.shape[1], picture.shape[0]),
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_REPLICATE,
        )
        score = float(cv2.matchTemplate(window, picture, cv2.TM_CCOEFF_NORMED, mask=mask)[0, 0])
        scores.append(score if math.isfinite(score) else -1.0)  # a flat picture: no match
    return replace(geometry, match=float(np.median(scores)))


def check_found(geometry: Geometry, where: str) -> Geometry:
    """The geometry, or NesbotError when its match says no game screen is there."""
    if geometry.match < FOUND:
        raise NesbotError(
            f"no NES Tetris game screen found in {where} (best match {geometry.match:.2f})"
        )
    return geometry


def find_geometry(grey: np.ndarray, landmarks: Landmarks) -> Geometry:
    """The best place and scale of the landmarks in a frame's brightest channel."""
    frame = grey.astype(np.float32)
    height, width = frame.shape
    best = Geometry(0, 0, 1, 1, -1.0)
    widest = max(ASPECTS[1], 1.25 * width / height * SHOWN_LINES / 256)
    for sy in _steps(SCALES[0], min(SCALES[1], 1.1 * height / 200)):
        for aspect in _steps(ASPECTS[0], widest):
            if 200 * sy * aspect > 1.1 * width:
                break
            best = max(best, _match(frame, landmarks, sy * aspect, sy), key=_by_match)
    return _climb(frame, landmarks, _around(frame, landmarks, best), 1.0, 0.005)


def _around(frame: np.ndarray, landmarks: Landmarks, coarse: Geometry) -> Geometry:
    """The best of the scales within the coarse grid's step of `coarse`'s, 1% apart, at half
    the NES resolution: a grid, not a climb, since a scale a step off in x hides the best
    y (and the other way round)."""
    smooth = cv2.GaussianBlur(frame, (0, 0), sigmaX=0.8 * coarse.sx, sigmaY=0.8 * coarse.sy)
    offsets = [step / 100 for step in range(-4, 5)]
    return max(
        (
            _fit(smooth, landmarks, coarse.sx * (1 + dx), coarse.sy * (1 + dy), 0.5, coarse)
            for dx in offsets
            for dy in offsets
        ),
        key=_by_match,
    )


def _steps(low: float, high: float) -> list[float]:
    count = max(1, math.ceil(math.log(high / low) / math.log(COARSE_STEP)))
    return [low * COARSE_STEP**i for i in range(count + 1)]


def _by_match(geometry: Geometry) -> float:
    return geometry.match


def _climb(
    frame: np.ndarray, landmarks: Landmarks, start: Geometry, resolution: float, step: float
) -> Geometry:
    """From `start`, the best neighbouring scales, the step halved when none is better.
    Each candidate is fitted on the frame resampled at exactly its scales."""
    best = _fit(frame, landmarks, start.sx, start.sy, resolution, start)
    while step > 0.0012:
        moved = False
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1)):
            sx, sy = best.sx * (1 + dx * step), best.sy * (1 + dy * step)
            candidate = _fit(frame, landmarks, sx, sy, resolution, best)
            if candidate.match > best.match:
                best, moved = candidate, True
        if not moved:
            step /= 2
    return best


def _fit(
    frame: np.ndarray,
    landmarks: Landmarks,
    sx: float,
    sy: float,
    resolution: float,
    near: Geometry,
) -> Geometry:
    """The best place of the landmarks within a few NES pixels of `near`'s, the frame
    resampled on the grid of (sx, sy) at `resolution` samples per NES pixel. A sample
    falling between two NES pixels mixes them, so the grid is laid again where the first
    fit put the picture, until it stays within a tenth of a pixel."""
    found = _fit_once(frame, landmarks, sx, sy, resolution, near)
    for _ in range(3):
        if abs(found.left - near.left) < 0.1 * sx and abs(found.top - near.top) < 0.1 * sy:
            break
        near, found = found, _fit_once(frame, landmarks, sx, sy, resolution, found)
    return found


def _fit_once(
    frame: np.ndarray,
    landmarks: Landmarks,
    sx: float,
    sy: float,
    resolution: float,
    near: Geometry,
) -> Geometry:
    picture, mask = landmarks.at(resolution)
    margin = math.ceil(6 * resolution)
    step_x, step_y = sx / resolution, sy / resolution  # frame pixels per sample
    origin_x = near.left - margin * step_x  # the frame x, y of the window's first sample
    origin_y = near.top + SHOWN_TOP * sy - margin * step_y
    to_frame = np.array(
        [
            [step_x, 0, origin_x + 0.5 * step_x - 0.5],  # a sample's middle, in pixel centres
            [0, step_y, origin_y + 0.5 * step_y - 0.5],
        ],
        np.float32,
    )
    window = cv2.warpAffine(
        frame,
        to_frame,
        (picture.shape[1] + 2 * margin, picture.shape[0] + 2 * margin),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )
    score, x, y = _best_place(window, picture, mask)
    return Geometry(origin_x + x * step_x, origin_y + y * step_y - SHOWN_TOP * sy, sx, sy, score)


def _match(frame: np.ndarray, landmarks: Landmarks, sx: float, sy: float) -> Geometry:
    """The best place of the landmarks in the whole frame shrunk to COARSE samples per NES
    pixel at about (sx, sy): the scales returned are those the shrunk frame's whole pixels
    make. The landmarks may hang over the frame's edges by 16 lines (overscan)."""
    picture, mask = landmarks.at(COARSE)
    size = (
        max(1, round(frame.shape[1] * COARSE / sx)),
        max(1, round(frame.shape[0] * COARSE / sy)),
    )
    fx, fy = size[0] / frame.shape[1], size[1] / frame.shape[0]
    sx, sy = COARSE / fx, COARSE / fy
    small = cv2.resize(frame, size, interpolation=cv2.INTER_AREA)
    hang = math.ceil(16 * COARSE)
    small = cv2.copyMakeBorder(
        small, hang, hang, hang, hang, cv2.BORDER_CONSTANT, value=float(np.median(small))
    )
    if small.shape[0] < picture.shape[0] or small.shape[1] < picture.shape[1]:
        return Geometry(0, 0, sx, sy, -1.0)
    score, x, y = _best_place(small, picture, mask)
    return Geometry((x - hang) / fx, (y - hang) / fy - SHOWN_TOP * sy, sx, sy, score)


def _best_place(
    window: np.ndarray, picture: np.ndarray, mask: np.ndarray
) -> tuple[float, float, float]:
    """The best match of `picture` in `window` and its place (x, y), to a fraction of a
    sample."""
    scores = cv2.matchTemplate(window, picture, cv2.TM_CCOEFF_NORMED, mask=mask)
    scores = np.nan_to_num(scores, nan=-1.0, posinf=-1.0, neginf=-1.0)
    _low, score, _at, (x, y) = cv2.minMaxLoc(scores)
    return float(score), x + _peak_offset(scores, y, x, 1), y + _peak_offset(scores, y, x, 0)


def _peak_offset(scores: np.ndarray, y: int, x: int, axis: int) -> float:
    """The sub-pixel offset of a peak along an axis, from a parabola through it and its
    two neighbours."""
    at = [y, x]
    if not 0 < at[axis] < scores.shape[axis] - 1:
        return 0.0
    before, after = list(at), list(at)
    before[axis] -= 1
    after[axis] += 1
    a, b, c = scores[tuple(before)], scores[y, x], scores[tuple(after)]
    curve = a - 2 * b + c
    return float(0.5 * (a - c) / curve) if curve < 0 else 0.0
