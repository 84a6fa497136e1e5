"""Waiting on a condition with a deadline: the only way tests wait (never a bare sleep).

    wait_until(lambda: status()["phase"] == "streaming", 60, "phase streaming")

On timeout the error names what was awaited, and the last value the predicate returned, so a
failure under load reads as "timed out after 60 s waiting for phase streaming" rather than as an
assertion about something that had not happened yet.
"""
from __future__ import annotations

import time
from typing import Callable, TypeVar

T = TypeVar("T")

# The bound for one process to start or finish its work (a server ready, a CLI run through): a deadline that only
# catches hangs. 60 s was hit by a cold MySQL start and by a `validate` at load 18 beside a busy core.
PROCESS_BOUND_S = 240.0


class WaitTimeout(TimeoutError):
    """The condition did not hold before the deadline."""


def wait_until(predicate: Callable[[], T], timeout: float, what: str, interval: float = 0.1, *,
               state: Callable[[], object] | None = None) -> T:
    """Poll `predicate` until it returns something truthy and return that; WaitTimeout naming `what` otherwise.

    The predicate is always evaluated once more after the deadline, so a slow machine that
    reaches the condition just as time runs out still passes. `state` describes what was seen instead of the
    predicate's last value (e.g. the metric or the status file), so the failure says where things stood."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            seen = f"saw: {state()!r}" if state is not None else f"last value: {value!r}"
            raise WaitTimeout(f"timed out after {timeout:.0f} s waiting for {what} ({seen})")
        time.sleep(interval)
