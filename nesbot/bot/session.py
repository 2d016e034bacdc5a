"""`nesbot play`: boot the ROM, reach the start level through the menus, and let the bot play.

`play_game` is the frame loop: it asks a policy for each frame's button byte, given the
emulator's RAM between two frames and the steps since power-on, and steps the emulator with
it until top-out (or `max_frames`). `play` is the whole session behind the command: the
emulator, the menus (with progress), the game, and what is kept of it (input log, video,
still) or shown (window). Argument parsing and printing live in nesbot/cli/play.py.
"""

import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from nesbot._core.pieces import KILL_SCREEN_LEVEL
from nesbot.bot.policy import Bot
from nesbot.nes import ram
from nesbot.nes.emulator import Emulator
from nesbot.nes.fm2 import Fm2Writer, fceux_rom_md5
from nesbot.nes.menus import GameSetup, start_game
from nesbot.nes.polls import FrameRecorder
from nesbot.nes.rom import Rom
from nesbot.nes.screen_layout import SCREEN_HEIGHT, SCREEN_WIDTH
from nesbot.nes.timing import ALIGNED_FRAMES
from nesbot.show.destinations import open_window, whole_frames
from nesbot.show.frames import FrameJoiner
from nesbot.show.overlay import FrameInfo, Renderer
from nesbot.show.pace import Pacer
from nesbot.show.watch import GameWatch

if TYPE_CHECKING:
    from nesbot.show.window import Window

Policy = Callable[[np.ndarray, int], int]  # (RAM, steps since power-on) -> buttons
Progress = Callable[[ram.GameState, int], None]  # (state, pieces), every PROGRESS_EVERY frames
BootProgress = Callable[[int, int], None]  # (steps since power-on, steps the menus wait for)
PROGRESS_EVERY = 30  # frames between progress calls
BOOT_PROGRESS_SECONDS = 0.25  # between boot progress calls


@dataclass(frozen=True)
class GameResult:
    """What `nesbot play --json` prints (the CLI adds the bot's figures)."""

    score: int
    lines: int
    level: int
    start_level: int
    pieces: int
    frames: int
    tetrises: int
    maxout: bool
    maxout_lines: int | None
    topped_out: bool
    seed: int
    rom_md5: str


def play_game(
    emu: Emulator,
    setup: GameSetup,
    rom: Rom,
    policy: Policy,
    max_frames: int | None = None,
    progress: Progress | None = None,
    realtime: bool = False,
    watch: GameWatch | None = None,
) -> GameResult:
    """Step a game that is on its first active frame with `policy` until top-out or
    `max_frames` frames. `watch`, if given, must be in emu.observers already (first, so
    that observers after it see it up to date); else one is attached for the game."""
    memory = emu.ram
    own_watch = watch is None
    if watch is None:
        watch = GameWatch(memory)
        emu.observers.insert(0, watch)
    pacer = Pacer() if realtime else None
    frames = 0
    try:
        if pacer is not None:
            pacer.wait()
        # Per frame only the few bytes that matter are read; decoding all of RAM would cost
        # about a tenth of an emulated frame.
        while memory[ram.PLAY_STATE] != ram.PLAY_TOPPED_OUT and (
            max_frames is None or frames < max_frames
        ):
            emu.step(policy(memory, emu.frame))
            frames += 1
            if pacer is not None:
                pacer.wait()
            if progress is not None and frames % PROGRESS_EVERY == 0:
                progress(ram.decode(memory), watch.pieces)
    finally:
        if own_watch:
            emu.observers.remove(watch)
    return game_result(memory, watch, setup, frames, rom.md5)


def game_result(
    memory: np.ndarray, watch: GameWatch, setup: GameSetup, frames: int, rom_md5: str
) -> GameResult:
    """The result of the game in `memory`, `frames` steps after its first active frame."""
    state = ram.decode(memory)
    # A maxout is 999,999 before level 29 (where the game's speed becomes one frame a row).
    maxout = watch.cap is not None and watch.cap.level < KILL_SCREEN_LEVEL
    return GameResult(
        state.score,
        state.lines,
        state.level,
        setup.level,
        watch.pieces,
        frames,
        state.tetrises,
        maxout,
        watch.cap.lines if maxout and watch.cap is not None else None,
        state.topped_out,
        setup.seed,
        rom_md5,
    )


def summary(result: GameResult, bot: Bot) -> dict[str, Any]:
    """What `nesbot play --json` prints: the result and the bot's figures."""
    return asdict(result) | {
        "desyncs": bot.desyncs,
        "plan_ms_p50": bot.plan_ms(50),
        "plan_ms_p99": bot.plan_ms(99),
        "fallbacks": bot.fallbacks,
        "truncated": bot.truncated,
    }


def recorded_figures(result: GameResult, steps: int) -> dict[str, int]:
    """What an input log records of the game it holds (its ``result`` comment), for
    replay to check: `frames` counts from the game's first frame, `steps` from power-on."""
    return {
        "score": result.score,
        "lines": result.lines,
        "level": result.level,
        "pieces": result.pieces,
        "frames": result.frames,
        "steps": steps,
    }


@dataclass(frozen=True)
class Outputs:
    """What a session keeps of its game, and whether it shows it."""

    log: Path | None = None  # FCEUX .fm2 input log, from power-on
    video: Path | None = None  # .mp4 or .webm of the game's frames
    still: Path | None = None  # PNG: the frame the score first shows 999,999, else the last
    scale: int = 3  # picture upscale, for video, window and still
    overlay: bool = False  # the panel and the plan outlines, in all three
    show: bool = False  # a live window
    codec: str | None = None  # the .mp4's encoder (nesbot.show.video.CODECS; None: nesbot's)


@dataclass(frozen=True)
class Session:
    """What `play` did: the game, and the files it wrote."""

    result: GameResult
    video_frames: int  # frames in the video (0 without one)
    still_frame: int | None  # the step (since power-on) the still shows, if one was saved


class _Still:
    """A WholeFrames consumer that renders the first frame whose picture shows the score at
    999,999 (the frame after RAM does: its NMI draws the score that the last frame's logic
    wrote), else the last frame, for --still."""

    def __init__(self, watch: GameWatch, renderer: Renderer) -> None:
        self.watch = watch
        self.renderer = renderer
        self.picture: np.ndarray | None = None  # rendered: the cap's frame, or by take()
        self.frame: int | None = None  # the step that began the frame kept
        # The last frame, kept as it came (rendering every frame would cost the game).
        self._last = np.zeros((SCREEN_HEIGHT, SCREEN_WIDTH, 3), np.uint8)
        self._last_info: FrameInfo | None = None

    def __call__(self, picture: np.ndarray, info: FrameInfo | None, step: int) -> None:
        if self.picture is not None:
            return
        np.copyto(self._last, picture)
        self._last_info, self.frame = info, step
        cap = self.watch.cap
        if cap is not None and step > cap.frame:
            self.take()

    def take(self) -> np.ndarray | None:
        """The picture to save: the cap's frame, else the last frame (None before any)."""
        if self.picture is None and self.frame is not None:
            self.picture = self.renderer.render(self._last, self._last_info).copy()
        return self.picture


def play(
    rom: Rom,
    setup: GameSetup,
    bot: Bot,
    outputs: Outputs = Outputs(),
    *,
    tap_hz: int = 30,
    max_frames: int | None = None,
    realtime: bool = False,
    progress: Progress | None = None,
    boot_progress: BootProgress | None = None,
) -> Session:
    """Boot, choose the game in the menus, and let `bot` play it (see the module docstring).

    Every output is checked before the ~40 s boot, so a bad path fails at once. Ctrl-C, or
    closing the window (window.WindowClosed), ends the game with every file closed and
    readable.
    """
    from nesbot.show.video import check_png_path

    if outputs.still is not None:
        check_png_path(outputs.still)
    with ExitStack() as stack:
        window = None
        if outputs.show:
            window = open_window(stack, outputs.scale, outputs.overlay, realtime)
        emu = stack.enter_context(Emulator(rom.path))
        log = None
        if outputs.log is not None:
            comments = [
                ("start_level", str(setup.level)),
                ("seed", str(setup.seed)),
                ("tap_hz", str(tap_hz)),
                ("evaluator", bot.evaluator_name),
            ]
            log = stack.enter_context(Fm2Writer(outputs.log, fceux_rom_md5(rom.data), comments))
            recorder = FrameRecorder(log)
            stack.callback(recorder.close)  # before the log closes, even on Ctrl-C
            emu.observers.append(recorder)
        watch = GameWatch(emu.ram, bot)
        # Every picture kept or shown is a whole frame, one step late (nesbot.show.frames).
        frames, writer = whole_frames(
            stack,
            watch,
            video=outputs.video,
            scale=outputs.scale,
            overlay=outputs.overlay,
            codec=outputs.codec,
        )
        still = None
        if outputs.still is not None:
            still = _Still(watch, Renderer(outputs.scale, outputs.overlay))
            frames.consumers.append(still)
        if window is not None:
            frames.consumers.append(window)

        _boot(emu, setup, window, boot_progress)
        # The watch starts on the game's first frame; the video shows the game, not the menus.
        watch.reset()
        if frames.consumers:  # it observes the emulator from the game's first frame on
            frames(0, emu)  # the last boot step began the game's first picture
            emu.observers.extend((watch, frames))
        else:
            emu.observers.append(watch)
        result = play_game(
            emu,
            setup,
            rom,
            bot,
            max_frames=max_frames,
            progress=progress,
            realtime=realtime,
            watch=watch,
        )
        if log is not None:
            log.record_result(recorded_figures(result, emu.frame))
        picture = still.take() if still is not None else None
        if picture is not None and outputs.still is not None:
            from nesbot.show.video import save_png

            save_png(picture, outputs.still)
    return Session(
        result,
        writer.frames_written if writer is not None else 0,
        still.frame if still is not None else None,
    )


def _boot(
    emu: Emulator, setup: GameSetup, window: "Window | None", boot_progress: BootProgress | None
) -> None:
    """start_game, showing its progress: the menus wait for nes-py's whole-frame steps."""
    target = ALIGNED_FRAMES.start + setup.seed_frames
    next_report = 0.0
    menus = FrameJoiner()  # whole pictures of the menus for the window

    def report(pad: int, emu: Emulator) -> None:
        nonlocal next_report
        if window is not None:
            emu.copy_screen(menus.incoming)
            menus.push(None, emu.ppu.drawn)
            window.getting_ready(
                menus.picture,
                (
                    "getting ready: the menus wait for nes-py's whole-frame steps",
                    f"step {emu.frame:,} of {target:,}, level {setup.level}, seed {setup.seed}",
                ),
                emu.frame / target,
            )
        if boot_progress is not None:
            now = time.perf_counter()
            if now >= next_report:
                next_report = now + BOOT_PROGRESS_SECONDS
                boot_progress(emu.frame, target)

    emu.observers.append(report)
    try:
        start_game(emu, setup)
    finally:
        emu.observers.remove(report)
