"""Headless Chromium driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`: JSON
messages ending in NUL on file descriptors 3 and 4), so a test can ask the real layout engine
what it laid out — widths, boxes — where a screenshot alone shows only pixels. No driver
package: the protocol's few calls are written here."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

from _support import need_binary


class Browser:
    """One headless Chromium page of `width` x `height` CSS pixels; `with Browser() as b:`."""

    def __init__(self, width: int = 1400, height: int = 900) -> None:
        self.width, self.height = width, height
        self._ids = 0
        self._buffer = b""

    def __enter__(self) -> Browser:
        to_chrome, self._write = os.pipe()
        self._read, from_chrome = os.pipe()
        os.set_inheritable(to_chrome, True)
        os.set_inheritable(from_chrome, True)

        def fds() -> None:  # the child: its fd 3 reads our commands, its fd 4 writes replies
            os.dup2(to_chrome, 3)
            os.dup2(from_chrome, 4)

        self._proc = subprocess.Popen(
            [need_binary("chromium"), "--headless", "--no-sandbox", "--disable-gpu",
             "--remote-debugging-pipe", "--hide-scrollbars", "--no-first-run",
             f"--window-size={self.width},{self.height}", "about:blank"],
            preexec_fn=fds, pass_fds=(to_chrome, from_chrome, 3, 4),  # 3, 4: set by fds()
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome)
        os.close(from_chrome)
        page = next(t for t in self.call("Target.getTargets")["targetInfos"]
                    if t["type"] == "page")
        self._session = self.call("Target.attachToTarget",
                                  targetId=page["targetId"], flatten=True)["sessionId"]
        self.call("Emulation.setDeviceMetricsOverride", session=True, width=self.width,
                  height=self.height, deviceScaleFactor=1, mobile=False)
        return self

    def __exit__(self, *exc: object) -> None:
        self._proc.kill()
        self._proc.wait(timeout=10)
        os.close(self._write)
        os.close(self._read)

    def call(self, method: str, session: bool = False, **params: Any) -> Any:
        """Send one command and return its result (events in between are dropped)."""
        self._ids += 1
        message: dict[str, Any] = {"id": self._ids, "method": method, "params": params}
        if session:
            message["sessionId"] = self._session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            while b"\0" not in self._buffer:
                chunk = os.read(self._read, 1 << 16)
                if not chunk:
                    raise RuntimeError("chromium closed the pipe")
                self._buffer += chunk
            raw, self._buffer = self._buffer.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == self._ids:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
        raise TimeoutError(method)

    def open(self, page: Path) -> None:
        """Load `page` and wait until its document is complete."""
        self.call("Page.navigate", session=True, url=page.resolve().as_uri())
        for _ in range(200):
            if self.evaluate("document.readyState") == "complete":
                return
            time.sleep(0.05)
        raise TimeoutError(str(page))

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (DevTools bypasses the page's CSP,
        which forbids scripts of its own)."""
        result = self.call("Runtime.evaluate", session=True, expression=expression,
                           returnByValue=True)
        return result["result"].get("value")

    def screenshot(self, path: Path, full_page: bool = True) -> None:
        params: dict[str, Any] = {"format": "png", "captureBeyondViewport": full_page}
        if full_page:
            size = self.evaluate("[document.documentElement.scrollWidth,"
                                 " document.documentElement.scrollHeight]")
            params["clip"] = {"x": 0, "y": 0, "width": size[0], "height": size[1], "scale": 1}
        path.write_bytes(base64.b64decode(self.call("Page.captureScreenshot", session=True,
                                                    **params)["data"]))
