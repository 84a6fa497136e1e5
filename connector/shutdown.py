"""Two-stage shutdown: the first SIGTERM/SIGINT asks for a graceful stop (stop reading, flush, commit
offsets, exit 0); a second one exits at once. Signal handlers only set state (no I/O, no logging)."""

from __future__ import annotations

import os
import signal
import threading
from types import FrameType


class ShutdownToken:
    def __init__(self) -> None:
        self._event = threading.Event()
        self._signals = 0

    @property
    def requested(self) -> bool:
        return self._event.is_set()

    def request(self) -> None:
        self._event.set()

    def wait(self, timeout: float) -> bool:
        """Sleep that wakes up on shutdown; returns True when shutdown was requested."""
        return self._event.wait(timeout)

    def install(self) -> None:
        signal.signal(signal.SIGTERM, self._on_signal)
        signal.signal(signal.SIGINT, self._on_signal)

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        self._signals += 1
        if self._signals > 1:
            os._exit(128 + signum)
        self._event.set()
