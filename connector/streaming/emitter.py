"""The seam between streaming and what it hands its results to (the dispatcher, or the signal processor around
it): `ChangeEmitter`, which every emitter offers, and the optional capabilities an emitter may add, each a
Protocol the streaming handler checks for once (connector/streaming/handler.py)."""

from __future__ import annotations

from typing import Any, Callable, Protocol, Sequence, runtime_checkable

from connector.offsets.position import SourceOffset, TransactionState
from connector.binlog.rows_decoder import RawRows, RowPair, RowPlan
from connector.config.modes import Operation
from connector.events.changes import EventPositions, EventSource, RowChange
from schema_history.model import TableId

__all__ = ["ChangeEmitter", "ChannelsOwner", "FusedRowsEmitter", "FusedRowsEvent", "PausePoint", "RowsShipping",
           "TableMapCheck"]


class ChangeEmitter(Protocol):
    """Where streaming hands its results; implemented by the dispatcher."""

    def transaction_begin(self, tx_id: str, ts_ms: int, offset: SourceOffset) -> None: ...

    def transaction_end(self, tx: TransactionState, ts_ms: int, offset: SourceOffset) -> None: ...

    def wants_table(self, table_id: TableId) -> bool: ...

    def row_change(self, change: RowChange, source: EventSource, positions: EventPositions) -> None: ...

    def ddl(self, statement: str, database: str, source: EventSource, offset: SourceOffset) -> None: ...

    def position_advanced(self, offset: SourceOffset, next_pos: tuple[str, int]) -> None: ...


@runtime_checkable
class PausePoint(Protocol):
    """An emitter told about points between events (connector/signals/processor.py): before an event when it asked
    for a pause (a blocking snapshot, signals of other channels), after each commit and at idle heartbeats (the
    read-only incremental snapshot's windows)."""

    pause_requested: bool

    def paused_at(self, source: EventSource, offset: SourceOffset) -> None:
        """Streaming is paused before the event `source` names; `offset` is where it resumes."""
        ...

    def committed(self, source: EventSource, offset: SourceOffset) -> None:
        """The transaction committed by the event `source` names is sent (its END record included)."""
        ...

    def idle(self, source: EventSource, offset: SourceOffset) -> None:
        """A server heartbeat between transactions."""
        ...


class FusedRowsEvent(Protocol):
    """One rows event's emission on the fused row path (connector/dispatch/fused_rows.py `FusedRows`)."""

    def row(self, before: Sequence[Any] | None, after: Sequence[Any] | None, index: int,
            positions: EventPositions) -> bool:
        """Emits one row change; False when it must take `row_change` instead (nothing was emitted)."""
        ...

    def flush(self) -> None:
        """Sends the rows emitted so far (before a row of the general path, and at the end of the event)."""
        ...

    @property
    def checking(self) -> bool:
        """Whether `rendered` wants each row's decoded images too."""
        ...

    def image_text(self, plan: RowPlan) -> Callable[[bytes, int], tuple[str, tuple, int] | None] | None:
        """The row image bytes → (value JSON text, key values, next position) function for the TABLE_MAP `plan` was
        built from (None for a row the general path must take), or None when this table version has none."""
        ...

    def rendered(self, before_text: str, before_key: tuple | None, after_text: str, after_key: tuple | None,
                 index: int, positions: EventPositions, images: RowPair | None = None) -> bool:
        """Emits one row change from its image texts ("null", key None for a missing image); False when it must
        take `row_change` instead (nothing was emitted)."""
        ...


@runtime_checkable
class FusedRowsEmitter(Protocol):
    """An emitter with the fused row path (connector/dispatch/fused_rows.py)."""

    def fused_rows(self, table_id: TableId, op: Operation, source: EventSource) -> FusedRowsEvent | None:
        """For one rows event (`source` at its first row to emit): its fused emission, or None when its rows must
        take `row_change`."""
        ...


@runtime_checkable
class RowsShipping(Protocol):
    """An emitter that may hand whole rows events, undecoded, to encode workers (encode.workers,
    connector/dispatch/pipelined_sender.py)."""

    def ships_rows(self) -> bool:
        """Whether encode workers run (otherwise `rows_event` is never called)."""
        ...

    def rows_event(self, table_id: TableId, op: Operation, raw: RawRows, source: EventSource, first: int,
                   offset: SourceOffset) -> bool:
        """The rows event from row `first` on, for a worker; False when it is not taken (its rows then go
        through `row_change`)."""
        ...

    def settled_last_row(self, current: int) -> int:
        """Once the workers answered every rows event handed to them: the last row index they held (`current`
        when none had rows)."""
        ...


@runtime_checkable
class TableMapCheck(Protocol):
    """An emitter that verifies each TABLE_MAP against the schema (connector/schema/table_map_check.py)."""

    def table_map(self, table_id: TableId, binlog_types: tuple[int, ...], file: str, pos: int) -> None: ...


@runtime_checkable
class ChannelsOwner(Protocol):
    """An emitter that runs threads of its own (the signal channels' poller, connector/signals/processor.py),
    stopped when streaming ends."""

    def stop_channels(self) -> None: ...
