"""A one-line progress bar on stderr, drawn only when stderr is a terminal.

Small enough to own: a dependency for one line of output would cost more than it gives.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    def __init__(self, total: int, label: str, stream: TextIO | None = None, width: int = 30) -> None:
        self.total, self.label, self.width = max(total, 1), label, width
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty()
        self.done = 0
        self._drawn = 0.0

    def advance(self, count: int = 1) -> None:
        self.done = min(self.done + count, self.total)
        now = time.monotonic()
        if self.enabled and (now - self._drawn > 0.1 or self.done == self.total):
            self._drawn = now
            filled = self.width * self.done // self.total
            bar = "#" * filled + "-" * (self.width - filled)
            self.stream.write(f"\r{self.label} [{bar}] {self.done}/{self.total}")
            self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()
