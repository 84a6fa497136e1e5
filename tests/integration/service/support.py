"""Shared set-up of the service tests: a connector configuration and a running `binlog-cdc run` process."""
from __future__ import annotations

import time
import uuid
from pathlib import Path
from typing import Callable

from tests.support.connector_process import ConnectorProcess
from tests.support.connector_process import default_connector_cmd
from tests.support.connector_config import write_connector_config
from tests.support.ports import free_port
from tests.support.waiting import wait_until


def connector_config(workdir: Path, server, broker, database: str, prefix: str, **extra: str) -> Path:
    return write_connector_config(workdir, server, broker, database, prefix, **extra)


def new_prefix(tag: str) -> str:
    return f"{tag}{uuid.uuid4().hex[:8]}"


def start_connector(workdir: Path, config: Path, timeout: float = 120) -> ConnectorProcess:
    proc = ConnectorProcess(list(default_connector_cmd()), config, workdir / "status.json",
                            workdir / "connector.log").start()
    proc.wait_streaming(timeout)
    return proc


def metrics_port() -> int:
    """A free port for the connector's metrics endpoint (OS-assigned: parallel workers never share one)."""
    return free_port()


def scrape(port: int, path: str = "/metrics") -> tuple[int, str]:
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def metric(text: str, name: str) -> float:
    """The value of `debezium_mysql_streaming_<name>` in a Prometheus text exposition."""
    for line in text.splitlines():
        if line.startswith(f"debezium_mysql_streaming_{name}{{") or line.startswith(f"debezium_mysql_streaming_{name} "):
            return float(line.rsplit(" ", 1)[1])
    raise KeyError(name)


def kill_dump_threads(server, user: str) -> int:
    """KILL CONNECTION every binlog dump thread of `user`; returns how many were killed."""
    rows = server.query("SELECT id FROM information_schema.processlist WHERE command LIKE 'Binlog Dump%%' "
                        "AND user = %s", (user,))
    for (tid,) in rows:
        try:
            server.query(f"KILL CONNECTION {int(tid)}")
        except Exception:  # noqa: BLE001 - it may have gone already
            pass
    return len(rows)


def restart_in_place(server, down_s: float = 1.0, while_down: "Callable[[], None] | None" = None) -> None:
    """Stop the database server and start it again on the same data directory and port (`server.start()`
    would wipe the data directory); `while_down` runs while it is stopped."""
    import signal
    import subprocess

    proc = server._proc
    proc.send_signal(signal.SIGTERM)
    proc.wait(60)
    time.sleep(down_s)
    if while_down is not None:
        while_down()
    with open(server.rundir / "stdout.log", "a") as out:
        server._proc = subprocess.Popen(server._server_cmd(), stdout=out, stderr=subprocess.STDOUT,
                                        stdin=subprocess.DEVNULL, start_new_session=True)
    wait_until(server._ready, 60, f"{server.flavour} to restart", interval=0.2)
