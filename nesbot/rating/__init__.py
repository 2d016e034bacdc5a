"""`nesbot rate`: a player's placements against the best at the player's own speed.

Positions and placements come from a replayed input log (positions), the speed from its
buttons (speed), the best placement from the planner, the gap in expected points from
paired playouts (playouts), a grade from documented cut-offs (grades); rater rates one
placement, game a whole log, report prints them. docs/rating.md says how each is measured.
"""

from nesbot.rating.api import rate
from nesbot.rating.game import GameRating
from nesbot.rating.positions import Position
from nesbot.rating.rater import PieceRating

__all__ = ["GameRating", "PieceRating", "Position", "rate"]
