"""The seeds' evaluators, by name, all in one form the two-piece search can drive.

An evaluator is a weighted sum of board features (nesbot._core.features.ALL_FEATURE_NAMES)
with its authors' published weights and sign convention: `higher_is_better` evaluators are
negated for the search, which always minimizes. Only meatfighter-2018 brings the calming
rules (a Tetris first, the ceiling penalty, spawn and split vetoes); the others are their
bare published functions. Each names its published source below; the features are defined
in cython_core/evaluate.pyx, and docs/strength-log.md compares the evaluators.
"""

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from nesbot._core.features import ALL_FEATURE_NAMES
from nesbot._core.weight_sets import DEFAULT_SAFE_STACK_HEIGHT
from nesbot.arguments import check_path
from nesbot.errors import NesbotError
from nesbot.evaluation.weights import (
    DATA_DIR,
    MEATFIGHTER_2018,
    LevelSets,
    Weights,
    load_weights,
)


@dataclass(frozen=True)
class Evaluator(LevelSets):
    """A named linear evaluator: feature name -> published weight."""

    name: str
    weights: dict[str, float] = field(hash=False)
    higher_is_better: bool
    calming: bool
    ceiling: float
    source: str
    provenance: dict[str, Any] = field(default_factory=dict, hash=False)
    safe_stack_height: float = DEFAULT_SAFE_STACK_HEIGHT  # where high_stack starts counting
    # From level 29 on (or its from_level): these weights and safe_stack_height instead
    # (Weights.kill_screen).
    kill_screen: dict[str, float] = field(default_factory=dict, hash=False)
    # Kill_screen sets for slower taps (Weights.kill_screen_by_tap_hz); build_planner plays
    # the bot's own (at_tap_hz).
    kill_screen_by_tap_hz: dict[int, dict[str, float]] = field(default_factory=dict, hash=False)
    # From level 19 (or its from_level) until the kill_screen set: these weights and
    # safe_stack_height instead (Weights.fast_levels).
    fast_levels: dict[str, float] = field(default_factory=dict, hash=False)
    # Fast_levels sets for slower taps (Weights.fast_levels_by_tap_hz).
    fast_levels_by_tap_hz: dict[int, dict[str, float]] = field(default_factory=dict, hash=False)
    # Learned values shipped for this evaluator's kill screen, by tap rate: file names in
    # nesbot/data/ (nesbot.bot.value_model.value_model_for reads the bot's own).
    value_models_by_tap_hz: dict[int, str] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        unknown = sorted(set(self.weights) - set(ALL_FEATURE_NAMES))
        if unknown:
            raise ValueError(f"evaluator {self.name}: unknown features {', '.join(unknown)}")
        self._check_level_sets()

    def at_tap_hz(self, tap_hz: int) -> "Evaluator":
        """This evaluator as a bot tapping `tap_hz` plays it: its tap rate's kill_screen
        and fast_levels sets as those sets."""
        return replace(self, **self._sets_at_tap_hz(tap_hz))

    def as_vector(self) -> list[float]:
        """All features' weights in ALL_FEATURE_NAMES order, lower-is-better."""
        return [self._sign * self.weights.get(name, 0.0) for name in ALL_FEATURE_NAMES]

    def _named_weights(self) -> tuple[dict[str, float], float]:
        return self.weights, self._sign

    @property
    def _sign(self) -> float:
        return -1.0 if self.higher_is_better else 1.0

    @classmethod
    def from_weights(cls, weights: Weights, name: str) -> "Evaluator":
        """A weights file's evaluator, with the calming rules."""
        return cls(
            name=name,
            weights=weights.by_name(),
            higher_is_better=False,
            calming=True,
            ceiling=weights.ceiling,
            source=str(weights.provenance.get("source", "a weights file")),
            provenance=weights.provenance,
            safe_stack_height=weights.safe_stack_height,
            kill_screen=weights.kill_screen,
            kill_screen_by_tap_hz=weights.kill_screen_by_tap_hz,
            fast_levels=weights.fast_levels,
            fast_levels_by_tap_hz=weights.fast_levels_by_tap_hz,
        )


EVALUATORS: dict[str, Evaluator] = {
    e.name: e
    for e in (
        Evaluator.from_weights(MEATFIGHTER_2018, "meatfighter-2018"),
        Evaluator(
            name="meatfighter-2014",
            weights={
                "total_lines_cleared": 1.0,
                "total_lock_height": 12.885008263218383,
                "total_well_cells": 15.842707182438396,
                "total_column_holes": 26.894496507795950,
                "total_column_transitions": 27.616914062397015,
                "total_row_transitions": 30.185110719279040,
            },
            higher_is_better=False,
            calming=False,
            ceiling=0.0,
            source="meatfighter.com/nintendotetrisai (2014)",
        ),
        Evaluator(
            name="el-tetris",
            weights={
                "landing_height": -4.500158825082766,
                "total_lines_cleared": 3.4181268101392694,
                "row_transitions_all_rows": -3.2178882868487753,
                "column_transitions_from_floor": -9.348695305445199,
                "covered_cells": -7.899265427351652,
                "well_sums": -3.3855972247263626,
            },
            higher_is_better=True,
            calming=False,
            ceiling=0.0,
            source="Islam El-Ashi, El-Tetris (2011)",
        ),
        Evaluator(
            name="yiyuan-lee",
            weights={
                "total_column_heights": -0.510066,
                "total_lines_cleared": 0.760666,
                "covered_cells": -0.35663,
                "column_height_variance": -0.184483,
            },
            higher_is_better=True,
            calming=False,
            ceiling=0.0,
            source="Yiyuan Lee, Tetris AI (2013)",
        ),
        Evaluator(
            name="hidamari",
            weights={
                "total_column_heights": 0.848058,
                "column_height_variance": 2.304684,
                "covered_cells": 1.405450,
            },
            higher_is_better=False,
            calming=False,
            ceiling=0.0,
            source="Hidamari",
        ),
        Evaluator(
            name="nguyen-morua",
            weights={
                "right_side_holes": 1.0,
                "covered_cell_heights": 1.0,
                "left_side_holes": 1.0,
            },
            higher_is_better=False,
            calming=False,
            ceiling=0.0,
            source="Nguyen and Morua, three-rule holes, f(y) = y, g(y) = 1",
        ),
    )
}
# Weights shipped as data files, each in nesbot/data/ under its name ("-" as "_").
EVALUATORS |= {
    name: Evaluator.from_weights(load_weights(DATA_DIR / f"{name.replace('-', '_')}.json"), name)
    for name in (
        "nesbot-trained",
        "nesbot-reaction18",
        "nesbot-rightwell",
        "nesbot-rightwell-safe",
        "nesbot-rightwell-killscreen",
        "nesbot-rightwell-wellsums",
        "nesbot-rightwell-rollout",
        "nesbot-rightwell-fitted",
        "nesbot-rightwell-bold",
        "nesbot-rightwell-tall",
    )
}
# StackRabbit's evaluation on nesbot's features: stronger than the trained weights in both
# formats (docs/strength-log.md, "The right-well evaluation"). With a reaction, its author's
# safe setting (the height term doubled, a burned line half as dear) is stronger still, and
# a stack kept lower from level 29 on (a kill_screen set) takes more games to level 39, and
# more still with a well deeper than a Tetris priced (El-Tetris's well sums): an I drought
# over a deep well is how most games end before level 29. With nine of its weights before
# level 29 fitted to playouts of the alternatives each choice had, it makes more Tetrises
# there; with the kill screen playing the same fitted weights (its risk weights on top),
# more games live to level 39 and make more there (docs/strength-log.md, "The fitted weights
# through the kill screen"), and at 30 Hz more still with half that height price
# (docs/strength-log.md, "The kill screen's risk with the fitted weights"). Made for the
# reaction, it plays level 19 without one better too: more max-outs, and more games to
# level 39 (docs/strength-log.md, "One evaluator for both formats"). At levels 19-28, where a
# piece falls a row every two frames, a set of its own prices the stack's height half as
# much: more points before level 29 in both formats (docs/strength-log.md, "A set of its own
# for levels 19-28").
DEFAULT_EVALUATOR = "nesbot-rightwell-tall"
# At 15 and 20 Hz the boards its kill-screen lookahead reaches are judged by a value learned
# from its own games there too (TD(lambda), scripts/learned/train_value.py), which counts
# reaching level 39: level 39 in 55.7% of 1,000 fresh games at 15 Hz (10.5% of 200 without
# one), in 74.8% at 20 Hz against 64.2% without (docs/strength-log.md, "A value that counts
# reaching level 39").
EVALUATORS[DEFAULT_EVALUATOR] = replace(
    EVALUATORS[DEFAULT_EVALUATOR],
    value_models_by_tap_hz={15: "value_15hz.json", 20: "value_20hz.json"},
)
# What `nesbot train` starts from: weights in the form it trains, made for the format.
TRAINED_EVALUATOR = "nesbot-trained"  # trained at level 19, the next piece used at once
REACTION_TRAINED_EVALUATOR = "nesbot-reaction18"  # trained at level 18 with --reaction 18


def training_start_name(reaction: int = 0) -> str:
    """The trained weights `nesbot train` starts from unless told otherwise."""
    return REACTION_TRAINED_EVALUATOR if reaction > 0 else TRAINED_EVALUATOR


def get_evaluator(
    name: str | None = None, weights_file: str | None = None, reaction: int = 0
) -> Evaluator:
    """The evaluator a command asked for: a weights file, a registry name, or
    DEFAULT_EVALUATOR. `reaction` names the format; both formats share one default since
    nesbot-rightwell-bold played level 19 better too, and callers keep naming it."""
    if weights_file is not None and name is not None:
        raise NesbotError("give --weights FILE or --evaluator NAME, not both")
    if weights_file is not None:
        check_path("weights", weights_file)
        return Evaluator.from_weights(load_weights(weights_file), Path(weights_file).name)
    name = name or DEFAULT_EVALUATOR
    if name not in EVALUATORS:
        raise NesbotError(f"unknown evaluator {name!r}; known: {', '.join(EVALUATORS)}")
    return EVALUATORS[name]
