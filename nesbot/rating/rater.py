"""Rating one placement: the player's against the best the planner finds at the player's
speed, the gap in expected points by paired playouts, a grade, and what sets the boards
apart in the evaluator's terms."""

from dataclasses import asdict, dataclass, replace

import numpy as np

from nesbot._core.features import PLAIN_WORDS
from nesbot._core.game import Game
from nesbot._core.moves import Searcher
from nesbot._core.pieces import ORIENTATION_CELLS, PIECE_NAMES, PIECE_TYPE
from nesbot._core.value_terms import evaluate_trace
from nesbot.arguments import check_whole
from nesbot.bot.planning import DEFAULT_SETTINGS, PlannerSettings, build_planner
from nesbot.bot.value_model import without_value_model
from nesbot.errors import NesbotError
from nesbot.evaluation.evaluators import Evaluator
from nesbot.nes import ram
from nesbot.rating.grades import WORST, grade
from nesbot.rating.intent import read_intent
from nesbot.rating.playouts import DEFAULT_HORIZON, DEFAULT_PLAYOUTS, compare_places
from nesbot.rating.positions import LoggedPiece, Place, Position
from nesbot.rating.speed import miss_chance

FACTORS_SHOWN = 3


@dataclass(frozen=True)
class RatingSettings:
    """How placements are rated. `planner`: the search and judgement of the best
    placement (its tap rate the player's); `das`: the search also holds a direction until
    it repeats; `soft_drop`: the player's placement may also be found with Down pressed (the
    best is chosen without). Playouts: `playouts` random piece sequences of `horizon`
    pieces each, played by the bot at 30 Hz by plain paths without lookahead (a blunder's
    again with the planner's lookahead and gamepad search); `seed` chooses them.
    `timing_sd`: the player's press timing spread in frames (speed.py), which weighs a
    misdrop's cost by the chance of missing its window."""

    evaluator: Evaluator
    planner: PlannerSettings = DEFAULT_SETTINGS
    das: bool = False
    soft_drop: bool = True
    playouts: int = DEFAULT_PLAYOUTS
    horizon: int = DEFAULT_HORIZON
    seed: int = 0
    timing_sd: float | None = None

    def __post_init__(self) -> None:
        for name in ("playouts", "horizon", "seed"):
            check_whole(name, getattr(self, name))
        if self.seed < 0:
            raise NesbotError(f"--seed {self.seed} is negative")
        if not 2 <= self.playouts <= 1000:
            raise NesbotError(f"--playouts {self.playouts} is outside 2-1000")
        if not 0 <= self.horizon <= 1000:
            raise NesbotError(f"--horizon {self.horizon} is outside 0-1000 pieces")


def describe_place(place: Place) -> str:
    """A place as a player reads it: the columns the piece covers and its orientation ID."""
    x, _y, orientation = place
    columns = sorted({x + dx for dx, _dy in ORIENTATION_CELLS[orientation]})
    span = f"{columns[0]}" if len(columns) == 1 else f"{columns[0]}-{columns[-1]}"
    return f"cols {span} ${orientation:02X}"


@dataclass(frozen=True)
class PieceRating:
    """One rated placement. `points_lost`: expected points before level 29 (after it: over
    the playouts' horizon) the player's placement gives up against the best, with its
    standard error; None when they are the same. `found`: the search at the player's speed
    reaches the player's placement (when it does not, the player was faster than measured
    or the search misses a move). `factors`: the evaluator's terms by which the player's
    board is worse than the best's, largest first. `heading`: where the player's buttons
    were taking the piece when it is not where it locked (a misdrop, intent.py), with the
    frames of `slack` the missed press had and the expected points the miss cost
    (`misdrop_points`, ± `misdrop_points_se`); the grade and `points_lost` are then the
    heading's, the decision the player made. `miss_chance`: how often a press of the
    player's timing spread misses a window of that slack; `misdrop_expected_points`: the
    miss's cost weighted by it, what heading there was expected to cost in execution.
    A placement made as meant that needed a timed press (a tuck or spin) has its window
    in `slack`, where a press a frame too late would have locked in `timed_miss`, the
    chance of that in `miss_chance` and `risk_points`: the chance times what that lock
    would have cost against the player's (0 if nothing)."""

    number: int
    level: int
    lines: int
    score: int
    piece: str
    next: str
    player: Place
    best: Place | None
    found: bool
    points_lost: float | None
    points_lost_se: float | None
    grade: str
    factors: tuple[str, ...]
    board: tuple[int, ...]  # the position's 20 row masks, top row first, as Position.rows
    heading: Place | None = None
    slack: int | None = None
    misdrop_points: float | None = None
    misdrop_points_se: float | None = None
    miss_chance: float | None = None
    misdrop_expected_points: float | None = None
    timed_miss: Place | None = None
    risk_points: float | None = None

    @property
    def reasons(self) -> tuple[str, ...]:
        """Why the placement lost points, in a player's words (the feature table's), largest
        first: `factors` said plainly (plain_reasons), a phrase two terms share said once."""
        return plain_reasons(self.factors)

    def to_json(self) -> dict:
        out = asdict(self)
        out["reasons"] = list(self.reasons)
        out["player"] = _place_json(self.player)
        out["best"] = _place_json(self.best) if self.best is not None else None
        out["heading"] = _place_json(self.heading) if self.heading is not None else None
        out["timed_miss"] = _place_json(self.timed_miss) if self.timed_miss is not None else None
        out["factors"] = list(self.factors)
        out["board"] = board_text(self.board)
        for key in (
            "points_lost",
            "points_lost_se",
            "misdrop_points",
            "misdrop_points_se",
            "misdrop_expected_points",
            "risk_points",
        ):
            if out[key] is not None:
                out[key] = round(out[key])
        if self.miss_chance is not None:
            out["miss_chance"] = round(self.miss_chance, 4)
        return out


def board_text(rows: tuple[int, ...]) -> list[str]:
    """Row masks as the lines of 10 cells that Position.of and `nesbot explain` read."""
    return ["".join("#" if row >> column & 1 else "." for column in range(10)) for row in rows]


def plain_reasons(factors: tuple[str, ...]) -> tuple[str, ...]:
    """worse_factors' terms ("stack_holes 1 vs 0") in the words of the feature table. A
    term whose value went the other way than its words say (a weight of the uncommon sign:
    nesbot-trained weighs a lower stack worse) is left out: its words would be untrue."""
    said = []
    for factor in factors:
        name, mine, _vs, theirs = factor.split()
        words, says_less = PLAIN_WORDS[name]
        if float(mine) == float(theirs) or (float(mine) < float(theirs)) == says_less:
            said.append(words)
    return tuple(dict.fromkeys(said))


def _place_json(place: Place) -> dict:
    x, y, orientation = place
    return {"x": x, "y": y, "orientation": orientation, "text": describe_place(place)}


def _terms(
    position: Position, place: Place, evaluator: Evaluator, tap_interval: int
) -> dict[str, tuple]:
    after = position.after(place)
    state = after.state()
    cleared = ram.bcd_value(*state["lines"]) - position.lines
    rows = state["rows"][2:]
    return {
        name: (value, term)
        for name, value, _w, term in evaluate_trace(
            rows, cleared, 0, evaluator, level=position.level, tap_interval=tap_interval
        )
    }


def worse_factors(
    position: Position,
    player: Place,
    best: Place,
    evaluator: Evaluator,
    settings: PlannerSettings = DEFAULT_SETTINGS,
) -> tuple:
    """The evaluator's terms that are worse on the player's board than on the best's,
    weighed as the planner of `settings` weighs them (its tap rate's kill-screen set and
    piece ranges)."""
    evaluator = evaluator.at_tap_hz(settings.tap_hz)
    mine = _terms(position, player, evaluator, settings.tap_interval)
    theirs = _terms(position, best, evaluator, settings.tap_interval)
    gaps = []
    for name, (value, term) in mine.items():
        if name == "total" or name not in theirs:
            continue
        their_value, their_term = theirs[name]
        if term - their_term > 1e-9:  # lower is better
            gaps.append((term - their_term, f"{name} {value:g} vs {their_value:g}"))
    gaps.sort(reverse=True)
    return tuple(text for _gap, text in gaps[:FACTORS_SHOWN])


class Rater:
    """Rates placements under one RatingSettings (its planners and searcher are reused)."""

    def __init__(self, settings: RatingSettings) -> None:
        # Points lost are the evaluation's: no learned value judges the kill screen here
        # (the one shipped was learned from the bot's own games, not a person's).
        settings = replace(settings, evaluator=without_value_model(settings.evaluator))
        self.settings = settings
        planner_settings = settings.planner
        # The best placement among those reachable without soft drop: Down adds only
        # tucks and spins low in the stack, at several times the search's cost.
        self.planner = build_planner(settings.evaluator, planner_settings, hold_shift=settings.das)
        # The game after a placement goes on as the bot plays it with the two known pieces,
        # at 30 Hz and by plain paths only: a sixth of the gamepad search's cost, and both
        # places are played out by the same policy.
        self.playout_planner = build_planner(
            settings.evaluator,
            replace(planner_settings.at_tap_hz(30), lookahead=0, premove=0),
            plain_first=True,
        )
        # That policy is weak on a high stack: it tops out where the bot's own search, with
        # its lookahead, lives on (a placement a player survived was once rated 820,000
        # points lost). A blunder it finds is played out again by the bot as it plays.
        self.confirm_planner = build_planner(
            settings.evaluator, replace(planner_settings.at_tap_hz(30), premove=0)
        )
        interval, das = planner_settings.tap_interval, settings.das
        self.searchers = [Searcher(interval, hold_shift=das)]
        if settings.soft_drop:
            self.searchers.append(Searcher(interval, hold_shift=das, soft_drop=True))

    def reaches(self, game: Game, place: Place) -> bool:
        """The search at the player's speed reaches `place` (with soft drop only if the
        player used it and the place needs it)."""
        return any(
            place in {(x, y, o) for x, y, o, _pads in searcher.placements_of(game)}
            for searcher in self.searchers
        )

    def playout_seeds(self, number: int) -> list[int]:
        draw = np.random.default_rng([self.settings.seed, number])
        return [int(s) for s in draw.integers(2**62, size=self.settings.playouts)]

    def _points_lost(
        self, position: Position, place: Place, better: Place, number: int
    ) -> tuple[float, float]:
        """Expected points `place` gives up against `better` (0 if none), and the error."""
        for planner in (self.playout_planner, self.confirm_planner):
            comparison = compare_places(
                planner,
                position,
                place,
                better,
                self.playout_seeds(number),
                self.settings.horizon,
                self.settings.planner.reaction,
            )
            if grade(-comparison.gap, position.level) != WORST:
                break
        return max(0.0, -comparison.gap), comparison.gap_se

    def rate(
        self,
        position: Position,
        place: Place,
        number: int = 1,
        logged: LoggedPiece | None = None,
    ) -> PieceRating:
        """Rate locking the position's piece at `place` (piece `number` of its game, which
        chooses the playouts' pieces). With the piece as a log showed it (its buttons and
        path), a misdrop is told apart."""
        game = position.game()
        resting = set(game.resting_places())
        if place not in resting:
            x, y, orientation = place
            raise NesbotError(
                f"the {PIECE_NAMES[PIECE_TYPE[position.piece]]} cannot rest at x={x} y={y} "
                f"orientation ${orientation:02X} on this board"
            )
        found = self.reaches(game, place)
        plan = self.planner.plan(game)
        # The ROM lets a piece spawn over the stack; one that cannot move then locks where
        # it is and the game ends. Such a lock (the planner's, or a miss's) is no resting
        # place to play out: nothing is compared with it.
        best = (plan[1], plan[2], plan[3]) if plan is not None else None
        best = best if best in resting else None
        intent = None
        if logged is not None and logged.pads:
            intent = read_intent(
                position, logged.pads, logged.late, place, logged.lead, logged.path
            )
            if intent is not None and not {intent.heading, intent.miss or place} <= resting:
                intent = None
        heading = intent.heading if intent is not None and intent.misdrop else None
        decided = heading or place
        lost = lost_se = misdrop = misdrop_se = None
        factors: tuple[str, ...] = ()
        if best is not None and best != decided:
            lost, lost_se = self._points_lost(position, decided, best, number)
            factors = worse_factors(
                position, decided, best, self.settings.evaluator, self.settings.planner
            )
        slack = chance = expected = risk = timed_miss = None
        if intent is not None and (heading is not None or intent.miss is not None):
            slack = intent.slack  # of the missed press, or of the tuck or spin made
            chance = miss_chance(slack, self.settings.timing_sd)
        if heading is not None:
            misdrop, misdrop_se = self._points_lost(position, place, heading, number)
            expected = chance * misdrop if chance is not None else None
        elif intent is not None and intent.miss is not None:
            timed_miss = intent.miss
            if chance is not None:
                risk = chance * self._points_lost(position, timed_miss, place, number)[0]
        return PieceRating(
            number=number,
            level=position.level,
            lines=position.lines,
            score=position.score,
            piece=PIECE_NAMES[PIECE_TYPE[position.piece]],
            next=PIECE_NAMES[PIECE_TYPE[position.next]],
            player=place,
            best=best,
            found=found,
            points_lost=lost,
            points_lost_se=lost_se,
            grade=grade(lost, position.level),
            factors=factors,
            board=position.rows,
            heading=heading,
            slack=slack,
            misdrop_points=misdrop,
            misdrop_points_se=misdrop_se,
            miss_chance=chance,
            misdrop_expected_points=expected,
            timed_miss=timed_miss,
            risk_points=risk,
        )
