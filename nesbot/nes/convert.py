"""`nesbot convert`: a log of nes-py steps, as nesbot wrote them before its logs counted NES
frames, turned into an FCEUX movie of the same game.

The old log is replayed step by step on nes-py from power-on, and what the game saw is
written frame by frame (nesbot.nes.polls.FrameRecorder), exactly as `nesbot play` writes
its logs now. The caller's comments and the recorded result carry over.
"""

import os
from pathlib import Path

from nesbot.errors import NesbotError
from nesbot.nes.emulator import Emulator
from nesbot.nes.fm2 import FRAMES_MARK, RESULT_KEY, STEPS_MARK, Fm2Writer, InputLog, fceux_rom_md5
from nesbot.nes.movie_steps import StepsFromSteps
from nesbot.nes.polls import FrameRecorder
from nesbot.nes.replay import step_log
from nesbot.nes.rom import Rom

# What the writer says of itself: the old log's own words for these are dropped.
_WRITERS_COMMENTS = ("nesbot", "emulator", RESULT_KEY)


def convert_log(rom: Rom, log: InputLog, path: str | os.PathLike[str]) -> int:
    """Write `log`, a log of nes-py steps, as an FCEUX movie at `path`; the frames written."""
    if not log.counts_steps:
        raise NesbotError(
            f"{log.source} already counts NES frames as FCEUX does: there is nothing to convert"
        )
    if Path(path).resolve() == Path(log.source).resolve():
        raise NesbotError(f"{path} is the log being converted: write the movie elsewhere")
    comments = [
        comment
        for comment in log.comments
        if comment.partition(" ")[0] not in _WRITERS_COMMENTS
        and comment not in (STEPS_MARK, FRAMES_MARK)
    ]
    comments.append(f"converted_from {Path(log.source).name}")
    with Fm2Writer(path, fceux_rom_md5(rom.data), comments) as movie, Emulator(rom.path) as emu:
        recorder = FrameRecorder(movie)
        emu.observers.append(recorder)
        for _ in step_log(emu, StepsFromSteps(log.frames)):
            pass
        recorder.close()
        recorded = log.recorded_result()
        if recorded is not None:
            movie.record_result(recorded)
        return movie.frames_written
