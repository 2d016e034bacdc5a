"""The evaluation's features: one table from which everything that names them comes.

The evaluator (cython_core/evaluate.pyx) computes each feature into a slot of an array, and
a weights file (nesbot.evaluation.weights) weighs each by name. Both come from FEATURES: the
build writes the C enum of slots (F_<NAME>) and the counts that close each group into
features.pxi, which feature_slots.pxd includes (`write_pxi`, called by setup.py); the Python
names and the weights' keys are read from here at run time. A feature added here is added
everywhere; its computation in evaluate.pyx is the one thing to write by hand.

Heights count from the floor (a cell in row 19 has height 1); rows are numbered from the
top, 0..19 (rows -2 and -1 are hidden). The groups are computed only when an evaluator
weighs one of their features (WeightSet's flags in weight_sets.pxd, one per weight set).
"""

from pathlib import Path
from typing import NamedTuple


class Feature(NamedTuple):
    name: str  # the Python name and weights-file key; the C slot is F_<NAME upper-cased>
    # What a player would say of a board that has more of it (less, for the features whose
    # `says_less` is set) than the best placement's board: nesbot rate's reasons.
    says: str
    group: str  # one of GROUPS
    about: str  # what it counts
    says_less: bool = False  # `says` is of a board with less of it: a surface value, say


# Each group, in slot order, with the C count that closes it (the slot after its last).
GROUPS: tuple[tuple[str, str], ...] = (
    ("meatfighter", "FEATURE_COUNT"),  # meatfighter's 2018 features (meatfighter.com)
    ("seeds", "SEED_FEATURE_COUNT"),  # the other seeds' features (El-Tetris, Nguyen-Morua)
    ("nes", "NES_FEATURE_END"),  # nesbot's: what scores from 19 to 29, Tetrises and a well
    ("reach", "REACH_FEATURE_END"),  # what the stack lets a vertical I reach (piece ranges)
    ("well", "ALL_FEATURE_COUNT"),  # a stack for one well in column 9 (StackRabbit's; nesbot's)
)
# A new feature goes at the end: games files saved before it hold one weight a feature of
# their day and are read as weighing it 0 (nesbot.lab.saved_games).

FEATURES: tuple[Feature, ...] = (
    Feature(
        "total_lines_cleared",
        "cleared fewer lines",
        "meatfighter",
        "rows cleared by both pieces (the caller's)",
        says_less=True,
    ),
    Feature(
        "total_lock_height",
        "locked the pieces high",
        "meatfighter",
        "sum of the pieces' lock heights (the caller's)",
    ),
    Feature(
        "total_well_cells",
        "left gaps to fill",
        "meatfighter",
        "empty cells above their column's top, both sides filled",
    ),
    Feature(
        "total_deep_wells", "dug a deep gap", "meatfighter", "columns holding 3 or more well cells"
    ),
    Feature(
        "total_column_holes",
        "made a hole",
        "meatfighter",
        "empty cells whose upper neighbour is filled",
    ),
    Feature(
        "total_weighted_column_holes",
        "made a hole low in the stack",
        "meatfighter",
        "sum of (hole row + 1)",
    ),
    Feature(
        "total_column_hole_depths",
        "buried a hole",
        "meatfighter",
        "sum of (hole row - top row of its column)",
    ),
    Feature(
        "min_column_hole_depth",
        "holes buried deeper",
        "meatfighter",
        "smallest hole depth; 20 when there are no holes",
    ),
    Feature(
        "max_column_hole_depth",
        "buried a hole deep",
        "meatfighter",
        "largest hole depth; 0 when there are no holes",
    ),
    Feature(
        "total_column_transitions",
        "gaps down the columns",
        "meatfighter",
        "empty/filled changes down a column below its top",
    ),
    Feature(
        "total_row_transitions",
        "ragged rows",
        "meatfighter",
        "empty/filled changes along non-empty rows, walls filled",
    ),
    Feature(
        "total_column_heights", "a higher stack", "meatfighter", "sum of the 10 column heights"
    ),
    Feature("pile_height", "a taller column", "meatfighter", "tallest column height"),
    Feature(
        "column_height_spread",
        "an uneven stack",
        "meatfighter",
        "tallest minus shortest column height",
    ),
    Feature("total_solid_cells", "more cells left on the board", "meatfighter", "filled cells"),
    Feature(
        "total_weighted_solid_cells",
        "cells left high up",
        "meatfighter",
        "sum of filled cells' heights",
    ),
    Feature(
        "column_height_variance",
        "rough surface",
        "meatfighter",
        "sum of |height difference| of adjacent columns",
    ),
    Feature(
        "landing_height",
        "locked the pieces high",
        "seeds",
        "El-Tetris, per piece summed: rows under its lowest cell + (its rows - 1) / 2 "
        "(the caller's)",
    ),
    Feature(
        "covered_cells",
        "covered empty cells",
        "seeds",
        "empty cells with a filled cell anywhere above",
    ),
    Feature(
        "well_sums",
        "left gaps to fill",
        "seeds",
        "El-Tetris: each cell with both sides filled counts 1 + the empty run under it",
    ),
    Feature(
        "row_transitions_all_rows",
        "ragged rows",
        "seeds",
        "El-Tetris: row transitions with walls, empty rows too",
    ),
    Feature(
        "column_transitions_from_floor",
        "gaps down the columns",
        "seeds",
        "El-Tetris: floor filled, no transition above row 0",
    ),
    Feature(
        "right_side_holes",
        "left an overhang",
        "seeds",
        "Nguyen-Morua rule 1: empty cells at or below the top of the column to their right",
    ),
    Feature(
        "covered_cell_heights",
        "covered empty cells high up",
        "seeds",
        "Nguyen-Morua rule 2: covered cells, each weighted by its height",
    ),
    Feature(
        "left_side_holes", "left an overhang", "seeds", "Nguyen-Morua rule 3: the mirror of rule 1"
    ),
    Feature(
        "tetris_ready",
        "not ready for a Tetris",
        "nes",
        "1 when the 4 rows above the lowest column (the rightmost lowest) are full but for it",
        says_less=True,
    ),
    Feature(
        "burned_lines",
        "burned lines",
        "nes",
        "lines cleared by singles, doubles and triples (the caller's): they score a fraction "
        "of a Tetris's points per line",
    ),
    Feature(
        "right_column_height",
        "filled the right column",
        "nes",
        "height of column 9: the NES well, 4 taps right of spawn",
    ),
    Feature(
        "high_stack",
        "stack too high",
        "nes",
        "(stack height - safe height)^2 above it: the stack is the mean height of the 9 "
        "columns beside the lowest",
    ),
    Feature(
        "surface_value",
        "a surface fewer pieces fit",
        "nes",
        "the surface table's value of columns 0-8's top (the clean placements it leaves); "
        "higher is better",
        says_less=True,
    ),
    Feature(
        "burns_needed",
        "a row only a burn can clear",
        "nes",
        "rows only a clear other than a Tetris can take away: column 9 filled, or a cell "
        "above a hole in its column",
    ),
    Feature(
        "unreachable_columns",
        "a column an I piece cannot reach",
        "reach",
        "columns a vertical I tapped from spawn cannot reach",
    ),
    Feature(
        "reach_excess",
        "a tall column in the I piece's way",
        "reach",
        "rows the tallest column stands above what the I must pass to the wall beyond",
    ),
    Feature(
        "well_covered", "covered the well", "well", "(column 9's height / scare)^3: the well filled"
    ),
    Feature(
        "high_beside_well",
        "built high beside the well",
        "well",
        "(column 8's height - safe beside)^2 above it: an I must pass over column 8",
    ),
    Feature(
        "beside_well_low",
        "low beside the well",
        "well",
        "burns a column 8 well below column 7 will likely need",
    ),
    Feature(
        "unable_to_burn",
        "no way to burn down the stack",
        "well",
        "cells the middle lacks to fill rows up to column 8 (and holes near), times "
        "(column 8 / scare)^3",
    ),
    Feature(
        "built_out_left",
        "left side not built up",
        "well",
        "column 0 above the stack (clean under it): room for what does not fit the middle; "
        "higher is better",
        says_less=True,
    ),
    Feature(
        "well_tetris_ready",
        "not ready for a Tetris",
        "well",
        "1 when the 4 rows above column 9's top are full but it",
        says_less=True,
    ),
    Feature(
        "stack_height_over",
        "stack too high",
        "well",
        "(a tenth of columns 0-8's heights - scare)^2 above it",
    ),
    Feature(
        "extreme_gap",
        "a cliff in the surface",
        "well",
        "rows of height steps in columns 0-8 beyond 3",
    ),
    Feature(
        "stack_holes", "made a hole", "well", "covered empty cells in columns 0-8 (not the well)"
    ),
    Feature(
        "well_past_tetris",
        "ready rows stacked past a Tetris",
        "well",
        "rows full but for column 9 above its top, past the 4 an I clears: the ready rows a "
        "drought of I pieces strands",
    ),
    Feature(
        "covered_ready_rows",
        "capped the ready rows in the well",
        "well",
        "rows full but for column 9 under its top: ready rows a piece in the well has capped, "
        "which no I reaches until the rows over them are cleared",
    ),
)


# The evaluator's one term that is no feature (value_terms.evaluate_trace), in a player's
# words, and every term's words with whether they say less of it (Feature.says_less).
CEILING_TERM = ("ceiling_penalty", "close to the top")
PLAIN_WORDS: dict[str, tuple[str, bool]] = {f.name: (f.says, f.says_less) for f in FEATURES} | {
    CEILING_TERM[0]: (CEILING_TERM[1], False)
}


def names_in(group: str) -> tuple[str, ...]:
    """The names of one group's features, in slot order."""
    return tuple(f.name for f in FEATURES if f.group == group)


ALL_FEATURE_NAMES: tuple[str, ...] = tuple(f.name for f in FEATURES)
FEATURE_NAMES: tuple[str, ...] = names_in("meatfighter")
EXTRA_FEATURE_NAMES: tuple[str, ...] = names_in("seeds")
NES_FEATURE_NAMES: tuple[str, ...] = names_in("nes")
REACH_FEATURE_NAMES: tuple[str, ...] = names_in("reach")
WELL_FEATURE_NAMES: tuple[str, ...] = names_in("well")

_GROUP_ORDER = [group for group, _ in GROUPS]
if [f.group for f in FEATURES] != sorted((f.group for f in FEATURES), key=_GROUP_ORDER.index):
    raise ImportError("FEATURES must list each group's features together, in GROUPS order")


def pxi_text() -> str:
    """The C enum of the feature slots and the groups' counts (feature_slots.pxd includes it)."""
    lines = [
        "# Written by setup.py from cython_core/features.py; edit the table there, not this.",
        "cdef enum:",
    ]
    end = 0
    for group, count in GROUPS:
        end += len(names_in(group))
        lines.append(f"    {count} = {end}")
    lines += ["", "cdef enum:"]
    for slot, feature in enumerate(FEATURES):
        lines.append(f"    F_{feature.name.upper()} = {slot}  # {feature.about}")
    return "\n".join(lines) + "\n"


def write_pxi(directory: Path) -> None:
    """Write features.pxi into `directory` unless it already holds that text (an unchanged
    file keeps its time, so the build does not remake every module that includes it)."""
    path = directory / "features.pxi"
    text = pxi_text()
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
