"""Save one frame of a game video as a PNG.

python scripts/make_still.py VIDEO.mp4 FRAME OUT.png

`nesbot play --still FILE.png` saves the frame where the score first shows 999,999 straight
from the emulator (lossless); this takes any frame of a video instead (decoded, so with the
video's 4:2:0 colour).
"""

import argparse

from nesbot.show.video import read_frames, save_png


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("video")
    parser.add_argument("frame", type=int, help="0 is the first frame")
    parser.add_argument("out")
    args = parser.parse_args()
    frames = read_frames(args.video, [args.frame])
    if args.frame not in frames:
        raise SystemExit(f"{args.video} has no frame {args.frame}")
    save_png(frames[args.frame], args.out)


if __name__ == "__main__":
    main()
