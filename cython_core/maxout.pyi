"""Type stubs for nesbot._core.maxout (a Cython extension module)."""

from nesbot._core.game import Game

def burn_slack_of(game: Game, most: int) -> int: ...
