"""Where the player was heading: a misdrop told apart from a mistake, from the buttons.

The piece's frames are played again on the simulator from its position with the player's
buttons (they must lock it where it locked, else nothing is said). A press of Left, Right,
A or B that moved nothing (the piece was blocked, or had locked a frame or two before) is
wasted. If pressing it earlier, by up to MAX_EARLY frames, would have moved the piece and
locked it elsewhere, the player was heading there and missed: a misdrop. The frames of
slack are how many of those earlier frames would have made it. A wasted press that no
earlier timing makes count (tapping against a wall) is no misdrop.

A placement made as meant may still have needed a timed press (a tuck or a spin): a tap
that reaches the place only within a window of frames closed on both sides. Its window and
where a press a frame late would have locked are kept, to weigh the risk the player took.
"""

from collections.abc import Sequence
from dataclasses import dataclass, replace

from nesbot._core.buttons import LEFT, RIGHT, A, B
from nesbot.rating.positions import Place, Position

MOVES = (LEFT, RIGHT, A, B)
MAX_EARLY = 8  # frames a missed press is tried earlier (and a timed one either way)
BUTTON_NAMES = {LEFT: "Left", RIGHT: "Right", A: "A", B: "B"}


@dataclass(frozen=True)
class Intent:
    """`heading`: where the player was heading (the locked place unless `misdrop`).
    `missed`: the wasted press that made the misdrop, as (frame after the spawn, button).
    `slack`: the frames before it at which that press would have reached `heading`.
    For a placement made as meant that needed a timed press (a tuck or a spin: the press
    works in a window of `slack` frames), `miss` is where the piece would have locked had
    that press come a frame after its window."""

    heading: Place
    misdrop: bool
    missed: tuple[int, str] | None = None
    slack: int = 0
    miss: Place | None = None


def _play(
    position: Position, pads: bytes
) -> tuple[Place | None, list[tuple[int, int]], list[Place]]:
    """Play the pads from the spawn: the lock's place (None if the piece is still falling
    when they end), the wasted presses as (frame, button), and the piece's place after each
    frame up to the lock."""
    game = position.game()
    locked: Place | None = None
    wasted: list[tuple[int, int]] = []
    trail: list[Place] = []
    previous = position.held
    for frame, pad in enumerate(pads):
        newly = pad & ~previous
        previous = pad
        if locked is not None:
            wasted.extend((frame, b) for b in MOVES if newly & b)  # after the lock
            continue
        x, _y, orientation = game.position
        game.step(pad)
        moved_x, _y, turned = game.position
        trail.append(game.position)
        if not game.active:
            locked = game.position
        for b in MOVES:
            if newly & b and (moved_x == x if b in (LEFT, RIGHT) else turned == orientation):
                wasted.append((frame, b))
    return locked, wasted, trail


def _pressed_at(pads: bytes, frame: int, button: int, at: int) -> bytes:
    """The pads with the press of `button` at `frame` made at `at` instead (a one-frame tap
    there; where it is held at `frame`, the hold stays)."""
    out = bytearray(pads)
    out[frame] &= ~button
    out[at] |= button
    if at > 0:
        out[at - 1] &= ~button  # a new press needs the button up the frame before
    return bytes(out)


def _readings(
    position: Position, pads: bytes, late: bytes, lead: bytes
) -> list[tuple[Position, bytes]]:
    """The ways the game may have read the log's buttons: each frame its own step's (a step
    is a whole frame), or the step before's (nes-py's step boundary between the poll and
    the logic, as early in a session; nesbot/nes/emulator.py)."""
    own = (position, pads + late)
    if len(lead) != 2 or not pads:
        return [own]
    before = (replace(position, held=lead[0]), bytes(lead[1:]) + pads + late[:-1])
    return [own, before]


def read_intent(
    position: Position,
    pads: bytes,
    late: bytes,
    place: Place,
    lead: bytes = b"",
    path: tuple[Place, ...] = (),
) -> Intent | None:
    """The intent behind locking at `place` with `pads` (the frames from the spawn to the
    lock) and `late` (the frames just after it); None if no reading of the buttons plays
    the piece as the game did (to `place`, and along `path`, its place after each frame,
    when given). `lead`: the buttons of the two steps before the first frame, for the
    reading one step late."""
    plays = [
        (start, buttons, *_play(start, buttons))
        for start, buttons in _readings(position, pads, late, lead)
    ]
    # Frame by frame first. Else by the route: where nes-py's step ends inside the game
    # logic, RAM shows the piece's place a step late, or part-updated (the shift made, the
    # drop of the same frame not yet), so RAM's places need only follow the route's order.
    spawn = position.game().position
    for same in (
        lambda trail: tuple(trail) == path,
        lambda trail: _in_order(_route(path), _route([spawn, *trail])),
    ):
        for start, buttons, locked, wasted, trail in plays:
            if locked == place and (not path or same(trail)):
                return _misdrop(start, buttons, place, wasted)
    return None


def _route(places: Sequence[Place]) -> list[Place]:
    """The places in the order the piece passed them, each once per stay."""
    return [p for k, p in enumerate(places) if k == 0 or places[k - 1] != p]


def _in_order(seen: list[Place], route: list[Place]) -> bool:
    """Every place of `seen` is on `route` in the same order, or between two places in a
    row of it (each coordinate the one's or the next's: a place RAM showed part-updated)."""
    k = 0
    for place in seen:
        while k < len(route) and not (
            route[k] == place
            or (
                k > 0
                and all(c in (a, b) for c, a, b in zip(place, route[k - 1], route[k], strict=True))
            )
        ):
            k += 1
        if k == len(route):
            return False
    return True


def _misdrop(
    position: Position, buttons: bytes, place: Place, wasted: list[tuple[int, int]]
) -> Intent:
    for frame, button in wasted:
        reached: list[Place] = []
        for early in range(1, MAX_EARLY + 1):
            at = frame - early
            if at < 0:
                break
            elsewhere, _, _ = _play(position, _pressed_at(buttons, frame, button, at))
            if elsewhere is not None and elsewhere != place:
                reached.append(elsewhere)
            elif reached:
                break  # the window of timings that work has closed
        if reached:
            heading = reached[0]
            slack = sum(1 for p in reached if p == heading)
            return Intent(heading, True, (frame, BUTTON_NAMES[button]), slack)
    timed = _timed_press(position, buttons, place)
    if timed is not None:
        slack, miss = timed
        return Intent(place, False, slack=slack, miss=miss)
    return Intent(place, False)


def _timed_press(position: Position, buttons: bytes, place: Place) -> tuple[int, Place] | None:
    """The press a tuck or spin needed: a one-frame tap that reaches `place` only within a
    window of frames closed on both sides (made earlier, the piece had not passed what
    blocked it; later, it had locked or passed the spot), moved up to MAX_EARLY frames
    either way but not into the player's other taps of that button. Of those, the one
    with the fewest frames, and where it locks when made a frame after its window; None
    if no press was timed."""
    tightest: tuple[int, Place] | None = None
    presses = [
        (frame, button)
        for frame, (before, pad) in enumerate(
            zip(bytes([position.held]) + buttons, buttons, strict=False)
        )
        for button in MOVES
        if pad & button and not before & button
    ]
    for frame, button in presses:
        if frame + 1 < len(buttons) and buttons[frame + 1] & button:
            continue  # held, not tapped: its timing is the hold's
        others = [f for f, b in presses if b == button and f != frame]
        earliest = max([f + 2 for f in others if f < frame], default=0)
        latest = min([f - 2 for f in others if f > frame], default=len(buttons) - 1)
        window, misses = 1, []
        for direction, bound in ((-1, earliest), (1, latest)):
            for shift in range(1, MAX_EARLY + 1):
                at = frame + direction * shift
                if (at < bound) if direction < 0 else (at > bound):
                    break
                locked, _, _ = _play(position, _pressed_at(buttons, frame, button, at))
                if locked != place:
                    misses.append(locked)
                    break
                window += 1
        late_miss = misses[-1] if len(misses) == 2 else None
        if late_miss is not None and (tightest is None or window < tightest[0]):
            tightest = (window, late_miss)
    return tightest
