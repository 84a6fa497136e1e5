"""One job at a time on a thread of its own: file writes the streaming thread does not wait for.

Saving the offsets file is a write, an fsync of the file and one of its directory (~15 ms of waiting on a busy
disk, once per `offset.flush.interval.ms`); the status file is an open and a rename ten times a second. On the
OLTP shape they were 5-16% and 12-13% of the streaming thread's samples (py-spy, issue 27). `OffsetCommitter`
and `StatusFile` hand those writes here; a job's failure is kept and raised on the caller's thread
(`raise_failure`, `wait`), where a write done in place would have raised it.
"""

from __future__ import annotations

import threading
from typing import Callable

__all__ = ["WriteBehind"]


class WriteBehind:
    """Runs the submitted job on its thread (started at the first `submit`); one job at a time."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._cond = threading.Condition()
        self._job: Callable[[], None] | None = None
        self._busy = False  # a job submitted and not finished
        self._failure: BaseException | None = None
        self._closing = False
        self._thread: threading.Thread | None = None

    @property
    def busy(self) -> bool:
        with self._cond:
            return self._busy

    def submit(self, job: Callable[[], None]) -> None:
        with self._cond:
            if self._busy:
                raise RuntimeError("WriteBehind.submit while a job is running")
            self._job, self._busy = job, True
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()
            self._cond.notify_all()

    def raise_failure(self) -> None:
        """Raise what the last job raised (once)."""
        with self._cond:
            failure, self._failure = self._failure, None
        if failure is not None:
            raise failure

    def wait(self) -> None:
        """Until the job in flight is done; then `raise_failure`."""
        with self._cond:
            self._cond.wait_for(lambda: not self._busy)
        self.raise_failure()

    def close(self) -> None:
        """Finish the job in flight and end the thread (a later `submit` starts another)."""
        with self._cond:
            thread, self._thread = self._thread, None
            self._closing = thread is not None
            self._cond.notify_all()
        if thread is not None:
            thread.join()

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._job is not None or self._closing)
                job, self._job = self._job, None
                if job is None:
                    self._closing = False
                    return
            failure: BaseException | None = None
            try:
                job()
            except BaseException as exc:  # raised on the caller's thread by raise_failure/wait
                failure = exc
            with self._cond:
                self._failure = failure or self._failure
                self._busy = False
                self._cond.notify_all()
