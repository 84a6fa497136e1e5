"""Who is active: what /health and the metrics show, and the error a former active instance exits with."""

from __future__ import annotations

import enum
import logging
import os
import threading
import time
from dataclasses import dataclass, field

from connector.errors import RetriableError, SinkError
from connector.kafka.delivery import is_fenced

log = logging.getLogger("binlog-cdc")  # the logger of the CLI's last line (connector/cli.py)

__all__ = ["HaRole", "HaState", "SteppedDown", "exit_unless_stopped", "stepped_down"]


class HaRole(enum.StrEnum):
    STANDBY = "standby"  # waiting for the lease
    ACTIVE = "active"  # holds the lease: reads the binlog and writes to Kafka
    STEPPED_DOWN = "stepped-down"  # lost the lease or was fenced: stops without writing


@dataclass
class HaState:
    """Written by the lease thread and the daemon, read by the metrics endpoint (plain attributes, no locks)."""

    instance_id: str
    role: HaRole = HaRole.STANDBY
    waiting_since: float = 0.0  # monotonic clock when this instance started waiting for the lease
    active_since_ms: int = 0  # wall clock when it became active
    exit_armed: bool = False  # exit_unless_stopped ran (the lease thread and the ack poller may both call it)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        self.waiting_since = time.monotonic()

    def activate(self) -> None:
        self.role = HaRole.ACTIVE
        self.active_since_ms = time.time_ns() // 1_000_000

    def step_down(self) -> None:
        self.role = HaRole.STEPPED_DOWN


class SteppedDown(SinkError, RetriableError):
    """Another instance took over: this one stopped without writing. A restart makes it a standby again."""


def stepped_down(state: HaState | None, lost: str | None, exc: BaseException | None) -> SteppedDown | None:
    """The one line a former active instance exits with (exit code 3: a restart makes it a standby): when it lost
    the lease (`lost` says why) or Kafka fenced its producer (`exc`); None otherwise, or without HA."""
    if state is None or (lost is None and (exc is None or not is_fenced(exc))):
        return None
    cause = lost or f"fenced: {exc}"
    return SteppedDown(f"HA: instance {state.instance_id} stepped down, another instance is active ({cause}); it "
                       f"wrote nothing after the takeover (transactional.id fencing)",
                       fix="none needed; start it again to make it a standby")


def exit_unless_stopped(state: HaState | None, reason: str, after_s: float) -> None:
    """A former active instance must not linger: if the graceful stop has not ended the process `after_s` seconds
    after the lease was lost (a thread blocked on a fenced producer, a database that does not answer), log the
    step-down line and exit (code 3). Kafka refuses its writes anyway; nothing is left to save."""
    if state is None:
        return
    with state._lock:
        if state.exit_armed:
            return
        state.exit_armed = True
    state.step_down()

    def stop_now() -> None:
        down = stepped_down(state, reason, None)
        log.error("%s", down)
        logging.shutdown()
        os._exit(3)

    timer = threading.Timer(max(5.0, after_s), stop_now)
    timer.name, timer.daemon = "ha-step-down", True
    timer.start()
