"""Serving the producer's delivery callbacks on a thread of their own while the reader waits on the binlog.

While the main thread is busy it serves them itself (`serve`, from its housekeeping every few milliseconds):
a thread polling beside a busy main thread took the GIL for every acknowledgement, and the two contended for
the deliveries' lock (`Deliveries.produced` alone was ~5% of the main thread's samples on the OLTP shape, py-spy,
issue 27). The thread polls only once the main thread has not served them for `interval_s` (an idle database,
the reader waiting on the binlog, a long snapshot query).
"""

from __future__ import annotations

import threading
import time
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
        self._served = 0.0  # time.monotonic() of the main thread's last `serve`
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="kafka-ack-poller", daemon=True)

    def start(self) -> "AckPoller":
        self._thread.start()
        return self

    def serve(self) -> None:
        """From the main thread: serve the callbacks that are ready (raises a delivery failure); the thread stands
        by for `interval_s`."""
        self._served = time.monotonic()
        self._writer.poll(0)

    def _run(self) -> None:
        while not self._stop.is_set():
            since = time.monotonic() - self._served
            if since < self._interval_s:
                self._stop.wait(self._interval_s - since)  # the main thread serves them meanwhile
                continue
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
