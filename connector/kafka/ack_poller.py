"""Serving the producer's delivery callbacks on a thread of their own while the reader waits on the binlog."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Protocol

__all__ = ["AckPoller"]


class Pollable(Protocol):
    """What the poller needs from the writer (`KafkaWriter.poll`)."""

    def poll(self, timeout_s: float) -> object: ...


class AckPoller:
    """Serves the producer's delivery callbacks while the reader waits on the binlog.

    Acks must be processed even when no new record is produced (an idle database), or offsets would
    lag behind what Kafka already has. A failure is kept and re-raised on the main thread.
    """

    def __init__(self, writer: Pollable, interval_s: float = 0.05,
                 on_error: Callable[[BaseException], object] | None = None) -> None:
        self._writer = writer
        self._on_error = on_error  # told at once, from this thread (the main thread may be blocked elsewhere)
        self._interval_s = interval_s
        self._stop = threading.Event()
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="kafka-ack-poller", daemon=True)

    def start(self) -> "AckPoller":
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._writer.poll(self._interval_s)
            except BaseException as exc:  # handed to the main thread by check()
                self.error = exc
                if self._on_error is not None:
                    self._on_error(exc)
                return

    def check(self) -> None:
        if self.error is not None:
            raise self.error

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
