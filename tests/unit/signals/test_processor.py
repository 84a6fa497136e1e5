"""SignalingEmitter's routing, with in-memory stand-ins for the dispatcher and the snapshots (the records
themselves: goldens signals_*; the channels against servers: tests/integration/signals/)."""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

from connector.offsets.position import SourceOffset
from connector.config.modes import Operation
from connector.signals.actions import ExecuteSnapshot, SignalRecord
from connector.signals.channels import SignalQueue
from connector.signals.processor import NoIncrementalSnapshots, SignalingEmitter
from connector.events.changes import EventSource, RowChange
from connector.streaming.emitter import PausePoint
from connector.streaming.handler import StreamingState
from schema_history.model import TableId

SIGNALS = TableId("inventory", "debezium_signal")
SOURCE = EventSource(ts_ms=0, db="inventory", table="debezium_signal", server_id=1, gtid=None, file="b.000001",
                     pos=100, row=0, thread=0)


class Inner:
    def __init__(self) -> None:
        self.rows: list[RowChange] = []

    def wants_table(self, table_id: TableId) -> bool:
        return True

    def row_change(self, change: RowChange, source: EventSource, positions: Any) -> None:
        self.rows.append(change)


class Blocking:
    def __init__(self) -> None:
        self.runs: list[tuple[str, int]] = []

    def run(self, action: ExecuteSnapshot, source: EventSource, offset: SourceOffset) -> None:
        self.runs.append((action.id, source.pos))


def emitter(source_channel: bool = True, queue: SignalQueue | None = None) -> tuple[SignalingEmitter, Inner, Blocking]:
    inner, blocking = Inner(), Blocking()
    state = StreamingState(file="b.000001", restart_pos=4)
    snapshots = NoIncrementalSnapshots("no signal table")
    return (SignalingEmitter(inner, state, SIGNALS, snapshots, blocking, external=queue,  # type: ignore[arg-type]
                             source_channel=source_channel), inner, blocking)


def signal_row(sid: str, kind: str, data: str | None) -> RowChange:
    return RowChange(SIGNALS, Operation.CREATE, None, [sid, kind, data])


def test_a_blocking_snapshot_waits_for_the_next_event_and_the_signal_row_goes_out_first():
    em, inner, blocking = emitter()
    assert isinstance(em, PausePoint) and not em.pause_requested
    em.row_change(signal_row("b1", "execute-snapshot", '{"data-collections": ["inventory.t"], "type": "blocking"}'),
                  SOURCE, None)
    assert len(inner.rows) == 1 and blocking.runs == [] and em.pause_requested
    em.paused_at(replace(SOURCE, pos=180), SourceOffset("b.000001", 4, event=3))
    assert blocking.runs == [("b1", 180)] and not em.pause_requested


def test_signals_of_other_channels_are_acted_on_at_the_next_event(caplog):
    queue = SignalQueue()
    em, _, blocking = emitter(queue=queue)
    queue.put([SignalRecord("k1", "execute-snapshot", '{"data-collections": ["a.b"], "type": "blocking"}', "kafka"),
               SignalRecord("k2", "stop-snapshot", '{"type": "blocking"}', "kafka")])
    assert em.pause_requested
    with caplog.at_level(logging.WARNING):
        em.paused_at(SOURCE, SourceOffset("b.000001", 4))
    assert blocking.runs == [("k1", 100)]
    assert "signal 'k2' ignored: stop-snapshot applies to incremental snapshots only (channel kafka)" in caplog.text


def test_without_the_source_channel_rows_of_the_signal_table_are_not_signals(caplog):
    em, inner, blocking = emitter(source_channel=False)
    em.row_change(signal_row("b1", "execute-snapshot", '{"data-collections": ["a.b"], "type": "blocking"}'),
                  SOURCE, None)
    assert not em.pause_requested and len(inner.rows) == 1


def test_an_incremental_signal_without_a_signal_table_is_rejected_by_id(caplog):
    em, _, _ = emitter()
    with caplog.at_level(logging.WARNING):
        em.process(SignalRecord("i1", "execute-snapshot", '{"data-collections": ["a.b"]}', "file"))
    assert "signal 'i1' ignored: no signal table (channel file)" in caplog.text
