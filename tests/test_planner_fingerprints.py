"""The planner's decisions, pinned: nesbot.lab.fingerprint's hash of every plan in a short
simulated game (scripts/bench_planner.py prints it), in each of the planner's modes.

A change meant to keep the bot's decisions (a refactor, a speed-up) must keep these; one
that means to change them updates the table and says why in its commit.
"""

import pytest

from nesbot.bot.planning import PlannerSettings
from nesbot.lab.fingerprint import fingerprint, play_games

FRAMES = 3000

# mode: (settings, level, frames, fingerprint, plans)
PINNED = {
    # nesbot-rightwell-tall, the default with a reaction and without, prices towers
    # (extreme_gap 12) and wells deeper than a Tetris (well_sums), its weights fitted to
    # playouts, and the stack's height half as dear at levels 19-28 (in these 3,000 frames
    # only the games without the hedge or with the premove stack that high); at 30 Hz each
    # first placement is judged with its two best pairs
    "defaults": (PlannerSettings(), 19, FRAMES, "7022453590f80af4", 67),
    # the best pair alone, as before level 19 had two: the same decisions as then
    "--next-width 1": (PlannerSettings(next_width=1), 19, FRAMES, "16f85f9ef77af4b9", 67),
    # with a reaction at 30 Hz lookahead 2 judges 6 first placements, 4 of the third piece's,
    # and each first placement with its two best pairs
    "--reaction 18": (PlannerSettings(reaction=18), 19, FRAMES, "4410ebc0b4fc53be", 144),
    # the best pair alone, as before --next-width: the same decisions as then
    "--reaction 18 --next-width 1": (
        PlannerSettings(reaction=18, next_width=1),
        19,
        FRAMES,
        "7039ee52595d7bf1",
        146,
    ),
    # the widths before they depended on the reaction: the same decisions as then
    "--reaction 18 --deep-width 3 --deep-branch 2 --next-width 1": (
        PlannerSettings(reaction=18, deep_width=3, deep_branch=2, next_width=1),
        19,
        FRAMES,
        "69ff4ea60deb0512",
        142,
    ),
    "--reaction 18 --no-hedge": (
        PlannerSettings(reaction=18, hedge=False),
        19,
        FRAMES,
        "1e9976eecf56bb53",
        145,
    ),
    # Six plans a blind piece: half the frames keep it as quick as the others.
    "--reaction 18 --premove 2": (
        PlannerSettings(reaction=18, premove=2),
        19,
        FRAMES // 2,
        "adb64105daf67b9a",
        75,
    ),
    "--level 29": (PlannerSettings(), 29, FRAMES, "19e2af14d4d089dd", 99),
    "--level 29 --next-width 1": (
        PlannerSettings(next_width=1),
        29,
        FRAMES,
        "312b6454dab0e91c",
        97,
    ),
    # and from level 29 keeps a lower stack (the fitted weights, a price on its height on top),
    # its lookahead 2 wider and deeper there, and the best 2 of its deep candidates judged
    # three unknown pieces deep (2 and then 1 placements followed; before level 29 nothing
    # changes: --reaction 18 above is as it was before it)
    "--level 29 --reaction 18": (
        PlannerSettings(reaction=18),
        29,
        FRAMES,
        "5b79b8c1562751d0",
        111,
    ),
    # two unknown pieces deep alone, as before the third: the same decisions as then
    "--level 29 --reaction 18, two unknown pieces deep from level 29": (
        PlannerSettings(reaction=18, kill_screen_third_width=0),
        29,
        FRAMES,
        "a63aea2732a2a290",
        116,
    ),
    # the kill screen's widths reach its plans: narrower, other decisions (level 19's
    # widths, 3 and 2, decide otherwise too)
    "--level 29 --reaction 18, lookahead 2 narrower from level 29": (
        PlannerSettings(
            reaction=18,
            kill_screen_deep_width=2,
            kill_screen_deep_branch=1,
            kill_screen_third_width=0,
        ),
        29,
        FRAMES,
        "866c39912028c29e",
        115,
    ),
    # the next piece's search after the kept first placements, each searched once
    "--lookahead 1 --next-search search": (
        PlannerSettings(lookahead=1, next_search="search"),
        19,
        FRAMES,
        "c8dc61cf2e720138",
        67,
    ),
    "--lookahead 1 --next-search search --next-width 1": (
        PlannerSettings(lookahead=1, next_search="search", next_width=1),
        19,
        FRAMES,
        "1646024ade303f98",
        69,
    ),
    "--lookahead 0": (PlannerSettings(lookahead=0), 19, FRAMES, "a60cd8262e792445", 65),
    # without a lookahead a first placement's best pair decides alone: as --lookahead 0
    "--lookahead 0 --next-width 2": (
        PlannerSettings(lookahead=0, next_width=2),
        19,
        FRAMES,
        "a60cd8262e792445",
        65,
    ),
}


@pytest.mark.parametrize("mode", PINNED)
def test_the_planner_decides_as_pinned(mode):
    settings, level, frames, expected, plans = PINNED[mode]
    bot = play_games(settings, None, games=1, frames=frames, level=level)
    assert (fingerprint(bot), len(bot.plan_seconds)) == (expected, plans)
