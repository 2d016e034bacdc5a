"""Record the game to a video file, one video frame per NES frame.

Use ``VideoWriter`` as a context manager and ``write()`` whole pictures to it: as a consumer
of ``nesbot.show.frames.WholeFrames`` (an emulator observer; attach it after the menus to leave out
the ~24,000 boot and menu frames, almost 7 minutes), or from ``Player.whole_frame()``. The
file is complete only after ``close()``, which the ``with`` block calls on any exit,
KeyboardInterrupt included: an .mp4 whose encoder never finished has no index and cannot be
played. The encoder runs in a process of its own and finishes the file even when the game's
process ends without closing it, or is killed.

* The container follows the extension (formats). ``.mp4`` is H.264 in yuv420p with the
  index at the front (``+faststart``), which browsers and phones play, even while it
  downloads; ``.webm`` is VP9 (libvpx, which PyAV's wheels carry). The time base is the NTSC
  NES's exact rate, 39,375,000/655,171 (60.0988) frames per second, and frame n has
  timestamp n, so the video lasts exactly as long as the game did. The picture is the NES's
  256x240 screen times an integer ``scale`` (1-8, nearest neighbour, so pixels stay sharp;
  3 makes 720 lines), with the --overlay panel beside it when ``overlay`` is set.
* The colours are BT.601, limited range, and say so in the stream, so that players do not
  guess BT.709 for a picture this size (pictures). 4:2:0 halves the colour resolution: a
  one-pixel line of colour on the NES smears a little at its edges, as on every H.264 web
  video.
* An .mp4's pictures are written by nesbot.show.video.h264 by default (``codec="nesbot"``), not
  by an encoder: each 16x16 block is a skip, a motion from the last few pictures or a flat
  prediction when one reproduces it exactly, else its samples. The video is lossless (every
  frame decodes to exactly the yuv420p picture it was given) and costs ~0.07 ms a frame.
  ``codec="x264"`` encodes through PyAV's libx264 instead (muxing): a smaller, lossy file
  for uploading, for more of the second core. VP9 goes through libvpx, which is slower.
* Encoding runs in a process of its own (process): drawing and colour conversion cost about
  as much as the writing, and in a process the game and the encoder never wait for each
  other's GIL. ``write()`` copies the picture into shared memory and sends its slot number
  (and the overlay's FrameInfo) down a socket, in batches of ``BATCH_FRAMES`` frames: each
  message wakes the encoder process, which costs the game on a virtual machine. It blocks
  only while ``queue_frames(scale)`` frames already wait, so memory stays bounded and, when
  the encoder is slower than the game, the game slows to its pace. The encoder process has
  a process group of its own, so Ctrl-C at the terminal reaches the game's process alone,
  which then closes the file.
* ``close()`` sends the stop and waits for the encoder to finish the file (a fraction of a
  second), even through further Ctrl-C presses; then every frame passed to ``write()`` is in
  the file and counted by ``frames_written``. A writer dropped without ``close()``, or whose
  program ends or dies, has its file finished by the encoder all the same (it sees the stop,
  or the end of the socket; a killed program's last batch was never sent). A writer given
  no frames leaves no file (PyAV creates it with the first frame). Errors in the encoder
  come back to the writer: ``write()`` raises them from then on, ``close()`` once.
* Problems with the path, extension, codec or scale raise ``NesbotError`` from the
  constructor, before any frame is written. A frame of the wrong shape or type is a
  programming error (``ValueError``).
* ``probe_video``, ``read_frames`` and ``read_video_frames`` read videos back (reading);
  ``save_png`` writes a picture losslessly (still: --still).
"""

from nesbot.show.video.decoding import VideoFacts, probe_video, read_frames, read_video_frames
from nesbot.show.video.formats import (
    CODECS,
    DEFAULT_SCALE,
    Format,
    check_png_path,
    check_video_path,
    video_format,
)
from nesbot.show.video.still import save_png
from nesbot.show.video.writer import VideoWriter

__all__ = [
    "CODECS",
    "DEFAULT_SCALE",
    "Format",
    "VideoFacts",
    "VideoWriter",
    "check_png_path",
    "check_video_path",
    "probe_video",
    "read_frames",
    "read_video_frames",
    "save_png",
    "video_format",
]
