"""Headless Chromium driven by its DevTools protocol over a pipe: open a page, evaluate
JavaScript in it, press keys, take a screenshot, and hear its console errors.

Debian's `chromium` (scripts/check_browser.py uses it too; .ci/run installs it). With
--remote-debugging-pipe the browser reads commands on its fd 3 and writes answers and
events on its fd 4, each message JSON ended by a NUL byte: no socket, no network, no
package beyond the standard library.
"""

import base64
import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

import cv2
import numpy as np
import pytest

TIMEOUT_SECONDS = 60


def chromium_path() -> str:
    """Chromium's command, or a skip saying how to get it (a failure under CI=true)."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.skip("needs Chromium: apt-get install chromium (.ci/run installs it)")
    return found


class Chromium:
    """One headless browser with one page (a context manager)."""

    def __init__(self, command: str, width: int = 1200, height: int = 1100) -> None:
        self._profile = tempfile.TemporaryDirectory()
        to_browser, self._commands = os.pipe()
        self._answers, from_browser = os.pipe()
        flags = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--remote-debugging-pipe",
            f"--window-size={width},{height}",
            f"--user-data-dir={self._profile.name}",
            "about:blank",
        ]
        # The browser's fds 3 and 4 are the pipes' ends.
        shell = f'exec "$@" 3<&{to_browser} 4>&{from_browser}'
        self._process = subprocess.Popen(
            ["bash", "-c", shell, "chromium", command, *flags],
            pass_fds=(to_browser, from_browser),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_browser)
        os.close(from_browser)
        self._next_id = 0
        self._messages: queue.Queue[dict] = queue.Queue()
        self.events: list[dict] = []
        threading.Thread(target=self._read, daemon=True).start()
        page = next(
            t for t in self._call("Target.getTargets")["targetInfos"] if t["type"] == "page"
        )
        attached = self._call("Target.attachToTarget", targetId=page["targetId"], flatten=True)
        self._session = attached["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable")
        self.call(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )

    def _read(self) -> None:
        buffer = b""
        with os.fdopen(self._answers, "rb", buffering=0) as answers:
            while chunk := answers.read(65536):
                buffer += chunk
                *messages, buffer = buffer.split(b"\0")
                for message in messages:
                    self._messages.put(json.loads(message))

    def _send(self, method: str, params: dict, session: str | None) -> int:
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if session is not None:
            message["sessionId"] = session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        return self._next_id

    def _wait(self, done) -> dict:
        while True:
            message = self._messages.get(timeout=TIMEOUT_SECONDS)
            if "id" not in message:
                self.events.append(message)
            if done(message):
                return message

    def _call(self, method: str, session: str | None = None, **params) -> dict:
        sent = self._send(method, params, session)
        answer = self._wait(lambda message: message.get("id") == sent)
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error']}")
        return answer["result"]

    def call(self, method: str, **params) -> dict:
        """A command to the page; its result."""
        return self._call(method, self._session, **params)

    def open(self, url: str) -> None:
        """Load `url` afresh and wait for its load event (by way of a blank page: going to
        another fragment of the page shown would only scroll it)."""
        for address in ("about:blank", url):
            self.call("Page.navigate", url=address)
            self._wait(lambda message: message.get("method") == "Page.loadEventFired")

    def evaluate(self, expression: str):
        """The value of a JavaScript expression in the page (JSON-like values)."""
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def press(self, key: str, code: int) -> None:
        """A key pressed and let go, as the keyboard sends it (`code`: its virtual key code)."""
        for kind in ("keyDown", "keyUp"):
            self.call(
                "Input.dispatchKeyEvent", type=kind, key=key, code=key, windowsVirtualKeyCode=code
            )

    def click(self, x: float, y: float) -> None:
        """A left click at (x, y), CSS pixels from the page's top left."""
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def screenshot(self, x: float, y: float, width: float, height: float) -> np.ndarray:
        """The page's pixels in a rectangle (CSS pixels, one pixel each), as RGB."""
        shot = self.call(
            "Page.captureScreenshot",
            format="png",
            clip={"x": x, "y": y, "width": width, "height": height, "scale": 1},
        )
        png = np.frombuffer(base64.b64decode(shot["data"]), np.uint8)
        return cv2.cvtColor(cv2.imdecode(png, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)

    def errors(self) -> list[str]:
        """What the page said went wrong: uncaught exceptions, console errors, log errors."""
        said = []
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.exceptionThrown":
                said.append(params["exceptionDetails"].get("text", "exception"))
            elif method == "Runtime.consoleAPICalled" and params.get("type") == "error":
                said.append(" ".join(str(a.get("value")) for a in params.get("args", [])))
            elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
                said.append(params["entry"].get("text", ""))
        return said

    def __enter__(self) -> "Chromium":
        return self

    def __exit__(self, *exc: object) -> None:
        os.close(self._commands)
        self._process.terminate()
        self._process.wait(timeout=TIMEOUT_SECONDS)
        self._profile.cleanup()


def file_url(path: Path, fragment: str = "") -> str:
    return path.resolve().as_uri() + (f"#{fragment}" if fragment else "")
