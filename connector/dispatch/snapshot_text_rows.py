"""One table read's raw text-protocol rows → records (the snapshot's fast path), one row or a group at a time.

A record is built here and only here for the snapshot's raw rows: the table's compiled text encoder
(connector/events/snapshot_text.py) renders key and value, the run's encoder wraps them (`RecordEncoder.rendered`).
`__call__` sends one row with its own offset (the snapshot's first row of a table, its last, the parallel
reader's rows); `group` sends consecutive rows of one batch as one group whose last row carries the offset
(`RecordSender.send_group`): one tracker entry, one delivery callback and no offset map per group instead of
one each per row. The group's offset commits only once Kafka acknowledged every record of it, so "the record
of key K is acknowledged" still means every row up to K is in Kafka (snapshot/resume.py).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from connector.dispatch.sender import DispatchCounters
from connector.events.changes import EventSource
from connector.events.row_errors import row_value_error
from connector.events.snapshot_text import Decoder, RawRow, TextEncoder
from connector.events.table_schema import TableSchema
from connector.kafka.writer import OutRecord
from connector.offsets.position import SourceOffset

__all__ = ["SnapshotTextRows"]


class SnapshotTextRows:
    """`emit(raw, source, offset)` and `emit.group(raws, first_source, source, offset)` for one table read."""

    __slots__ = ("_ts", "_decoders", "_encode", "_to_record", "_send", "_send_group", "_offset_map", "_counters",
                 "_clock_ns", "_release", "_source_json", "_last_source", "_last_json", "_failures")

    def __init__(self, ts: TableSchema, decoders: Sequence[Decoder], encode: TextEncoder,
                 to_record: Callable[[bytes | None, bytes | None], OutRecord], *,
                 send: Callable[[OutRecord, Any], None], send_group: Callable[[Sequence[OutRecord], Any], None] | None,
                 offset_map: Callable[[SourceOffset], dict[str, Any]], counters: DispatchCounters,
                 clock_ns: Callable[[], int], release: Callable[[], None], source_json: Callable[[EventSource], str],
                 failures: tuple[type[BaseException], ...]) -> None:
        self._ts, self._decoders, self._encode, self._to_record = ts, decoders, encode, to_record
        self._send, self._send_group, self._offset_map = send, send_group, offset_map
        self._counters, self._clock_ns, self._release = counters, clock_ns, release
        self._source_json = source_json
        self._failures = failures
        self._last_source: EventSource | None = None  # the source last rendered and its JSON (one per batch clock)
        self._last_json = ""

    def _json(self, source: EventSource) -> str:
        if source is not self._last_source:
            self._last_source, self._last_json = source, self._source_json(source)
        return self._last_json

    def __call__(self, raw: RawRow, source: EventSource, offset: SourceOffset) -> None:
        self._release()
        source_json = self._json(source)
        self._counters.data_events += 1
        try:
            key, value = self._encode(raw, source_json, self._clock_ns())
        except self._failures as exc:
            raise self._error(raw, source, exc) from exc
        self._send(self._to_record(key, value), None if offset is None else self._offset_map(offset))

    def group(self, raws: Sequence[RawRow], first: EventSource, source: EventSource, offset: SourceOffset) -> None:
        """`raws` (consecutive rows of the table, at least one): the first with source `first`, the rest with
        `source`; only the last record carries `offset`."""
        if self._send_group is None:  # encode.workers: the pipelined sender orders single records only
            self(raws[0], first, offset if len(raws) == 1 else None)  # type: ignore[arg-type]
            for raw in raws[1:-1]:
                self(raw, source, None)  # type: ignore[arg-type]
            if len(raws) > 1:
                self(raws[-1], source, offset)
            return
        self._release()
        rest_json = self._json(source)
        first_json = rest_json if first is source else self._source_json(first)
        encode, to_record = self._encode, self._to_record
        now = self._clock_ns()  # one clock read per group: the envelope's ts_* say when the group was rendered
        records = []
        append = records.append
        raw: RawRow = raws[0]
        try:
            append(to_record(*encode(raw, first_json, now)))
            for raw in raws[1:]:
                append(to_record(*encode(raw, rest_json, now)))
        except self._failures as exc:
            raise self._error(raw, first if raw is raws[0] else source, exc) from exc
        self._counters.data_events += len(records)
        self._send_group(records, offset)

    def _error(self, raw: RawRow, source: EventSource, exc: BaseException) -> BaseException:
        return row_value_error(self._ts, raw, "snapshot", exc, source.file, source.pos, decoders=self._decoders)
