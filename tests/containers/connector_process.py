"""The connector CLI as a child process, the way the image runs it: `binlog-cdc run CONFIG
--status-file STATUS`, configured by the file plus DEBEZIUM_* environment variables, stopped with SIGTERM."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.support.waiting import wait_until


def binlog_cdc_executable() -> str:
    """The console script installed next to this interpreter (pyproject's `binlog-cdc` entry point)."""
    script = Path(sys.executable).with_name("binlog-cdc")
    if not script.exists():
        raise FileNotFoundError(f"{script} is missing: pip install -e . in this venv")
    return str(script)


class ConnectorProcess:
    def __init__(self, config: Path, workdir: Path, env: dict[str, str]) -> None:
        self.config = config
        self.workdir = workdir
        self.status_file = workdir / "status.json"
        self.log_file = workdir / "connector.log"
        # The parent's own DEBEZIUM_* variables must not leak into the connector's configuration.
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("DEBEZIUM_")} | env
        self._proc: subprocess.Popen | None = None

    def start(self) -> "ConnectorProcess":
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.status_file.unlink(missing_ok=True)
        with open(self.log_file, "a", encoding="utf-8") as log:
            self._proc = subprocess.Popen(
                [binlog_cdc_executable(), "run", str(self.config), "--status-file", str(self.status_file)],
                cwd=self.workdir, env=self.env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        return self

    def status(self) -> dict[str, Any] | None:
        try:
            return json.loads(self.status_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def assert_running(self) -> None:
        """Fail at once, with the connector's log, if it has exited (instead of waiting out a timeout)."""
        if self._proc is not None and self._proc.poll() is not None:
            raise AssertionError(f"the connector exited with {self._proc.returncode}:\n{self.log_tail()}")

    def wait_phase(self, phase: str, timeout: float = 120) -> dict[str, Any]:
        def reached() -> dict[str, Any] | None:
            self.assert_running()
            status = self.status()
            return status if status and status.get("phase") == phase else None

        try:
            return wait_until(reached, timeout, f"connector phase {phase!r}")
        except TimeoutError as exc:
            raise AssertionError(f"{exc}; last status {self.status()}\n{self.log_tail()}") from None

    def stop(self, timeout: float = 60) -> int:
        """SIGTERM, as `docker stop` sends; the exit status (the graceful path must give 0)."""
        proc = self._proc
        if proc is None:
            return 0
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                raise AssertionError(f"the connector ignored SIGTERM for {timeout:.0f} s:\n{self.log_tail()}") from None
        self._proc = None
        return proc.returncode

    def kill(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()
        self._proc = None

    def log_tail(self, chars: int = 4000) -> str:
        try:
            return self.log_file.read_text(encoding="utf-8", errors="replace")[-chars:]
        except OSError:
            return "(no log)"
