"""CPU seconds of a local Spark session, from /proc: the driver (this process), the JVM, and the
Python processes the JVM started (workers, data source planners), ended ones included.

On the shared 2-core machine a step's wall time moves with the other load by 2x and more; its
CPU seconds move much less, so the Spark benchmarks report both.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = ["SparkCpu", "CpuSample"]

_TICK = os.sysconf("SC_CLK_TCK")


def _own_and_start(pid: int) -> tuple[float, int]:
    """(user + system CPU seconds of its own threads, start time in ticks); (0, 0) once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0, 0
    return (int(fields[11]) + int(fields[12])) / _TICK, int(fields[19])


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return out
    for task in tasks:
        try:
            out += [int(p) for p in (task / "children").read_text().split()]
        except (OSError, ValueError):
            continue
    return out


def _descendants(pid: int) -> list[int]:
    out = []
    for child in _children(pid):
        out += [child, *_descendants(child)]
    return out


@dataclass(frozen=True)
class CpuSample:
    driver: float
    jvm: float
    python: float

    @property
    def total(self) -> float:
        return self.driver + self.jvm + self.python

    def __sub__(self, other: "CpuSample") -> "CpuSample":
        return CpuSample(self.driver - other.driver, self.jvm - other.jvm, self.python - other.python)

    def line(self) -> str:
        return f"cpu {self.total:6.2f}s (driver {self.driver:.2f}, jvm {self.jvm:.2f}, python {self.python:.2f})"


class SparkCpu:
    """Samples the CPU of the session whose JVM is `jvm_pid` (local mode: a child of this process).

    Spark's Python processes come and go (idle workers are stopped, data source planners run
    per query) and not all are reaped by a process still alive, so a thread samples each one's
    CPU seconds every `period_s` and keeps the last value of those that ended (losing at most
    their last `period_s`)."""

    def __init__(self, jvm_pid: int, period_s: float = 0.5) -> None:
        self.jvm_pid = jvm_pid
        self._python: dict[tuple[int, int], float] = {}  # (pid, start time) -> CPU seconds
        self._own_s = 0.0  # this sampler's CPU seconds (its thread), not the driver's work
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(period_s,), daemon=True, name="spark-cpu")
        self._thread.start()

    @classmethod
    def of(cls, spark) -> "SparkCpu":
        return cls(int(spark._jvm.java.lang.ProcessHandle.current().pid()))

    def _run(self, period_s: float) -> None:
        while not self._stop.wait(period_s):
            start = time.thread_time()
            self._poll()
            with self._lock:
                self._own_s += time.thread_time() - start

    def _poll(self) -> None:
        seen = {}
        for pid in _descendants(self.jvm_pid):
            own, start = _own_and_start(pid)
            if start:
                seen[(pid, start)] = own
        with self._lock:
            self._python.update(seen)

    def sample(self) -> CpuSample:
        self._poll()
        driver = _own_and_start(os.getpid())[0]  # not its reaped children: the broker is not Spark's
        with self._lock:
            python = sum(self._python.values())
            driver -= self._own_s
        return CpuSample(driver, _own_and_start(self.jvm_pid)[0], python)

    def close(self) -> None:
        self._stop.set()
