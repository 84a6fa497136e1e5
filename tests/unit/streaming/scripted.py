"""A scripted binlog: events as the reader yields them, through the real streaming handler, dispatcher, offset
tracker, committer and a MemoryOffsetStore, with no server. Records are collected in memory.

Events are python-mysql-replication's own classes (the handler's table is keyed by them), made without a packet:
only the attributes the handler reads are set. Rows bypass the rows decoder (`rows_of`).
"""
from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterator, Mapping

from pymysqlreplication.event import HeartbeatLogEvent, QueryEvent, RotateEvent, XidEvent
from pymysqlreplication.row_event import DeleteRowsEvent, TableMapEvent, UpdateRowsEvent, WriteRowsEvent

from connector.offsets.position import SourceOffset
from connector.binlog.reader import PositionedEvent
from connector.config.loaders import load_server_properties
from connector.config.settings import Settings
from connector.daemon import table_schema_builder
from connector.dispatch.dispatcher import Dispatcher
from connector.config.table_filter import TableFilter
from connector.kafka.writer import OutRecord
from connector.offsets.committer import OffsetCommitter
from connector.offsets.memory_store import MemoryOffsetStore
from connector.offsets.tracker import OffsetTracker
from connector.schema.tracker import SchemaTracker
from connector.streaming.handler import StreamingHandler
from connector.streaming.source import streaming_state
from connector.transforms.config import transform_settings
from schema_history.stores.memory import MemoryHistoryStore

PREFIX = "dbserver1"
SERVER_ID = 223344
TS = 1_700_000_000
CLOCK_NS = 1_700_000_100_000_000_000


def settings(**props: str) -> Settings:
    base = {
        "debezium.sink.type": "kafka",
        "debezium.sink.kafka.producer.bootstrap.servers": "127.0.0.1:1",
        "debezium.source.connector.class": "io.debezium.connector.mysql.MySqlConnector",
        "debezium.source.database.hostname": "db.example",
        "debezium.source.database.user": "debezium",
        "debezium.source.database.password": "x",
        "debezium.source.database.server.id": "5401",
        "debezium.source.topic.prefix": PREFIX,
        "debezium.source.schema.history.internal": "io.debezium.relational.history.MemorySchemaHistory",
    }
    base.update({f"debezium.source.{k}": v for k, v in props.items()})
    return load_server_properties(base).settings(transform_settings)


def _event(cls: type, **attrs: Any) -> Any:
    ev = object.__new__(cls)
    ev.__dict__.update(attrs)
    return ev


class Binlog:
    """Builds a binlog: each event gets its file, start and next position (events are 100 bytes long)."""

    def __init__(self, file: str = "mysql-bin.000001", start: int = 4) -> None:
        self.events: list[PositionedEvent] = []
        self.file, self.pos = file, start
        self._table_ids: dict[str, int] = {}

    def _add(self, event: Any) -> "Binlog":
        self.events.append(PositionedEvent(event, self.file, self.pos, self.pos + 100, TS, SERVER_ID))
        self.pos += 100
        return self

    def ddl(self, sql: str, db: str = "inventory") -> "Binlog":
        return self._add(_event(QueryEvent, query=sql, schema=db.encode(), slave_proxy_id=7))

    def begin(self) -> "Binlog":
        return self._add(_event(QueryEvent, query="BEGIN", schema=b"inventory", slave_proxy_id=7))

    def _table(self, table: str) -> int:
        table_id = self._table_ids.setdefault(table, 100 + len(self._table_ids))
        self._add(_event(TableMapEvent, table_id=table_id, schema="inventory", table=table))
        return table_id

    def _rows(self, cls: type, table: str, rows: list[tuple[list | None, list | None]]) -> "Binlog":
        table_id = self._table(table)
        return self._add(_event(cls, table_id=table_id, schema="inventory", table=table, scripted_rows=rows))

    def insert(self, table: str, *rows: list) -> "Binlog":
        return self._rows(WriteRowsEvent, table, [(None, r) for r in rows])

    def update(self, table: str, *pairs: tuple[list, list]) -> "Binlog":
        return self._rows(UpdateRowsEvent, table, list(pairs))

    def delete(self, table: str, *rows: list) -> "Binlog":
        return self._rows(DeleteRowsEvent, table, [(r, None) for r in rows])

    def commit(self) -> "Binlog":
        return self._add(_event(XidEvent, xid=1))

    def rotate(self, next_file: str) -> "Binlog":
        # A real rotate is the last event of its file; the next file's first event follows its header.
        self.events.append(PositionedEvent(_event(RotateEvent, next_binlog=next_file, position=4), self.file,
                                           self.pos, self.pos + 40, TS, SERVER_ID))
        self.file, self.pos = next_file, 4
        return self

    def absorbing(self) -> "Binlog":
        """This binlog as the reader yields it: a TABLE_MAP that repeats the last one of its table id (none of pmr's
        other events between, here a DDL or a rotate) rides on the next event (`PositionedEvent.absorbed`)."""
        out = Binlog(self.file, self.pos)
        seen: set[int] = set()
        held: PositionedEvent | None = None
        for pe in self.events:
            if type(pe.event) in (QueryEvent, RotateEvent) and pe.event.__dict__.get("query") != "BEGIN":
                seen.clear()
            if type(pe.event) is TableMapEvent:
                if held is None and pe.event.table_id in seen:
                    held = pe
                    continue
                seen.add(pe.event.table_id)
            absorbed = None if held is None else (held.event, held.start, held.next_pos, held.timestamp,
                                                  held.server_id)
            out.events.append(replace(pe, absorbed=absorbed))
            held = None
        return out

    def from_position(self, file: str, pos: int) -> list[PositionedEvent]:
        """What a reader connected at file:pos reads: the events starting there and after."""
        files = list(dict.fromkeys(e.file for e in self.events))
        return [e for e in self.events
                if files.index(e.file) > files.index(file) or (e.file == file and e.start >= pos)]


@dataclass
class Sent:
    record: OutRecord
    offset: Mapping[str, Any] | None

    @property
    def value(self) -> dict[str, Any] | None:
        return None if self.record.value is None else json.loads(self.record.value)

    def summary(self) -> tuple:
        """(topic, op or transaction status, key) — enough to tell records apart in assertions."""
        value = self.value or {}
        payload = value.get("payload", value)
        kind = payload.get("op") or payload.get("status") or ("ddl" if "ddl" in payload else "tombstone")
        return self.record.topic, kind, self.record.key


class RecordingTracker(OffsetTracker):
    """The daemon's tracker, remembering the offset the last record was tracked with (None for a record that
    must not be committed alone, e.g. a delete whose tombstone follows)."""

    last: Mapping[str, Any] | None = None

    def track(self, offset: Mapping[str, Any] | None) -> int:
        self.last = None if offset is None else dict(offset)
        return super().track(offset)


@dataclass
class MemorySink:
    """A RecordSink that acknowledges at once and keeps each record with the offset it was tracked with."""

    tracker: RecordingTracker
    sent: list[Sent] = field(default_factory=list)
    changed: threading.Condition = field(default_factory=threading.Condition)

    def send(self, record: OutRecord, on_ack: Callable[[], None]) -> None:
        with self.changed:
            self.sent.append(Sent(record, self.tracker.last))
            self.changed.notify_all()
        on_ack()

    def wait_for(self, count: int, timeout_s: float = 10.0) -> list[Sent]:
        with self.changed:
            if not self.changed.wait_for(lambda: len(self.sent) >= count, timeout_s):
                raise AssertionError(f"{len(self.sent)} record(s) after {timeout_s} s, expected {count}")
            return list(self.sent)


class Pipeline:
    """Streaming → dispatcher → memory sink, with the offset tracker, committer and store of the daemon."""

    def __init__(self, settings: Settings, history: MemoryHistoryStore, store: MemoryOffsetStore) -> None:
        self.settings = settings
        table_filter = TableFilter(settings.filters)
        self.schema = SchemaTracker(settings, table_filter, history)
        self.tracker = RecordingTracker()
        self.sink = MemorySink(self.tracker)
        self.dispatcher = Dispatcher(settings, self.schema, table_schema_builder(settings), self.sink, self.tracker,
                                     table_filter, clock_ns=lambda: CLOCK_NS)
        self.store = store
        self.committer = OffsetCommitter(self.tracker, store, 0)

    def handler(self, offset: SourceOffset) -> StreamingHandler:
        return StreamingHandler(streaming_state(offset, None), self.dispatcher, use_gtids=False, is_mariadb=False,
                                provide_transaction_metadata=self.settings.events.provide_transaction_metadata,
                                rows_of=lambda ev: ev.scripted_rows)

    def start_offset(self, first: SourceOffset) -> SourceOffset:
        """The stored offset (schema recovered up to it), or `first` on a first start."""
        stored = self.store.load()
        if stored is None:
            return first
        offset = SourceOffset.from_map(stored)
        self.schema.recover(offset.to_map(include_transaction=False))
        return offset

    def stream(self, binlog: Binlog, offset: SourceOffset, stop_after: int | None = None) -> None:
        """Feed what a reader connected at `offset` reads; commit as the daemon does after every event."""
        handler = self.handler(offset)
        for pe in binlog.from_position(offset.file, offset.pos):
            handler.handle(pe)
            self.committer.maybe_commit()
            if stop_after is not None and len(self.sink.sent) >= stop_after:
                return


def heartbeats(token: Any, interval_s: float = 0.01) -> Iterator[PositionedEvent]:
    """What an idle reader yields: server heartbeats, until shutdown."""
    while not token.wait(interval_s):
        yield PositionedEvent(_event(HeartbeatLogEvent), "", 0, 0, 0, 0)
