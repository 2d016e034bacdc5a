"""How the bot plans: the settings every command shares, and the one place a Planner is made.

`nesbot play`, `simulate`, `train` and `explain` take the same planner options (--tap-hz,
--lookahead, --reaction, --next-search); they become a PlannerSettings value, and
`build_planner` turns it and an evaluator into a nesbot._core.planner.Planner, so that the
bot on the ROM and the simulated games always plan alike.
"""

from dataclasses import dataclass, replace
from typing import Any, ClassVar

from nesbot._core.planner import (
    DEEP_BRANCH_MAX,
    DEFAULT_DEEP_BRANCH,
    DEFAULT_DEEP_WIDTH,
    DEFAULT_KILL_DEEP_BRANCH,
    DEFAULT_KILL_DEEP_WIDTH,
    DEFAULT_KILL_THIRD_BRANCH,
    DEFAULT_KILL_THIRD_BRANCH2,
    NEXT_WIDTH_MAX,
    Planner,
)
from nesbot.arguments import check_whole
from nesbot.bot.tap_rates import TAP_RATES
from nesbot.bot.value_model import value_model_for
from nesbot.errors import NesbotError

LOOKAHEADS = (0, 1, 2)  # unknown pieces weighed after the known ones
NEXT_SEARCHES = ("plain", "search")
DEFAULT_LOOKAHEAD = 2
# First placements the lookahead judges again by the expected unknown piece (the rest are
# ranked by the two known pieces alone).
DEFAULT_WIDTH = 8
# Lookahead 2 judges again DEFAULT_DEEP_WIDTH first placements two unknown pieces deep,
# following the first unknown piece's DEFAULT_DEEP_BRANCH best placements with the second;
# from level 29 on, DEFAULT_KILL_DEEP_WIDTH and DEFAULT_KILL_DEEP_BRANCH. With a reaction at
# 30 Hz (the community's format) it looks wider before level 29 too: +18,003 at level 39 and
# +8,194 before 29 on 1,000 fresh games; at 20 Hz 200 games showed no gain, and at level 19
# without a reaction it lost 20,599 before 29 on 300 (docs/strength.md, "A wider lookahead
# before level 29").
FORMAT_DEEP_WIDTH = 6
FORMAT_DEEP_BRANCH = 4
# At 30 Hz each first placement brings its two best pairs to the lookahead: with a reaction
# +18,343 before level 29 and +17,233 at level 39 on 1,000 fresh games, from level 19
# without one +19,688 and +35,871 (docs/strength.md, "Each first placement by its best
# continuation"). At 20 Hz with a reaction 200 fresh games made +32,198 before level 29 but
# -2,968 ± 21,250 at level 39 (5.5 points fewer reached it): one pair each there.
NEXT_WIDTH_30HZ = 2
# From level 29 with a reaction at 30 and 20 Hz, the best 2 of the kill screen's deep
# candidates are judged three unknown pieces deep: at 30 Hz +14,904 ± 5,242 at level 39 on
# 1,000 fresh games of the format, nothing before 29 (docs/strength.md, "What the blind
# frames cost at the kill screen"); at 20 Hz, with its learned value, reach 39 +4.5 ± 1.2
# points and +9,799 ± 4,348 at level 39 on 1,000 fresh games. Off at slower taps and
# without a reaction (unmeasured). Never wider than kill_screen_deep_width.
KILL_THIRD_WIDTH_FORMAT = 2
KILL_THIRD_TAP_RATES = (30, 20)
# The fields given as BY_FORMAT take the default for the tap rate and reaction. On the
# command line 0 asks for it (options.py); here 0 is a width of its own (the third look off).
BY_FORMAT = -1
MAX_PREMOVE = 8  # each option costs about 7 plans


@dataclass(frozen=True)
class PlannerSettings:
    """Everything besides the evaluator that decides how a piece is planned.

    tap_hz: the fastest one button is tapped. lookahead: 1 weighs the piece after the next
    (not shown yet) with the NES picker's odds. reaction: frames of a new piece's input
    planned before the next piece may be used (0: at once). next_search: how the next
    piece's placements are found ("plain" paths; "search" adds the gamepad search's tucks
    and spins after the `width` best first placements, where their board has a spot only
    those reach). width: first placements the lookahead (and that search) judge again.
    premove: with a reaction, the first `reaction` frames are chosen among the paths toward
    the `premove` best placements and no input at all, by the expected value of the replan
    over the next piece (its own plan: six times the planning). hedge: without premove,
    they are chosen among the blind best's path, no input, and the plain paths toward
    every column and orientation, by the best blind candidate the replan still reaches for
    each next piece (the values the lookahead already found: real time); False: toward
    the best placement. deep_width, deep_branch: lookahead 2's first placements judged two
    unknown pieces deep, and the first unknown piece's placements followed (BY_FORMAT: 6
    and 4 with a reaction at 30 Hz, else 3 and 2; the field then holds the number); the
    kill_screen_ pair: the same in plans made from level 29 on. kill_screen_third_width:
    of those, the best so many judged again three unknown pieces deep, following the
    kill_screen_third_branch best placements of the first unknown piece and the
    kill_screen_third_branch2 best of the second (0: none; BY_FORMAT: 2 with a reaction at
    30 and 20 Hz, else 0). next_width: with a
    lookahead, each first placement enters the `width` its lookahead judges with its
    next_width best placements of the next piece (by the two pieces), so it is worth its
    best continuation by the lookahead's value (1: its best pair alone; BY_FORMAT: 2 at
    30 Hz, else 1).
    """

    tap_hz: int = 30
    lookahead: int = DEFAULT_LOOKAHEAD
    reaction: int = 0
    next_search: str = "plain"
    width: int = DEFAULT_WIDTH
    premove: int = 0
    hedge: bool = True
    deep_width: int = BY_FORMAT
    deep_branch: int = BY_FORMAT
    kill_screen_deep_width: int = DEFAULT_KILL_DEEP_WIDTH
    kill_screen_deep_branch: int = DEFAULT_KILL_DEEP_BRANCH
    kill_screen_third_width: int = BY_FORMAT
    kill_screen_third_branch: int = DEFAULT_KILL_THIRD_BRANCH
    kill_screen_third_branch2: int = DEFAULT_KILL_THIRD_BRANCH2
    next_width: int = BY_FORMAT
    # The fields given as BY_FORMAT, which at_tap_hz chooses again (an attribute, not a
    # field: the games files' run identity holds the fields alone).
    _by_format: ClassVar[tuple[str, ...]] = ()

    def __post_init__(self) -> None:
        for field_name, kind in self.__annotations__.items():
            if kind in (int, "int"):  # True is no tap rate, 1.5 no width
                check_whole(field_name, getattr(self, field_name))
        fast = self.tap_hz == 30
        wide = fast and self.reaction > 0
        third = self.reaction > 0 and self.tap_hz in KILL_THIRD_TAP_RATES
        by_format = {
            "deep_width": FORMAT_DEEP_WIDTH if wide else DEFAULT_DEEP_WIDTH,
            "deep_branch": FORMAT_DEEP_BRANCH if wide else DEFAULT_DEEP_BRANCH,
            "next_width": NEXT_WIDTH_30HZ if fast else 1,
            "kill_screen_third_width": (
                min(KILL_THIRD_WIDTH_FORMAT, self.kill_screen_deep_width) if third else 0
            ),
        }
        left = tuple(name for name in by_format if getattr(self, name) == BY_FORMAT)
        object.__setattr__(self, "_by_format", left)
        for name in left:
            object.__setattr__(self, name, by_format[name])
        if self.tap_hz not in TAP_RATES:
            raise NesbotError(f"--tap-hz {self.tap_hz} is not one of {sorted(TAP_RATES)}")
        if self.lookahead not in LOOKAHEADS:
            raise NesbotError(f"--lookahead {self.lookahead} is not one of {list(LOOKAHEADS)}")
        if not 0 <= self.reaction <= 60:
            raise NesbotError(f"--reaction {self.reaction} is outside 0-60 frames")
        if not 0 <= self.premove <= MAX_PREMOVE:
            raise NesbotError(f"--premove {self.premove} is outside 0-{MAX_PREMOVE}")
        if self.premove and not self.reaction:
            raise NesbotError("--premove needs --reaction: without one there is no premove")
        for (width_name, width), (branch_name, branch) in (
            (("--deep-width", self.deep_width), ("--deep-branch", self.deep_branch)),
            (
                ("kill_screen_deep_width", self.kill_screen_deep_width),
                ("kill_screen_deep_branch", self.kill_screen_deep_branch),
            ),
        ):
            if not 1 <= width <= self.width:
                raise NesbotError(f"{width_name} {width} is outside 1-{self.width}")
            if not 1 <= branch <= DEEP_BRANCH_MAX:
                raise NesbotError(f"{branch_name} {branch} is outside 1-{DEEP_BRANCH_MAX}")
        if not 0 <= self.kill_screen_third_width <= self.kill_screen_deep_width:
            raise NesbotError(
                f"--kill-screen-third-width {self.kill_screen_third_width} is outside "
                f"0-{self.kill_screen_deep_width} (the kill screen's deep width)"
            )
        for name in ("kill_screen_third_branch", "kill_screen_third_branch2"):
            if not 1 <= getattr(self, name) <= DEEP_BRANCH_MAX:
                raise NesbotError(f"{name} {getattr(self, name)} is outside 1-{DEEP_BRANCH_MAX}")
        if not 1 <= self.next_width <= NEXT_WIDTH_MAX:
            raise NesbotError(f"--next-width {self.next_width} is outside 1-{NEXT_WIDTH_MAX}")
        if self.next_search not in NEXT_SEARCHES:
            raise NesbotError(
                f"--next-search {self.next_search!r} is not one of {', '.join(NEXT_SEARCHES)}"
            )

    @property
    def tap_interval(self) -> int:
        return TAP_RATES[self.tap_hz]

    def changed(self, **fields: Any) -> "PlannerSettings":
        """These settings with `fields` changed: the widths they left to the format are
        chosen again for the new settings (dataclasses.replace would keep the old ones'),
        the others as given."""
        by_format: dict[str, Any] = dict.fromkeys(self._by_format, BY_FORMAT)
        return replace(self, **(by_format | fields))

    def at_tap_hz(self, tap_hz: int) -> "PlannerSettings":
        """These settings at another tap rate (a log's measured one)."""
        return self.changed(tap_hz=tap_hz)


DEFAULT_SETTINGS = PlannerSettings()


def settings_saved_before(settings: dict[str, Any]) -> dict[str, Any]:
    """PlannerSettings fields saved (asdict) by an older nesbot, with the fields added
    since at what those plans did: before the kill_screen_ widths they searched as deep
    from level 29 as before it, and before next_width each first placement brought its
    best pair alone; none looked three unknown pieces deep."""
    return {
        "kill_screen_deep_width": settings.get("deep_width", DEFAULT_DEEP_WIDTH),
        "kill_screen_deep_branch": settings.get("deep_branch", DEFAULT_DEEP_BRANCH),
        "kill_screen_third_width": 0,
        "kill_screen_third_branch": DEFAULT_KILL_THIRD_BRANCH,
        "kill_screen_third_branch2": DEFAULT_KILL_THIRD_BRANCH2,
        "next_width": 1,
    } | settings


def build_planner(
    evaluator: object,
    settings: PlannerSettings,
    tap_interval: int | None = None,
    *,
    hold_shift: bool = False,
    plain_first: bool = False,
) -> Planner:
    """The planner for `evaluator` (anything nesbot._core.weight_sets takes) and `settings`;
    `tap_interval` overrides the settings' tap rate (the bot's straddled reading).
    `hold_shift` lets the gamepad search also hold a direction until it repeats (DAS: a
    player's move, which `nesbot rate` searches). `plain_first`: the current piece's
    placements too come from plain paths only (the cheap policy of rate's playouts).
    An evaluator with kill-screen sets for slower taps plays the settings' tap rate's; one
    with a value model at that rate (nesbot.bot.value_model.value_model_for) judges its
    kill screen by it too."""
    if hasattr(evaluator, "at_tap_hz"):
        evaluator = evaluator.at_tap_hz(settings.tap_hz)
    planner = Planner(
        evaluator,
        tap_interval=tap_interval or settings.tap_interval,
        hold_shift=hold_shift,
        first="plain" if plain_first else "search",
        second=settings.next_search,
        lookahead=settings.lookahead,
        width=settings.width,
    )
    planner.premove = settings.premove
    planner.hedge = settings.hedge
    planner.deep_width = settings.deep_width
    planner.deep_branch = settings.deep_branch
    planner.kill_deep_width = settings.kill_screen_deep_width
    planner.kill_deep_branch = settings.kill_screen_deep_branch
    planner.kill_third_width = settings.kill_screen_third_width
    planner.kill_third_branch = settings.kill_screen_third_branch
    planner.kill_third_branch2 = settings.kill_screen_third_branch2
    planner.next_width = settings.next_width
    planner.reaction = settings.reaction
    learned = value_model_for(evaluator, settings.tap_hz)
    if learned is not None:
        if learned.tap_hz != settings.tap_hz:
            raise NesbotError(
                f"the value model was trained at {learned.tap_hz} Hz, not {settings.tap_hz} Hz"
            )
        planner.value_model = learned.model()
    return planner
