"""A game of the community's format played a piece at a time, for the scripts that count
what each piece does (reaction_window.py, burns.py): level 18, counted by level band (18,
where a piece falls a row in 3 frames, and 19-28, in 2), to level 29."""

from collections.abc import Iterator

from nesbot._core.moves import Searcher
from nesbot._core.pieces import KILL_SCREEN_LEVEL
from nesbot._core.whole_games import play
from nesbot.lab.game_runs import MAX_FRAMES, GameSpec, planner_for, start_game

LEVEL = 18
BANDS = ("18", "19-28")


class PieceByPiece:
    """Game `spec` with its planner and its gamepad search (at the tap rate the planner has)."""

    def __init__(self, spec: GameSpec) -> None:
        self.game, self.pieces_seed = start_game(spec)
        self.planner = planner_for(spec.evaluator, spec.settings)
        self.searcher = Searcher(spec.settings.tap_interval)
        self.reaction = spec.settings.reaction
        self.stop_level = spec.stop_level

    def bands(self) -> Iterator[str]:
        """The level band of each piece, at its first frame, while the game goes on before
        level 29; the caller plays the piece (play_piece) before asking for the next."""
        while self.game.active and (level := self.game.state()["level"]) < KILL_SCREEN_LEVEL:
            yield BANDS[0] if level == LEVEL else BANDS[1]

    def play_piece(self) -> None:
        """Let the bot play the piece, with its reaction, until the next one is active."""
        play(
            self.planner,
            self.game,
            MAX_FRAMES,
            self.stop_level,
            self.reaction,
            self.pieces_seed,
            1,
        )
