"""Worker processes that turn binlog rows events into Kafka key/value bytes (`encode.workers`).

One Python process handles about one core's worth of row changes, and most of that work needs nothing but
the rows event and its table version: decoding the row images, converting the values, planning the records
(tombstones, key changes) and rendering them. So the connector's process keeps reading the binlog, tracking
positions, offsets and the schema, and producing, and hands whole rows events, still as bytes, to N worker
processes, round robin. A worker answers its batches in the order it got them, so reading the answers round
robin again gives every record back in binlog order (connector/dispatch/pipelined_sender.py keeps that order
up to Kafka).

What crosses the pipe: per rows event its row images as bytes, its table version (a number; the `Table`
definition and the library's TABLE_MAP table go to a worker once each, and the worker builds the same
`TableSchema` and `RowPlan` from them with the same settings), the event's source block and headers; back
come the records' key and value bytes. Rows are rendered by the same code as in one process
(connector/dispatch/row_records.py, `RecordEncoder.encode`), so the bytes are the same.
"""

from __future__ import annotations

import logging
import multiprocessing
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.connection import wait as wait_for
from typing import Any, Callable

from connector.binlog.rows_decoder import RawRows, RowsDecoder
from connector.config.modes import Operation
from connector.config.settings import Settings
from connector.dispatch.encoder import RecordEncoder
from connector.dispatch.row_records import VALUE_FAILURES, event_headers, failed_row, planned_rows, row_values
from connector.errors import BinlogCdcError, SinkError, TerminalError
from connector.events.kinds import DataChange, Tombstone
from connector.events.records import HeaderFormat
from connector.events.source_info import SourceInfo
from connector.events.table_schema import TableSchema, TableSchemaBuilder
from schema_history.model import Table

__all__ = ["EncodePool", "EncodeWorkerLost", "RowsJob"]

log = logging.getLogger(__name__)

# A worker's answer per rows event: (its row count, records), a record being a tuple (row index, "c" change event or "t" tombstone, whether
# it carries the event's offset, key, value, headers or None for the context headers) on the JSON fast path,
# (row index, kind, carries offset, (topic, key, value, headers, partition) or None when a transform dropped it)
# otherwise; or a `Failure`.
Answer = Any


@dataclass(frozen=True)
class RowsJob:
    """A rows event for a worker: rows from `first` on, rendered with the table version `table_key`."""

    table_key: int
    plan_key: int
    topic: str
    columns: int  # the schema history's column count for this version (rows must match it)
    op: str
    # the RawRows without its TABLE_MAP table (sent once per worker, as plan_key)
    data: bytes
    present: int
    present2: int
    kind: str
    errors: str
    source: SourceInfo  # the block of row `first`; the other rows' are copies (SourceInfo.at_row)
    first: int
    ts_ns: int
    context_headers: list[tuple[str, bytes]]
    offset_entries: int | None = None  # of the rows' source offsets (ConnectRecord.offset_entries)


@dataclass(frozen=True)
class Failure:
    """A rows event the worker could not render: the connector's process raises it (same type where it is ours)."""

    error_type: type[BaseException]
    message: str

    def error(self) -> BaseException:
        if issubclass(self.error_type, BinlogCdcError):
            return self.error_type(self.message)
        return EncodeWorkerLost(f"an encode worker failed: {self.error_type.__name__}: {self.message}",
                                fix="report this with the connector log; encode.workers=0 renders in the "
                                    "connector's own process")


class EncodeWorkerLost(SinkError, TerminalError):
    """An encode worker process ended (killed, or out of memory) with records of the connector in it."""


class _Renderer:
    """A worker's state: the table versions and TABLE_MAP tables it was sent, and the run's encoder."""

    def __init__(self, settings: Settings, builder: TableSchemaBuilder, encoder: RecordEncoder) -> None:
        self._builder, self._encoder = builder, encoder
        self._tombstones = settings.events.tombstones_on_delete
        self._header_format = HeaderFormat(settings.kafka.header_format)
        self._decoder = RowsDecoder()
        self.schemas: dict[int, TableSchema] = {}
        self.tables: dict[int, Any] = {}

    def learn(self, tables: list[tuple[int, Table]], maps: list[tuple[int, Any]]) -> None:
        for key, table in tables:
            self.schemas[key] = self._builder.build(table)
        self.tables.update(maps)  # the library's TABLE_MAP tables, pickled as they are (they hold no plan)

    def render(self, job: RowsJob) -> Answer:
        try:
            return self._render(job)
        except Exception as exc:  # answered, not raised: the connector's process raises it, in record order
            return Failure(type(exc), str(exc))

    def _render(self, job: RowsJob) -> tuple[int, list[tuple]]:
        ts = self.schemas[job.table_key]
        rows = self._decoder.decode_raw(RawRows(self.tables[job.plan_key], job.data, job.present, job.present2,
                                                job.kind, job.errors))
        op = Operation(job.op)
        source, topic, ts_ns, context = job.source, job.topic, job.ts_ns, job.context_headers
        encoder, direct = self._encoder, self._encoder.direct
        file, pos = source.file, source.pos
        dotted = f"{source.db}.{source.table}"
        out: list[tuple] = []
        append = out.append
        for index in range(job.first, len(rows)):
            raw_before, raw_after = rows[index]
            before, after = row_values(ts, raw_before, raw_after, job.columns, file, pos, dotted)
            try:
                row_source = source.at_row(index) if index != source.row else source
                for event in planned_rows(ts, op, before, after, self._tombstones):
                    headers = event_headers(ts, event, context, self._header_format)
                    shown = None if len(headers) == len(context) else headers
                    records: list[tuple[str, Any, bool]] = [
                        ("c", DataChange(ts, topic, event.op, event.before, event.after, event.key_of, row_source,
                                         None, ts_ns, headers, job.offset_entries), not event.tombstone)]
                    if event.tombstone:
                        records.append(("t", Tombstone(ts, topic, event.key_of, headers), True))
                    for kind, record, carries in records:
                        rendered = encoder.encode(record)
                        if direct(record.kind):
                            assert rendered is not None
                            append((index, kind, carries, rendered.key, rendered.value, shown))
                        else:
                            append((index, kind, carries, None if rendered is None else (
                                rendered.topic, rendered.key, rendered.value, rendered.headers, rendered.partition)))
            except VALUE_FAILURES as exc:
                raise failed_row(ts, raw_before, raw_after, exc, file, pos) from exc
        return len(rows), out


def serve(conn: Connection, settings: Settings, make_builder: Callable[[Settings], TableSchemaBuilder],
          make_encoder: Callable[[Settings], RecordEncoder]) -> None:
    """A worker process's life: batches in, answers out, until the pipe closes or says None."""
    renderer = _Renderer(settings, make_builder(settings), make_encoder(settings))
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        tables, maps, jobs = message
        renderer.learn(tables, maps)
        conn.send([renderer.render(job) for job in jobs])


@dataclass
class _Worker:
    process: Any
    conn: Connection
    tables: set[int] = field(default_factory=set)  # table version keys it has the definition of
    maps: set[int] = field(default_factory=set)  # TABLE_MAP table keys it has
    in_flight: int = 0


class EncodePool:
    """`workers` processes; `submit` a batch to one, `receive` its answers in the order it got its batches."""

    def __init__(self, settings: Settings, workers: int, *, make_builder: Callable[[Settings], TableSchemaBuilder],
                 make_encoder: Callable[[Settings], RecordEncoder]) -> None:
        # spawn, not fork: the connector's process has threads (librdkafka's, the ack poller) by then
        ctx = multiprocessing.get_context("spawn")
        self._workers: list[_Worker] = []
        for index in range(workers):
            ours, theirs = ctx.Pipe()
            process = ctx.Process(target=serve, args=(theirs, settings, make_builder, make_encoder),
                                  name=f"binlog-cdc-encode-{index}", daemon=True)
            process.start()
            theirs.close()
            self._workers.append(_Worker(process, ours))
        log.info("encode.workers=%d: rows events are decoded and rendered in %d worker process(es) (pids %s)",
                 workers, workers, ", ".join(str(w.process.pid) for w in self._workers))

    @property
    def size(self) -> int:
        return len(self._workers)

    def in_flight(self, worker: int) -> int:
        return self._workers[worker].in_flight

    def submit(self, worker: int, tables: dict[int, Table], maps: dict[int, Any], jobs: list[RowsJob]) -> None:
        w = self._workers[worker]
        new_tables = [(key, table) for key, table in tables.items() if key not in w.tables]
        new_maps = [(key, table) for key, table in maps.items() if key not in w.maps]
        try:
            w.conn.send((new_tables, new_maps, jobs))
        except (BrokenPipeError, EOFError, OSError) as exc:
            raise self._lost(worker, exc) from None
        w.tables.update(key for key, _ in new_tables)
        w.maps.update(key for key, _ in new_maps)
        w.in_flight += 1

    def ready(self, worker: int) -> bool:
        """Whether `worker`'s oldest batch is answered (without waiting)."""
        try:
            return self._workers[worker].conn.poll(0)
        except (EOFError, OSError):
            return True  # receive() reports it

    def wait(self, worker: int, other: Any = None) -> bool:
        """Until `worker`'s oldest batch is answered or `other` (a socket) is readable; True for `other`."""
        conn = self._workers[worker].conn
        try:
            ready = wait_for([conn, other] if other is not None else [conn])
        except (OSError, ValueError):
            return False  # the socket is gone: receive() waits for the worker alone
        return other is not None and other in ready and conn not in ready

    def receive(self, worker: int) -> list[Answer]:
        w = self._workers[worker]
        try:
            answers: list[Answer] = w.conn.recv()
        except (EOFError, OSError) as exc:
            raise self._lost(worker, exc) from None
        w.in_flight -= 1
        return answers

    def _lost(self, worker: int, exc: BaseException) -> EncodeWorkerLost:
        process = self._workers[worker].process
        process.join(timeout=1.0)
        return EncodeWorkerLost(
            f"encode worker {worker} (pid {process.pid}) ended with exit code {process.exitcode} ({exc!r}); the "
            "records it held were not sent",
            fix="restart the connector: it resumes from the last committed offset; if the worker was killed for "
                "memory, lower encode.workers or max.queue.size")

    def close(self) -> None:
        for w in self._workers:
            try:
                w.conn.send(None)
            except OSError:
                pass
        for w in self._workers:
            w.process.join(timeout=5.0)
            if w.process.is_alive():
                w.process.terminate()
                w.process.join(timeout=1.0)
            w.conn.close()
        self._workers = []
