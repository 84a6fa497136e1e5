"""A run forked from the connector zygote behaves as a new `binlog-cdc` process: same exit codes and log lines, the
environment, working directory and signals it was given."""
from __future__ import annotations

import os
import re
import signal
import socket
from pathlib import Path

import pytest

from tests.conformance.config import write_properties
from tests.support.connector_process import ConnectorProcess, default_connector_cmd
from tests.support.waiting import wait_until
from tests.support.warm_launch import WarmProcess

pytestmark = pytest.mark.timeout(120)

STAMP = re.compile(r"^\S+ \S+ ", re.MULTILINE)


def _config(path: Path, port: int | str) -> Path:
    write_properties(path, {
        "debezium.sink.kafka.producer.bootstrap.servers": "127.0.0.1:9",
        "debezium.source.database.hostname": "127.0.0.1",
        "debezium.source.database.port": str(port),
        "debezium.source.database.user": "u",
        "debezium.source.database.server.id": "5501",
        "debezium.source.topic.prefix": "p",
        "debezium.source.offset.storage.file.filename": "offsets.dat",
        "debezium.source.schema.history.internal": "io.debezium.storage.file.history.FileSchemaHistory",
        "debezium.source.schema.history.internal.file.filename": "history.jsonl",
    })
    return path


def _process(tmp_path: Path, name: str, config: Path, env: dict[str, str] | None = None) -> ConnectorProcess:
    return ConnectorProcess(list(default_connector_cmd()), config, tmp_path / f"{name}.status",
                            tmp_path / f"{name}.log", env=env, cwd=tmp_path)


def test_a_failed_start_ends_alike_warm_and_cold(tmp_path, monkeypatch):
    config = _config(tmp_path / "c.properties", "not-a-port")
    env = {**os.environ, "DEBEZIUM_SOURCE_SNAPSHOT_MODE": "sometimes"}  # from the environment: the child must see it
    warm = _process(tmp_path, "warm", config, env).start()
    assert isinstance(warm._proc, WarmProcess)
    monkeypatch.setenv("BINLOG_CDC_TEST_COLD_START", "1")
    cold = _process(tmp_path, "cold", config, env).start()
    assert not isinstance(cold._proc, WarmProcess)
    assert warm.wait_exit(60) == cold.wait_exit(60) == 2
    warm_log, cold_log = (STAMP.sub("", p.run_log()) for p in (warm, cold))
    assert "snapshot.mode='sometimes'" in warm_log
    assert warm_log == cold_log


def test_signals_reach_the_forked_run(tmp_path):
    # A server that accepts and never speaks keeps the connector in its first connect.
    with socket.create_server(("127.0.0.1", 0)) as mute:
        config = _config(tmp_path / "c.properties", mute.getsockname()[1])
        proc = _process(tmp_path, "run", config).start()
        assert isinstance(proc._proc, WarmProcess)
        proc.assert_running()
        os.kill(proc.pid, 0)
        cwd = Path(f"/proc/{proc.pid}/cwd")
        wait_until(lambda: cwd.resolve() == tmp_path.resolve(), 30, "the fork in its working directory",
                   state=lambda: cwd.resolve())
        assert os.getsid(proc.pid) == proc.pid  # its own session, as start_new_session gives a Popen child
        assert proc.kill() == -signal.SIGKILL
        assert proc._proc.poll() == -signal.SIGKILL
