"""Run `binlog-cdc run` while a writer thread changes the captured tables: the writer starts first, so the
snapshot overlaps live writes; it stops once the connector streams and it has committed more transactions
since, and the run ends when the connector has caught up with the server's binlog. Both the head start and the
overlap are counted in committed transactions, not seconds: a faster snapshot or a loaded machine would
otherwise leave the writer with only a handful of transactions."""
from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Protocol

from tests.support.connector_process import ConnectorProcess
from tests.support.connector_process import default_connector_cmd
from tests.support.waiting import wait_until


class StoppableWriter(Protocol):
    stop_requested: threading.Event
    committed: int
    error: BaseException | None

    def start(self) -> None: ...

    def finish(self) -> None: ...


def capture_while_writing(server: Any, config: Path, workdir: Path, writer: StoppableWriter,
                          head_start: int = 15, overlap: int = 40) -> None:
    """`head_start`: transactions the writer commits before the connector starts; `overlap`: after it streams."""

    def committed(count: int) -> bool:
        return writer.committed >= count or writer.error is not None  # an error: `finish` reports it

    writer.start()
    wait_until(lambda: committed(head_start), 120, f"the writer to commit {head_start} transactions",
               state=lambda: (writer.committed, writer.error))
    proc = ConnectorProcess(list(default_connector_cmd()), config, workdir / "status.json",
                            workdir / "connector.log").start()
    try:
        proc.wait_streaming(120)
        streaming = writer.committed
        wait_until(lambda: committed(streaming + overlap), 120,
                   f"the writer to commit {overlap} transactions while the connector streams",
                   state=lambda: (writer.committed, writer.error, proc.log_tail(3)))
        writer.finish()
        proc.wait_caught_up(server.binlog_position(), quiet_ms=1000, timeout=120)
    finally:
        writer.stop_requested.set()
        assert proc.stop() == 0, proc.log_tail()
