"""Start `binlog-cdc` runs as forks of one pre-imported process (tests/support/connector_zygote.py) instead of new
interpreters: the same `connector.cli.main`, own session, stdio, environment and working directory, ~1 s of CPU
less per start. Only for this checkout's console script and an environment that changes nothing the interpreter reads
at start (PYTHON*, LD_*); everything else, and `BINLOG_CDC_TEST_COLD_START=1`, starts a new process. The CLI's own
tests (test_cli, test_exit_codes, test_refusals, the Docker tests) always start real processes.
"""
from __future__ import annotations

import atexit
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.support.waiting import PROCESS_BOUND_S

_ZYGOTE = Path(__file__).with_name("connector_zygote.py")
_START_KEYS = ("PYTHON", "LD_")


def _start_env(env: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if k.startswith(_START_KEYS)}


class Zygote:
    """The client side: one per test process, started at first use."""

    def __init__(self) -> None:
        ours, theirs = socket.socketpair()
        self._env = dict(os.environ)
        self._proc = subprocess.Popen([sys.executable, str(_ZYGOTE), str(theirs.fileno())], pass_fds=[theirs.fileno()],
                                      stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, env=self._env)
        theirs.close()
        self._sock = ours
        self._pending = b""
        self.exits: dict[int, int] = {}
        # {"ready": pid}: a bound for a hung zygote, not a speed requirement (its imports took over 120 s at load 35)
        self._reply(timeout=600)
        atexit.register(self.close)

    def close(self) -> None:
        """The zygote leaves when its socket closes (the runs it forked keep running, as Popen children would)."""
        self._sock.close()
        try:
            self._proc.wait(10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()

    def alive(self) -> bool:
        return self._proc.poll() is None

    def serves(self, env: dict[str, str]) -> bool:
        return _start_env(env) == _start_env(self._env)

    def drain(self, timeout: float = 0) -> list[dict]:
        """Read what the zygote sent within `timeout`: exits are recorded in `exits`, the other messages (replies
        to `spawn` and the start) returned."""
        ready, _, _ = select.select([self._sock], [], [], max(timeout, 0))
        if not ready:
            return []
        data = self._sock.recv(65536)
        if not data:
            raise RuntimeError(f"the connector zygote exited (rc={self._proc.wait()})")
        self._pending += data
        replies = []
        while b"\n" in self._pending:
            line, self._pending = self._pending.split(b"\n", 1)
            message = json.loads(line)
            if "exit" in message:
                self.exits[message["exit"]] = message["code"]
            else:
                replies.append(message)
        return replies

    def _reply(self, timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            replies = self.drain(deadline - time.monotonic())
            if replies:
                return replies[0]  # requests are sent one at a time, each waiting for its reply
        raise RuntimeError(f"no answer from the connector zygote within {timeout:.0f} s")

    def spawn(self, argv: list[str], env: dict[str, str], cwd: Path | None, log: Path,
              err: Path | None = None) -> "WarmProcess":
        self._sock.sendall((json.dumps({"argv": argv, "env": env, "cwd": str(cwd) if cwd else None,
                                        "log": str(log), "err": str(err) if err else None}) + "\n").encode())
        reply = self._reply(timeout=PROCESS_BOUND_S)
        if "error" in reply:
            raise OSError(reply["error"])
        return WarmProcess(self, reply["pid"], argv)


class WarmProcess:
    """The part of subprocess.Popen that ConnectorProcess uses, for a child of the zygote. Signals go through a pidfd,
    so a recycled pid is never signalled."""

    def __init__(self, zygote: Zygote, pid: int, args: list[str]) -> None:
        self._zygote = zygote
        self.pid = pid
        self.args = args
        self.returncode: int | None = None
        try:
            self._pidfd: int | None = os.pidfd_open(pid)
        except ProcessLookupError:
            self._pidfd = None  # already gone and reaped: its exit code is on its way

    def poll(self) -> int | None:
        if self.returncode is None:
            self._zygote.drain()
            if self.pid in self._zygote.exits:
                self.returncode = self._zygote.exits.pop(self.pid)
                if self._pidfd is not None:
                    os.close(self._pidfd)
                    self._pidfd = None
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            left = 0.5 if deadline is None else min(0.5, deadline - time.monotonic())
            if left <= 0:
                raise subprocess.TimeoutExpired(self.args, timeout)
            self._zygote.drain(left)  # the next poll() takes the exit, if it came
        assert self.returncode is not None
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.poll() is None and self._pidfd is not None:
            try:
                signal.pidfd_send_signal(self._pidfd, sig)
            except ProcessLookupError:
                pass

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)


class WarmLauncher:
    """Lazily starts the zygote; `launch` answers None when a cold start is needed."""

    def __init__(self) -> None:
        self._zygote: Zygote | None = None

    def launch(self, argv: list[str], env: dict[str, str] | None, cwd: Path | None, log: Path,
               err: Path | None = None) -> WarmProcess | None:
        if os.environ.get("BINLOG_CDC_TEST_COLD_START") == "1":
            return None
        env = dict(os.environ if env is None else env)
        if self._zygote is None or not self._zygote.alive():
            self._zygote = Zygote()
        if not self._zygote.serves(env):
            return None
        return self._zygote.spawn(argv, env, cwd, log, err)

    def run(self, argv: list[str], timeout: float, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        """`argv` (this checkout's console script and its arguments) to its exit, as `subprocess.run(argv,
        capture_output=True, text=True, timeout=timeout)` would run it; forked from the zygote where it can be."""
        with tempfile.TemporaryDirectory(prefix="binlog-cdc-cli-") as scratch:
            out, err = Path(scratch) / "stdout", Path(scratch) / "stderr"
            proc = self.launch(argv, env, None, out, err)
            if proc is None:
                return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env,
                                      stdin=subprocess.DEVNULL)
            try:
                code = proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                raise
            return subprocess.CompletedProcess(argv, code, out.read_text(errors="replace"),
                                               err.read_text(errors="replace"))


# One per test process (each xdist worker, each script): the zygote is that process's helper, like its servers.
LAUNCHER = WarmLauncher()
