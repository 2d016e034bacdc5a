"""`nesbot rate --video`: the game again, with each piece's best placement and the player's
outlined while it falls, and its grade on the panel."""

from dataclasses import replace

from nesbot.rating.rater import PieceRating
from nesbot.show.overlay import Figures, FrameInfo, Placement
from nesbot.show.watch import GameWatch

LEGEND = ("best placement", "the player's")


class RatingWatch(GameWatch):
    """A GameWatch whose overlay shows the rating of the piece on screen: the best placement
    (white) and where the player locks it (grey), and on the panel its grade and points."""

    def __init__(self, ratings: list[PieceRating]) -> None:
        super().__init__(plans=self)
        self._ratings = {rating.number: rating for rating in ratings}
        self._noted: tuple[Figures, Figures] | None = None  # the figures, and with the note

    def _rating(self) -> PieceRating | None:
        return self._ratings.get(self.pieces)

    @property
    def planned_lock(self) -> Placement | None:
        rating = self._rating()
        return rating.best if rating is not None else None

    @property
    def planned_next_lock(self) -> Placement | None:
        rating = self._rating()
        return rating.player if rating is not None else None

    def info(self) -> FrameInfo:
        info = super().info()
        figures = info.figures
        if self._noted is None or self._noted[0] is not figures:
            self._noted = (figures, replace(figures, note=self._note(), legend=LEGEND))
        return replace(info, figures=self._noted[1])

    def _note(self) -> tuple[str, ...]:
        rating = self._rating()
        if rating is None:
            return ()
        verdict = f"#{rating.number} {rating.grade.upper()}"
        if rating.points_lost is None:
            return (verdict,)
        lost = f"-{rating.points_lost:,.0f} pts"
        if rating.heading is not None:
            lost += " (misdrop)"
        return (verdict, lost)
