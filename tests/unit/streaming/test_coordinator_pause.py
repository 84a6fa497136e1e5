"""The coordinator over scripted sources: the initial snapshot then streaming, and a blocking snapshot that pauses
streaming between transactions and resumes it exactly where it stopped."""
from __future__ import annotations

import threading
from typing import Iterable

from connector.offsets.position import SourceOffset
from connector.binlog.reader import PositionedEvent
from connector.config.modes import SnapshotMode
from connector.coordinator import Coordinator
from connector.offsets.memory_store import MemoryOffsetStore
from connector.shutdown import ShutdownToken
from connector.streaming.loop import EventReader, StreamingLoop
from connector.streaming.pause import PauseGate
from schema_history.stores.memory import MemoryHistoryStore
from snapshot.modes import policy_for
from tests.unit.streaming.scripted import Binlog, Pipeline, heartbeats, settings

CREATE = "CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(20))"


class ScriptedReader:
    """A binlog connection to a scripted server: the events from where it connects, then heartbeats while idle."""

    def __init__(self, binlog: Binlog, file: str, pos: int, token: ShutdownToken, opened: list[tuple[str, int]]):
        self._binlog, self._token = binlog, token
        self.file, self.next_pos = file, pos
        self._opened = opened
        self.closed = False

    def open(self) -> None:
        self._opened.append((self.file, self.next_pos))

    def events(self) -> Iterable[PositionedEvent]:
        for pe in self._binlog.from_position(self.file, self.next_pos):
            self.file, self.next_pos = pe.file, pe.next_pos
            yield pe
        yield from heartbeats(self._token)

    def close(self) -> None:
        self.closed = True

    def has_pending(self) -> bool:
        return False

    def socket(self) -> None:
        return None


class ScriptedServer:
    """StartEnvironment, SnapshotSource and StreamingSource of one scripted server."""

    def __init__(self, pipeline: Pipeline, binlog: Binlog, token: ShutdownToken) -> None:
        self.pipeline, self.binlog, self.token = pipeline, binlog, token
        self.opened: list[tuple[str, int]] = []
        self.readers: list[ScriptedReader] = []
        self.snapshots: list[bool] = []

    # StartEnvironment
    def position_purged(self, offset: SourceOffset) -> str | None:
        return None

    def history_exists(self) -> bool:
        return True

    def recover_history(self, offset: SourceOffset) -> None:
        self.pipeline.schema.recover(offset.to_map(include_transaction=False))

    def reset_history(self) -> None:
        self.pipeline.schema.reset()

    def refuse_recovery_after_ddl(self, offset: SourceOffset) -> None:
        pass

    def oldest_binlog(self) -> str:
        return self.binlog.events[0].file

    # SnapshotSource: an empty database; the snapshot's position is the binlog's start
    def snapshot(self, *, with_data: bool = True, recovery_offset: SourceOffset | None = None,
                 after_interrupted: bool = False) -> SourceOffset:
        self.snapshots.append(with_data)
        return SourceOffset(self.binlog.events[0].file, self.binlog.events[0].start)

    def skipped(self) -> None:
        pass

    # StreamingSource
    def stream(self, offset: SourceOffset, gate: PauseGate) -> None:
        handler = self.pipeline.handler(offset)

        def open_reader() -> EventReader:
            st = handler.state
            reader = ScriptedReader(self.binlog, st.file, st.restart_pos, self.token, self.opened)
            self.readers.append(reader)
            return reader

        StreamingLoop(handler, open_reader, self.token, gate=gate,
                      housekeeping=self.pipeline.committer.maybe_commit).run()


def test_blocking_snapshot_pauses_between_transactions_and_resumes_there() -> None:
    token = ShutdownToken()
    binlog = Binlog().ddl(CREATE).begin().insert("customers", [1, "a"], [2, "b"]).commit()
    pipeline = Pipeline(settings(), MemoryHistoryStore(), MemoryOffsetStore())
    server = ScriptedServer(pipeline, binlog, token)
    coordinator = Coordinator(policy_for(SnapshotMode.INITIAL), None, server, server, server, token)
    thread = threading.Thread(target=coordinator.run, name="coordinator-under-test")
    thread.start()
    try:
        pipeline.sink.wait_for(3)  # the schema change and both inserts
        assert server.snapshots == [True]

        seen_during_pause: list[int] = []

        def blocking_snapshot(at: SourceOffset) -> None:
            # The database moves on while the snapshot runs; streaming must not read it yet.
            binlog.begin().insert("customers", [3, "c"]).commit()
            seen_during_pause.append(len(pipeline.sink.sent))
            assert server.readers[-1].closed

        at = coordinator.blocking_snapshot(blocking_snapshot, timeout_s=10)
        # Paused after the first transaction's XID: its next event, nothing to skip.
        assert (at.file, at.pos, at.event, at.row) == ("mysql-bin.000001", 504, 0, 0)
        assert seen_during_pause == [3]
        sent = pipeline.sink.wait_for(4)
        assert [s.summary()[1] for s in sent] == ["ddl", "c", "c", "c"]
        assert server.opened == [("mysql-bin.000001", 4), ("mysql-bin.000001", 504)]
    finally:
        token.request()
        thread.join(10)
    assert not thread.is_alive()


def test_a_pause_waits_for_the_end_of_the_transaction() -> None:
    token = ShutdownToken()
    binlog = Binlog().ddl(CREATE).begin().insert("customers", [1, "a"]).insert("customers", [2, "b"]).commit()
    pipeline = Pipeline(settings(), MemoryHistoryStore(), MemoryOffsetStore())
    server = ScriptedServer(pipeline, binlog, token)
    gate = PauseGate()
    gate.request()  # asked before streaming starts: it still parks only at the first transaction boundary
    handler_offset = SourceOffset("mysql-bin.000001", 4)
    thread = threading.Thread(target=server.stream, args=(handler_offset, gate), name="streaming-under-test")
    thread.start()
    try:
        at = gate.wait_paused(10)
        # The first boundary is right after the DDL (a standalone event), before the transaction began.
        assert at is not None and (at.pos, at.event) == (104, 0)
        gate.resume()
        gate.request()
        at = gate.wait_paused(10)
        # Not inside the transaction: after its XID, with both rows emitted.
        assert at is not None and at.pos == binlog.events[-1].next_pos
        assert [s.summary()[1] for s in pipeline.sink.sent] == ["ddl", "c", "c"]
        gate.resume()
    finally:
        token.request()
        thread.join(10)
    assert not thread.is_alive()


def test_a_task_beside_streaming_hands_its_failure_to_the_main_loop() -> None:
    token = ShutdownToken()
    pipeline = Pipeline(settings(), MemoryHistoryStore(), MemoryOffsetStore())
    server = ScriptedServer(pipeline, Binlog().ddl(CREATE), token)
    coordinator = Coordinator(policy_for(SnapshotMode.INITIAL), None, server, server, server, token)

    def failing() -> None:
        raise RuntimeError("chunk query failed")

    coordinator.run_beside_streaming("adhoc-snapshot", failing).join(10)
    try:
        coordinator.check_side_tasks()
    except RuntimeError as exc:
        assert str(exc) == "chunk query failed"
    else:
        raise AssertionError("the failure was not handed over")
    ok = coordinator.run_beside_streaming("adhoc-snapshot-2", lambda: None)
    ok.join(10)
