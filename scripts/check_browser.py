"""Does a video play in a browser? Headless Chromium loads it in a <video>, seeks to a few
points and draws each picture on a canvas; the script compares those with PyAV's decode.

.venv/bin/python scripts/check_browser.py VIDEO.mp4 [--chromium /usr/bin/chromium]

Chromium (Debian's `chromium` package) decodes with its own FFmpeg build and its own media
pipeline (MP4 demuxer, seeking by the index, colour conversion to RGB), so a stream that
plays here plays in the browsers people upload to. Prints what the page saw and exits 1 if
the video failed to load or a picture differs from PyAV's by more than colour rounding.
"""

import argparse
import base64
import contextlib
import functools
import http.server
import json
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import numpy as np

from nesbot.show.video import probe_video, read_frames

POINTS = (0.0, 0.3, 0.6, 0.9)  # where to seek, as shares of the duration
# Mean absolute difference (0-255) between Chromium's picture and PyAV's: the two convert
# BT.601 to RGB with different rounding; a wrong frame or a broken decode differs by tens.
SAME_PICTURE = 4.0
TIMEOUT_SECONDS = 120

PAGE = """<!doctype html>
<video id="video" muted preload="auto" src="video.mp4"></video>
<script>
const video = document.getElementById("video");
const points = %(points)s, seen = [];
const report = (result) => fetch("/result", {method: "POST", body: JSON.stringify(result)});
video.onerror = () => report({error: video.error.message || ("MediaError " + video.error.code)});
function next() {
  if (seen.length === points.length) {
    report({width: video.videoWidth, height: video.videoHeight, duration: video.duration,
      pictures: seen});
    return;
  }
  video.currentTime = points[seen.length];
}
video.onseeked = () => {
  const canvas = document.createElement("canvas");
  canvas.width = video.videoWidth; canvas.height = video.videoHeight;
  const context = canvas.getContext("2d");
  context.drawImage(video, 0, 0);
  const data = context.getImageData(0, 0, canvas.width, canvas.height).data;
  let binary = "";  // RGB, the alpha left out, as base64
  for (let i = 0; i < data.length; i += 4)
    binary += String.fromCharCode(data[i], data[i + 1], data[i + 2]);
  seen.push({time: video.currentTime, rgb: btoa(binary)});
  next();
};
video.onloadeddata = () => next();
</script>
"""


class _Server(http.server.SimpleHTTPRequestHandler):
    """Serves the page and the video; takes the page's POSTed result."""

    results: "queue.Queue[str]"

    def do_GET(self) -> None:
        """The page as any file; the video with byte ranges, which seeking needs (a server
        without them makes a video that plays from the start only)."""
        wanted = self.headers.get("Range", "")
        if not (self.path == "/video.mp4" and wanted.startswith("bytes=")):
            super().do_GET()
            return
        data = (Path(self.directory) / "video.mp4").read_bytes()
        first, _, last = wanted[len("bytes=") :].partition("-")
        start, end = int(first or 0), min(int(last) if last else len(data) - 1, len(data) - 1)
        self.send_response(206)
        self.send_header("Content-Type", "video/mp4")
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("Content-Range", f"bytes {start}-{end}/{len(data)}")
        self.send_header("Content-Length", str(end - start + 1))
        self.end_headers()
        self.wfile.write(data[start : end + 1])

    def do_POST(self) -> None:
        size = int(self.headers["Content-Length"])
        self.results.put(self.rfile.read(size).decode())
        self.send_response(204)
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass  # quiet: the page's requests are not news

    def handle(self) -> None:
        with contextlib.suppress(ConnectionError):  # Chromium drops range requests it has
            super().handle()


def browser_pictures(video: Path, chromium: str, times: list[float]) -> dict:
    """Serve the video and the page on localhost and let headless Chromium report."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        shutil.copy(video, root / "video.mp4")
        (root / "page.html").write_text(PAGE % {"points": json.dumps(times)})
        results: queue.Queue[str] = queue.Queue()
        handler = functools.partial(
            type("Handler", (_Server,), {"results": results}), directory=folder
        )
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        # The flags keep Chromium off the network this machine does not have.
        command = [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={root / 'profile'}",
            f"http://127.0.0.1:{server.server_port}/page.html",
        ]
        browser = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            text = results.get(timeout=TIMEOUT_SECONDS)
        except queue.Empty:
            text = json.dumps({"error": f"no answer from the page in {TIMEOUT_SECONDS} s"})
        finally:
            browser.terminate()
            browser.wait()
            server.shutdown()
    return json.loads(text)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("video", type=Path)
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    args = parser.parse_args()
    facts = probe_video(args.video)
    rate = float(facts.average_rate)
    # Seek to the middle of a frame's display time, so that both pick the same frame.
    indexes = [min(int(point * facts.frames), facts.frames - 1) for point in POINTS]
    times = [(index + 0.5) / rate for index in indexes]
    print(
        f"{args.video}: {facts.codec} {facts.profile}, {facts.width}x{facts.height}, "
        f"{facts.frames} frames, {facts.duration:.2f} s"
    )
    seen = browser_pictures(args.video, args.chromium, times)
    if "error" in seen:
        print(f"Chromium: {seen['error']}")
        return 1
    print(f"Chromium: loaded {seen['width']}x{seen['height']}, {seen['duration']:.2f} s")
    expected = read_frames(args.video, indexes)
    failed = False
    for index, picture in zip(indexes, seen["pictures"], strict=True):
        shown = np.frombuffer(base64.b64decode(picture["rgb"]), np.uint8)
        shown = shown.reshape(seen["height"], seen["width"], 3)
        difference = float(np.abs(shown.astype(int) - expected[index].astype(int)).mean())
        verdict = "same picture" if difference <= SAME_PICTURE else "DIFFERS"
        failed |= difference > SAME_PICTURE
        print(
            f"  frame {index:>6} at {picture['time']:8.3f} s: mean difference "
            f"{difference:.2f} from PyAV's ({verdict})"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
