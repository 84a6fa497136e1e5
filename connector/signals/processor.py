"""The processor that turns signals of every channel into actions, and the `source` channel itself.

Debezium recognises a signal in the binlog: an INSERT into `signal.data.collection` (columns id, type,
data by position). It acts on it synchronously, on the streaming thread, before the signal row's own change
record is emitted (EventDispatcher: "a synchronization point ... so the offset context updated by signaling
will be correctly saved"); the row itself is then emitted like any other when the table is captured. Here
`SignalingEmitter` sits between the streaming handler and the dispatcher and does exactly that; it also hands
every captured change to the incremental snapshot for de-duplication, and keeps the snapshot's offset keys
in the streaming state, so every record's offset carries them. Signals of the kafka and file channels
(channels.py) are acted on by the streaming thread too, before its next event; a blocking snapshot runs there,
before the event that follows its signal (the handler's PausePoint), so streaming resumes exactly where it was.
"""

from __future__ import annotations

import logging
from typing import Any, Callable, Protocol, Sequence

from connector.offsets.position import SourceOffset, TransactionState
from connector.binlog.rows_decoder import RawRows
from connector.config.modes import Operation
from connector.offsets.parts import IncrementalSnapshotSlot
from connector.signals.channels import SignalQueue
from connector.gtids.sets import GtidSet
from connector.signals.actions import (CloseWindow, ExecuteSnapshot, LogMessage, OpenWindow, PauseSnapshot,
                                       ResumeSnapshot, SetBinlogPosition, SignalAction, SignalRecord, SignalRejected,
                                       StopSnapshot, parse_action)
from connector.events.changes import EventPositions, EventSource, RowChange
from connector.streaming.emitter import ChangeEmitter, FusedRowsEmitter, FusedRowsEvent, RowsShipping, TableMapCheck
from connector.streaming.handler import StreamingState
from schema_history.model import TableId

__all__ = ["BlockingSnapshots", "NoIncrementalSnapshots", "SignalingEmitter", "SnapshotActions"]

log = logging.getLogger(__name__)


class BlockingSnapshots(Protocol):
    """Blocking snapshots (snapshot/blocking.py), run while streaming is paused."""

    def run(self, action: ExecuteSnapshot, source: EventSource, offset: SourceOffset) -> None: ...


class SnapshotActions(Protocol):
    """The incremental snapshot as signals drive it (snapshot/incremental/source.py)."""

    def execute(self, action: ExecuteSnapshot) -> None: ...

    def open_window(self, signal_id: str) -> None: ...

    def close_window(self, signal_id: str, source: EventSource, offset: SourceOffset) -> None: ...

    def process_change(self, table_id: TableId, images: Sequence[Sequence[Any] | None], source: EventSource,
                       offset: SourceOffset) -> bool:
        """True when the snapshot's offset part changed (a read-only window went out before this change)."""
        ...

    def needs_rows(self, table_id: TableId) -> bool:
        """Whether `process_change` must see the table's rows (a snapshot of it is under way)."""
        ...

    def committed(self, source: EventSource, offset: SourceOffset) -> None: ...

    def schema_changed(self, database: str) -> None: ...

    def slot(self) -> IncrementalSnapshotSlot | None: ...

    def stop(self, data_collections: Sequence[str]) -> None: ...

    def pause(self) -> None: ...

    def resume(self) -> None: ...


WATERMARKS = ("snapshot-window-open", "snapshot-window-close")


class NoIncrementalSnapshots:
    """`SnapshotActions` where incremental snapshots cannot run (`reason`): execute-snapshot is rejected."""

    def __init__(self, reason: str) -> None:
        self._reason = reason

    def execute(self, action: ExecuteSnapshot) -> None:
        raise SignalRejected(action.id, self._reason)

    def committed(self, source: EventSource, offset: SourceOffset) -> None:
        pass

    def schema_changed(self, database: str) -> None:
        pass

    def open_window(self, signal_id: str) -> None:
        pass

    def close_window(self, signal_id: str, source: EventSource, offset: SourceOffset) -> None:
        pass

    def process_change(self, table_id: TableId, images: Sequence[Sequence[Any] | None], source: EventSource,
                       offset: SourceOffset) -> bool:
        return False

    def needs_rows(self, table_id: TableId) -> bool:
        return False

    def slot(self) -> IncrementalSnapshotSlot | None:
        return None

    def stop(self, data_collections: Sequence[str]) -> None:
        log.warning("stop-snapshot: no incremental snapshot is running, stop ignored")

    def pause(self) -> None:
        pass

    def resume(self) -> None:
        pass


def _text(value: Any) -> str | None:
    if value is None:
        return None
    return value.decode("utf-8", "replace") if isinstance(value, (bytes, bytearray)) else str(value)


class SignalingEmitter:
    """A `ChangeEmitter` (connector/streaming/handler.py) over the dispatcher, with the source channel."""

    def __init__(self, inner: ChangeEmitter, state: StreamingState, signal_table: TableId | None,
                 snapshots: SnapshotActions, blocking: BlockingSnapshots | None = None, *,
                 external: SignalQueue | None = None, source_channel: bool = True,
                 on_close: Callable[[], None] = lambda: None,
                 heartbeat: Callable[[SourceOffset], None] = lambda offset: None) -> None:
        self._inner = inner
        self._heartbeat = heartbeat  # a heartbeat record carrying an offset (Debezium's alwaysDispatchHeartbeatEvent)
        self._state = state
        self._signal_table = signal_table
        self._snapshots = snapshots
        self._blocking = blocking
        self._pending_blocking: list[ExecuteSnapshot] = []
        # Signals of the kafka and file channels (connector/signals/channels.py), read on another thread.
        self._external = external
        # Without the source channel the signal table still carries the incremental snapshot's watermarks.
        self._source_channel = source_channel
        self._on_close = on_close  # stops what reads the other channels
        self._sync_parts()

    def stop_channels(self) -> None:
        """Streaming ended: stop reading the kafka and file channels."""
        self._on_close()

    # ------------------------------------------------------------ between events
    @property
    def pause_requested(self) -> bool:
        """Read by the streaming handler before every event (connector/streaming/handler.py PausePoint)."""
        return bool(self._pending_blocking) or (self._external is not None and bool(self._external))

    def committed(self, source: EventSource, offset: SourceOffset) -> None:
        """A transaction committed (its END record is out): read-only incremental windows may close."""
        self._snapshots.committed(source, offset)
        self._sync_parts()

    def idle(self, source: EventSource, offset: SourceOffset) -> None:
        """A heartbeat of an idle server, between transactions."""
        self.paused_at(source, offset)
        self.committed(source, offset)

    def paused_at(self, source: EventSource, offset: SourceOffset) -> None:
        """Streaming is paused before an event: act on the other channels' signals, then run the blocking
        snapshots asked for (as Debezium, after the event that carried the signal)."""
        if self._external is not None:
            for record in self._external.take():
                self.process(record)
        pending, self._pending_blocking = self._pending_blocking, []
        for action in pending:
            assert self._blocking is not None
            self._blocking.run(action, source, offset)

    # ------------------------------------------------------------ delegated
    def transaction_begin(self, tx_id: str, ts_ms: int, offset: SourceOffset) -> None:
        self._inner.transaction_begin(tx_id, ts_ms, offset)

    def transaction_end(self, tx: TransactionState, ts_ms: int, offset: SourceOffset) -> None:
        self._inner.transaction_end(tx, ts_ms, offset)

    def ddl(self, statement: str, database: str, source: EventSource, offset: SourceOffset) -> None:
        self._inner.ddl(statement, database, source, offset)
        self._snapshots.schema_changed(database)  # after the schema took the DDL: a chunk read now matches it
        self._sync_parts()

    def position_advanced(self, offset: SourceOffset, next_pos: tuple[str, int]) -> None:
        self._inner.position_advanced(offset, next_pos)

    def wants_table(self, table_id: TableId) -> bool:
        return table_id == self._signal_table or self._inner.wants_table(table_id)

    # ------------------------------------------------------------ rows
    def row_change(self, change: RowChange, source: EventSource, positions: EventPositions) -> None:
        if change.table_id == self._signal_table and change.op is Operation.CREATE and change.after is not None:
            row = change.after
            record = SignalRecord(_text(row[0]) or "", _text(row[1]) or "", _text(row[2]) if len(row) > 2 else None)
            if self._source_channel or record.type in WATERMARKS:
                self.process(record, source)
        if self._inner.wants_table(change.table_id):
            # A read-only window that closes before this change goes out at the offset *before* it (its row not
            # yet done): the state already counts the change's row, and a window row stored with that offset
            # would let a restart skip the change, which was never sent (issue 28: a lost update).
            if self._snapshots.process_change(change.table_id, (change.before, change.after), source,
                                              self._state.offset(rows=source.row)):
                self._sync_parts()  # the change's record carries the offset part past the window just sent
            self._inner.row_change(change, source, positions)

    def fused_rows(self, table_id: TableId, op: Operation, source: EventSource) -> FusedRowsEvent | None:
        """The dispatcher's fused row path for a rows event, unless its rows are needed here (as `rows_event`)."""
        if table_id == self._signal_table or self._snapshots.needs_rows(table_id):
            return None
        inner = self._inner
        return inner.fused_rows(table_id, op, source) if isinstance(inner, FusedRowsEmitter) else None

    def table_map(self, table_id: TableId, binlog_types: tuple[int, ...], file: str, pos: int) -> None:
        """The dispatcher's TABLE_MAP check (the rows of a table whose TABLE_MAP disagrees with the schema history
        stop the connector or are skipped, inconsistent.schema.handling.mode), with signals configured too."""
        inner = self._inner
        if isinstance(inner, TableMapCheck):
            inner.table_map(table_id, binlog_types, file, pos)

    def ships_rows(self) -> bool:
        """Whether the dispatcher has encode workers (the streaming handler then hands it whole rows events)."""
        inner = self._inner
        return isinstance(inner, RowsShipping) and inner.ships_rows()

    def rows_event(self, table_id: TableId, op: Operation, raw: RawRows, source: EventSource, first: int,
                   offset: SourceOffset) -> bool:
        """A rows event for the encode workers, unless its rows are needed here: the signal table's, or those
        of a table an incremental snapshot is reading (streamed keys leave its chunk)."""
        if table_id == self._signal_table or self._snapshots.needs_rows(table_id):
            return False
        inner = self._inner
        assert isinstance(inner, RowsShipping)
        return inner.rows_event(table_id, op, raw, source, first, offset)

    def settled_last_row(self, current: int) -> int:
        inner = self._inner
        assert isinstance(inner, RowsShipping)
        return inner.settled_last_row(current)

    def process(self, record: SignalRecord, source: EventSource | None = None) -> None:
        """Act on one signal from any channel; a malformed one is logged with its id and ignored."""
        try:
            action = parse_action(record)
            self._act(action, source)
        except SignalRejected as exc:
            log.warning("%s (channel %s)", exc, record.channel)
        finally:
            self._sync_parts()

    def _act(self, action: SignalAction, source: EventSource | None) -> None:
        snapshots = self._snapshots
        if isinstance(action, ExecuteSnapshot):
            if action.kind == "blocking":
                if self._blocking is None:
                    raise SignalRejected(action.id, "blocking snapshots need streaming (no blocking snapshot source)")
                # As Debezium: streaming pauses at the next event; the signal's own record goes out first.
                self._pending_blocking.append(action)
            else:
                snapshots.execute(action)
        elif isinstance(action, OpenWindow):
            snapshots.open_window(action.id)
        elif isinstance(action, CloseWindow):
            if source is not None:  # only the binlog knows where a window closes
                snapshots.close_window(action.id, source, self._state.offset())
        elif isinstance(action, StopSnapshot):
            if action.kind == "blocking":
                # a blocking snapshot runs to its end while streaming waits: there is nothing to stop in between
                raise SignalRejected(action.id, "stop-snapshot applies to incremental snapshots only")
            snapshots.stop(action.data_collections)
        elif isinstance(action, PauseSnapshot):
            snapshots.pause()
        elif isinstance(action, ResumeSnapshot):
            snapshots.resume()
        elif isinstance(action, LogMessage):
            log.info("signal '%s': %s", action.id, action.message)
        elif isinstance(action, SetBinlogPosition):
            self._set_binlog_position(action)

    def _set_binlog_position(self, action: SetBinlogPosition) -> None:
        """As Debezium's SetBinlogPositionSignal: the streaming offset takes the position (setBinlogStartPoint, the
        file also becoming the source's) or the GTID set (setCompletedGtidSet), and a heartbeat record carries it
        so that it is committed. Streaming itself goes on where it is: the next start uses the new offset, unless
        later records commit a later position first (the same in Debezium)."""
        st = self._state
        if action.gtids is not None:
            if not isinstance(st.current_gtids, GtidSet):
                raise SignalRejected(action.id, "a GTID set needs MySQL with gtid_mode=ON")
            log.info("Setting binlog position to GTID set: %s", action.gtids)
            st.current_gtids = GtidSet.parse(action.gtids)
            st.restart_gtids = st.gtids_text = action.gtids
        else:
            assert action.file is not None and action.pos is not None
            log.info("Setting binlog position to file: %s, position: %d", action.file, action.pos)
            st.file, st.restart_pos, st.events, st.rows = action.file, action.pos, 0, 0
        self._heartbeat(st.offset())
        log.info("Successfully updated binlog position. Restart the connector for changes to take effect.")

    def _sync_parts(self) -> None:
        st = self._state
        slot = self._snapshots.slot()
        rest = tuple(p for p in st.parts if not isinstance(p, IncrementalSnapshotSlot))
        st.parts = rest + ((slot,) if slot is not None else ())

