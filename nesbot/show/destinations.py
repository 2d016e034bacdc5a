"""Where a game's pictures go: a video file, a window, or both, each a whole frame with what
the watch read for it (the overlay's figures). `play`, `replay --video/--show` and
`rate --video` wire their pictures here.
"""

from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING

from nesbot.show.frames import FrameConsumer, WholeFrames
from nesbot.show.overlay import FrameInfo, Renderer
from nesbot.show.watch import GameWatch

if TYPE_CHECKING:
    import numpy as np

    from nesbot.show.video import VideoWriter
    from nesbot.show.window import Window


def open_window(stack: ExitStack, scale: int, overlay: bool, realtime: bool) -> "Window":
    """nesbot's window, closed with `stack`; with `realtime` it shows every frame."""
    from nesbot.show.window import Window

    return stack.enter_context(Window(Renderer(scale, overlay), every_frame=realtime))


def whole_frames(
    stack: ExitStack,
    watch: GameWatch,
    *,
    video: str | Path | None,
    scale: int,
    overlay: bool,
    codec: str | None = None,
    window: "Window | None" = None,
    game_only: bool = False,
) -> tuple[WholeFrames, "VideoWriter | None"]:
    """An emulator observer that gives every frame whole, one step late (nesbot.show.frames), to
    a video at `video` (opened now, closed with `stack`) and to `window`, each frame with
    what `watch` read for it when `overlay`; with `game_only` the video starts at the game's
    first piece. Returns it and the video's writer."""
    frames = WholeFrames(watch.info if overlay else None)
    writer = None
    if video is not None:
        from nesbot.show.video import VideoWriter

        writer = stack.enter_context(VideoWriter(video, scale, overlay, codec))
        frames.consumers.append(_from_first_piece(watch, writer) if game_only else writer)
    if window is not None:
        frames.consumers.append(window)
    return frames, writer


def _from_first_piece(watch: GameWatch, consume: FrameConsumer) -> FrameConsumer:
    """A frame consumer that passes frames on once the watch has seen the game's first piece."""

    def consume_game(picture: "np.ndarray", info: FrameInfo | None, frame: int) -> None:
        if watch.pieces:
            consume(picture, info, frame)

    return consume_game
