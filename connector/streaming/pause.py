"""Pausing streaming at a known position, and resuming it exactly there (for blocking snapshots).

Debezium's coordinator pauses the streaming source between events (`context.pause()`, `isPaused()` in the
event loop, `waitSnapshotCompletion()`), runs the blocking snapshot, then resumes. Here the streaming loop
parks only *between transactions*: the position it reports is then a clean restart point (no `event`/`row`
skips), the snapshot's records come after the whole transaction, and the loop reconnects at that position.
"""

from __future__ import annotations

import threading
from typing import Protocol

from connector.offsets.position import SourceOffset

__all__ = ["PauseGate", "StopSignal"]


class StopSignal(Protocol):
    """The shutdown token as the gate needs it."""

    @property
    def requested(self) -> bool: ...

    def wait(self, timeout: float) -> bool: ...


class PauseGate:
    """Shared by the coordinator (request/wait_paused/resume) and the streaming loop (pause_requested/park)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._requested = False
        self._paused_at: SourceOffset | None = None
        # Bumped by every resume: a parked loop leaves on the bump even if a new pause was asked for meanwhile
        # (then it parks again at its next boundary, not at the same place).
        self._resumes = 0

    # ------------------------------------------------------------ coordinator side
    def request(self) -> None:
        with self._cond:
            self._requested = True

    def wait_paused(self, timeout_s: float) -> SourceOffset | None:
        """The position streaming stopped at, once it did; None if it did not within `timeout_s`."""
        with self._cond:
            self._cond.wait_for(lambda: self._paused_at is not None, timeout_s)
            return self._paused_at

    def resume(self) -> None:
        with self._cond:
            self._requested = False
            self._paused_at = None
            self._resumes += 1
            self._cond.notify_all()

    # ------------------------------------------------------------ streaming side
    @property
    def pause_requested(self) -> bool:
        return self._requested  # a plain read, once per event: the loop parks at its next boundary

    def park(self, at: SourceOffset, token: StopSignal, poll_s: float = 0.2) -> None:
        """Report `at` and block until resumed or shutdown is requested."""
        with self._cond:
            self._paused_at = at
            self._cond.notify_all()
            resumes = self._resumes
            while self._resumes == resumes and not token.requested:
                # The token has no condition of its own to wait on with ours: re-check it at each wake-up.
                self._cond.wait(poll_s)
