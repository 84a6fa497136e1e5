"""What the end-to-end benchmarks share: starting the CLI connector from this tree or a baseline tree, and
sampling its process (peak RSS, CPU seconds) while it runs.

On a shared machine only runs back to back on the same servers compare, and the connector's CPU seconds
compare better than wall-clock rates, which move with the other load.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterator

from confluent_kafka import Consumer, KafkaError, Message

from tests.support.connector_process import ConnectorProcess
from tests.support.connector_process import default_connector_cmd

__all__ = ["child_pids", "connector_cmd", "cpu_s", "fresh_messages", "in_workdir", "rss_kb", "start_connector",
           "start_pyspy", "thread_cpu_s", "tree_cpu_s"]


def start_pyspy(pid: int | None, suffix: str) -> subprocess.Popen | None:
    """`BENCH_PYSPY=FILE`: py-spy samples the process (100 Hz or `BENCH_PYSPY_RATE`, not pausing it, per thread) into
    FILE.<suffix> until it exits (`bench/stages.py` splits it into stages); None when unset."""
    out = os.environ.get("BENCH_PYSPY")
    if not out:
        return None
    rate = os.environ.get("BENCH_PYSPY_RATE", "100")
    return subprocess.Popen([shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy"), "record",
                             "--pid", str(pid), "--format", "raw", "--rate", rate, "--nonblocking", *(["--idle"] if os.environ.get("BENCH_PYSPY_IDLE") else []),
                             "--threads", "-o", f"{out}.{suffix}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def connector_cmd(profile_to: Path | None = None) -> list[str]:
    """The CLI command line; under cProfile writing to `profile_to` when given (much slower)."""
    if profile_to is not None:
        return [sys.executable, "-m", "cProfile", "-o", str(profile_to), "-m", "connector.cli"]
    return list(default_connector_cmd())


def start_connector(cmd: list[str], config: Path, run_dir: Path, root: Path | None = None) -> ConnectorProcess:
    """Start the connector; `root` runs the `connector` package of another source tree (the baseline).

    Always a cold start, as a user's `binlog-cdc run` is: the tests' warm launcher (tests/support/warm_launch.py)
    forks it from a process that already imported everything, which hides ~1 s of start-up from the connector's
    CPU seconds and from "process start to last record", and only this checkout gets it (not a baseline tree)."""
    saved = os.environ.get("PYTHONPATH")
    saved_cold = os.environ.get("BINLOG_CDC_TEST_COLD_START")
    if root is not None:  # PYTHONPATH comes before the venv's editable install: the baseline's packages win
        os.environ["PYTHONPATH"] = str(root)
    os.environ["BINLOG_CDC_TEST_COLD_START"] = "1"
    try:
        return ConnectorProcess(cmd, config, run_dir / "status.json", run_dir / "connector.log").start()
    finally:
        if root is not None:
            os.environ.pop("PYTHONPATH") if saved is None else os.environ.update(PYTHONPATH=saved)
        if saved_cold is None:
            os.environ.pop("BINLOG_CDC_TEST_COLD_START")
        else:
            os.environ["BINLOG_CDC_TEST_COLD_START"] = saved_cold


def rss_kb(pid: int | None, field: str = "VmRSS") -> int:
    """A size field of /proc/PID/status in kB, 0 once the process is gone: VmRSS (resident now), VmHWM (the peak
    since start or the last reset), RssAnon (heap and stacks only: no mapped files, which the kernel may drop and
    bring back, so VmRSS moves without the process allocating anything)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def fresh_messages(consumer: Consumer, batch: int, next_offsets: dict[str, int]) -> Iterator[Message]:
    """The records of one `consume(batch)` on single-partition topics that were not seen before (`next_offsets`,
    per topic, kept by the caller): a broker timeout makes the client fetch some again. Errors other than
    end-of-partition raise."""
    for msg in consumer.consume(batch, 0.2):
        if msg.error():
            if msg.error().code() != KafkaError._PARTITION_EOF:
                raise RuntimeError(msg.error())
            continue
        topic = msg.topic()
        if msg.offset() < next_offsets.get(topic, 0):
            continue  # fetched again after a broker timeout: already counted
        next_offsets[topic] = msg.offset() + 1
        yield msg


def cpu_s(pid: int | None) -> float | None:
    """User + system CPU seconds of the process so far, all threads (None once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def _tasks(pid: int | None) -> list[Path]:
    """The process's threads' /proc directories (none once it is gone)."""
    try:
        return list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return []


def child_pids(pid: int | None) -> list[int]:
    """The process's live children (encode.workers' processes), from /proc/PID/task/*/children."""
    out: list[int] = []
    for task in _tasks(pid):
        try:
            out += [int(p) for p in (task / "children").read_text().split()]
        except (OSError, ValueError):
            continue
    return out


def tree_cpu_s(pid: int | None, children: list[int]) -> float | None:
    """`cpu_s` of the process plus that of `children` (those still alive)."""
    own = cpu_s(pid)
    if own is None:
        return None
    return own + sum(cpu_s(c) or 0.0 for c in children)


def thread_cpu_s(pid: int | None) -> dict[str, float]:
    """CPU seconds per thread name of the process (librdkafka names its threads rdk:*): where the CPU goes
    between our Python thread and the producer's own threads. Threads of one name are summed."""
    out: dict[str, float] = {}
    for task in _tasks(pid):
        try:
            name = (task / "comm").read_text().strip()
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        name = "rdk" if name.startswith("rdk:") else name
        out[name] = out.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return {k: round(v, 2) for k, v in sorted(out.items(), key=lambda kv: -kv[1])}


def in_workdir(prefix: str, workdir: Path | None, body: Callable[[Path], int]) -> int:
    """Run `body` in `workdir` (kept) or a temp dir (removed); SIGTERM/SIGINT raise KeyboardInterrupt, also when
    started in the background (where SIGINT is ignored), so the connector and servers are stopped on the way out."""
    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, interrupt)
    signal.signal(signal.SIGINT, interrupt)
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        work = workdir or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        return body(work)
