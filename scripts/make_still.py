"""Save one frame of a game video as a PNG (the README's still).

python scripts/make_still.py VIDEO.mp4 FRAME OUT.png
"""

import argparse

import cv2

from nesbot.video import save_still


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("video")
    parser.add_argument("frame", type=int)
    parser.add_argument("out")
    args = parser.parse_args()
    capture = cv2.VideoCapture(args.video)
    capture.set(cv2.CAP_PROP_POS_FRAMES, args.frame)
    ok, bgr = capture.read()
    capture.release()
    if not ok:
        raise SystemExit(f"{args.video} has no frame {args.frame}")
    scale = bgr.shape[0] // 240  # the video's integer upscale, undone and redone
    save_still(cv2.cvtColor(bgr[::scale, ::scale], cv2.COLOR_BGR2RGB), args.out, scale=scale)


if __name__ == "__main__":
    main()
