"""A one-line progress report on stderr while a long offline read runs (`--progress`, or when
stderr is a terminal): spans read, spans/s, files done. Silent for reads under `delay_s`."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO


class Progress:
    """Counts spans as they are read; checks the clock once every 4096 spans, so it is cheap."""

    def __init__(
        self, files: int, stream: TextIO | None = None, *, delay_s: float = 2.0,
        every_s: float = 0.5, clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.files = files
        self.files_done = 0
        self.spans = 0
        self._stream = stream if stream is not None else sys.stderr
        self._clock = clock
        self._started = clock()
        self._next = self._started + delay_s
        self._every = every_s
        self._shown = False

    def count(self, spans: int = 1) -> None:
        before = self.spans
        self.spans += spans
        if (before ^ self.spans) >> 12 and self._clock() >= self._next:  # crossed a 4096 mark
            self._show()

    def file_done(self) -> None:
        self.files_done += 1
        if self._clock() >= self._next:
            self._show()

    def close(self) -> None:
        """End the line (when one was shown), so the report starts on a fresh one."""
        if self._shown:
            self._show()
            self._stream.write("\n")
            self._stream.flush()

    def _show(self) -> None:
        now = self._clock()
        rate = self.spans / max(now - self._started, 1e-9)
        self._stream.write(
            f"\ragentcov: {self.spans:,} spans read ({rate:,.0f} spans/s), "
            f"{self.files_done}/{self.files} files"
        )
        self._stream.flush()
        self._shown = True
        self._next = now + self._every
