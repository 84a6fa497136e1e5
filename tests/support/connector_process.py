"""`binlog-cdc run CONFIG --status-file PATH` as a child process, watched through its status file: the one harness
the conformance runner, the integration tests and the Docker tests (with the image's environment) start it with.

The status file (atomically replaced, at most every ~100 ms) is
    {"phase": "snapshot|streaming|stopped", "binlog_file": ..., "binlog_pos": <next event to read>,
     "records_sent": n, "records_acked": n, "committed_offset": {...}}
"""
from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.support.warm_launch import LAUNCHER, WarmProcess


class ConnectorError(RuntimeError):
    """The connector exited, misbehaved or did not get where it should in time."""


def binlog_key(file: str | None, pos: int | None) -> tuple[int, int]:
    """Orderable (file index, position); files compare by their numeric suffix."""
    m = re.search(r"\.(\d+)$", file or "")
    return (int(m.group(1)) if m else -1, int(pos or 0))


def default_connector_cmd() -> tuple[str, ...]:
    """The console script installed next to this interpreter (pyproject's `binlog-cdc`), else the one on PATH."""
    local = Path(sys.executable).parent / "binlog-cdc"
    return (str(local),) if local.exists() else ("binlog-cdc",)


def run_cli(*args: str, timeout: float = 120, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """`binlog-cdc ARGS` to its exit, captured as `subprocess.run(..., capture_output=True, text=True)`: stdout and
    stderr apart, the exit code, TimeoutExpired after `timeout`. Forked from the warm process (~1 s of CPU less per
    call); the CLI's own tests (test_cli, test_exit_codes, test_refusals) start real processes instead."""
    return LAUNCHER.run([*default_connector_cmd(), *args], timeout, env)


class ConnectorProcess:
    def __init__(self, cmd: list[str], config: Path, status_file: Path, log_file: Path, *,
                 env: dict[str, str] | None = None, cwd: Path | None = None):
        self.cmd = [*cmd, "run", str(config), "--status-file", str(status_file)]
        self.status_file = status_file
        self.log_file = log_file
        self.env = env  # None: this process's environment
        self.cwd = cwd
        self._proc: subprocess.Popen | WarmProcess | None = None
        self._log_start = 0

    def start(self) -> "ConnectorProcess":
        self.status_file.unlink(missing_ok=True)
        # Several runs may append to one log: run_log() is this run's part.
        self._log_start = self.log_file.stat().st_size if self.log_file.exists() else 0
        if tuple(self.cmd[:1]) == default_connector_cmd():
            self._proc = LAUNCHER.launch(self.cmd, self.env, self.cwd, self.log_file)
            if self._proc is not None:
                return self
        with open(self.log_file, "ab") as log:
            self._proc = subprocess.Popen(self.cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                          env=self.env, cwd=self.cwd,
                                          start_new_session=True)
        return self

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    def status(self) -> dict[str, Any] | None:
        try:
            return json.loads(self.status_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None  # not written yet (the file is replaced atomically, so never half-written)

    def log_tail(self, lines: int = 25) -> str:
        try:
            return "".join(self.log_file.read_text(encoding="utf-8", errors="replace").splitlines(True)[-lines:])
        except OSError:
            return "(no log)"

    def run_log(self) -> str:
        """Everything this run logged (not a fixed number of last lines: a loaded machine logs more retries)."""
        try:
            with open(self.log_file, "rb") as log:
                log.seek(self._log_start)
                return log.read().decode("utf-8", errors="replace")
        except OSError:
            return "(no log)"

    def _check_alive(self) -> None:
        if self._proc is None or self._proc.poll() is not None:
            rc = self._proc.returncode if self._proc else None
            raise ConnectorError(f"connector exited early (rc={rc}); last lines of {self.log_file}:\n{self.log_tail()}")

    def assert_running(self) -> None:
        """Fail at once, with the connector's log, if it has exited (instead of waiting out a timeout)."""
        self._check_alive()

    def wait_phase(self, phase: str, timeout: float) -> dict[str, Any]:
        """Until the status file says `phase` (snapshot, streaming, stopped)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self._check_alive()
            st = self.status()
            if st and st.get("phase") == phase:
                return st
            time.sleep(0.1)
        raise ConnectorError(f"no phase {phase!r} within {timeout:.0f} s; status {self.status()}\n{self.log_tail()}")

    def wait_streaming(self, timeout: float) -> dict[str, Any]:
        """Until the snapshot is over and the binlog reader runs (phase == streaming)."""
        return self.wait_phase("streaming", timeout)

    def wait_exit(self, timeout: float) -> int | None:
        """Until the connector exits by itself (a snapshot mode without streaming); its exit code."""
        assert self._proc is not None
        try:
            return self._proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise ConnectorError(f"did not exit by itself within {timeout:.0f} s; status {self.status()}\n"
                                 f"{self.log_tail()}") from None

    def wait_caught_up(self, target: tuple[str, int], quiet_ms: int, timeout: float,
                       stall_s: float | None = None) -> dict[str, Any]:
        """Until the reader position reached `target`, every sent record is acked, and
        records_sent has not changed for `quiet_ms` (the harness's three conditions), and no snapshot is running
        unpaused (an incremental snapshot's chunks come after `target`, each after a watermark round trip).
        `stall_s`: fail only after that long without progress (records sent, reader position), `timeout` being
        the bound on the whole wait: a snapshot's remainder read at a starved nice 19 on a loaded machine takes
        minutes and is not stuck (seed 2812: 26-41 s per 1,036-row chunk, the 180 s bound of the wait ran out)."""
        tkey = binlog_key(*target)
        started = time.monotonic()
        deadline = started + (timeout if stall_s is None else min(timeout, stall_s))
        last_sent, stable_since = None, time.monotonic()
        last_progress: tuple[Any, ...] | None = None
        st: dict[str, Any] | None = None
        while time.monotonic() < deadline:
            self._check_alive()
            st = self.status()
            if st:
                sent = st.get("records_sent")
                if sent != last_sent:
                    last_sent, stable_since = sent, time.monotonic()
                progress = (sent, st.get("binlog_file"), st.get("binlog_pos"))
                if stall_s is not None and progress != last_progress:
                    last_progress = progress
                    deadline = min(started + timeout, time.monotonic() + stall_s)
                reached = binlog_key(st.get("binlog_file"), st.get("binlog_pos")) >= tkey
                snapshot = st.get("snapshot") or {}
                busy = bool(snapshot.get("SnapshotRunning")) and not snapshot.get("SnapshotPaused")
                if (reached and not busy and st.get("records_acked") == sent
                        and (time.monotonic() - stable_since) * 1000 >= quiet_ms):
                    return st
            time.sleep(0.1)
        bound = f"{timeout:.0f} s" if stall_s is None else f"{timeout:.0f} s (or {stall_s:.0f} s without progress)"
        raise ConnectorError(f"did not reach binlog {target[0]}:{target[1]} with all records acked within "
                             f"{bound}; last status {st}\n{self.log_tail()}")

    def kill(self) -> int | None:
        """SIGKILL (a crash: nothing flushed, nothing committed); waits for the process to be gone."""
        proc = self._proc
        if proc is None:
            return None
        if proc.poll() is None:
            proc.kill()
        return proc.wait()

    def stop(self, timeout: float = 60) -> int | None:
        """SIGTERM (the graceful path: flush, commit offsets, exit 0); SIGKILL after `timeout`.
        Returns the exit code (negative for a signal, as subprocess reports it)."""
        proc = self._proc
        if proc is None:
            return None
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                with open(self.log_file, "a") as log:
                    log.write(f"\n[conformance runner] no exit {timeout:.0f} s after SIGTERM: killed\n")
        return proc.returncode


def run_until_exit(config: Path, workdir: Path, timeout: float = 120) -> tuple[int | None, ConnectorProcess]:
    """`binlog-cdc run config` until it exits by itself (a refused start, a terminal error): its exit code and the
    process (for its log); stopped in any case."""
    proc = ConnectorProcess(list(default_connector_cmd()), config, workdir / "status.json",
                            workdir / "connector.log").start()
    try:
        return proc.wait_exit(timeout), proc
    finally:
        proc.stop()


def run_until_streaming(config: Path, workdir: Path, timeout: float = 120) -> ConnectorProcess:
    """`binlog-cdc run config` until it streams, then a graceful stop that must exit 0; the process (for its
    log)."""
    proc = ConnectorProcess(list(default_connector_cmd()), config, workdir / "status.json",
                            workdir / "connector.log").start()
    try:
        proc.wait_streaming(timeout)
    finally:
        assert proc.stop() == 0, proc.log_tail()
    return proc
