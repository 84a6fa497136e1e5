"""Run `binlog-cdc run` while a writer thread changes the captured tables: the writer starts first, so the
snapshot overlaps live writes; it stops once the connector streams, and the run ends when the connector has
caught up with the server's binlog."""
from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any, Protocol

from tests.support.connector_process import ConnectorProcess
from tests.support.connector_process import default_connector_cmd


class StoppableWriter(Protocol):
    stop_requested: threading.Event

    def start(self) -> None: ...

    def finish(self) -> None: ...


def capture_while_writing(server: Any, config: Path, workdir: Path, writer: StoppableWriter,
                          head_start_s: float = 0.3, overlap_s: float = 1.0) -> None:
    writer.start()
    time.sleep(head_start_s)
    proc = ConnectorProcess(list(default_connector_cmd()), config, workdir / "status.json",
                            workdir / "connector.log").start()
    try:
        proc.wait_streaming(120)
        time.sleep(overlap_s)
        writer.finish()
        proc.wait_caught_up(server.binlog_position(), quiet_ms=1000, timeout=120)
    finally:
        writer.stop_requested.set()
        assert proc.stop() == 0, proc.log_tail()
