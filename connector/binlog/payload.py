"""MySQL binlog transaction compression: TRANSACTION_PAYLOAD_EVENT (type 40) → the events inside it.

With `binlog_transaction_compression=ON` (MySQL 8.0.20+) a DML transaction is written as its GTID event
followed by one payload event. The payload's body is a list of (type, length, value) fields, each a
MySQL packed integer, ended by type 0, then the compressed bytes:

    1 = compressed size, 2 = compression type (0 zstd, 255 none), 3 = uncompressed size

Decompressed, it is the transaction's ordinary events back to back (BEGIN query, TABLE_MAP, rows
events, XID, ROWS_QUERY if enabled) with full 19-byte headers, `log_pos` 0 and no checksums
(checked against MySQL 9.7 binlogs). python-mysql-replication 1.0.17 ("pmr") does not know the
event, so it would be skipped silently.

`TransactionPayloadEvent.events()` yields the inner events as the same pmr event classes the stream
builds (through the same packet wrapper, so TABLE_MAPs go through `table_map_cache` and rows events
are decoded by `rows_decoder` from the raw bytes exactly as uncompressed ones). It decompresses as it
goes, one event at a time: a large transaction costs its compressed size plus one event, not its
uncompressed size.

Debezium (`BinlogStreamingChangeEventSource.handleTransactionPayload`) feeds every inner event through
its normal event handling; inner events have no position of their own, so `source.pos` and a restart
`pos` are the payload event's, and `event`/`row` count the inner events as usual (`streaming.py`).
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import zstandard
from pymysql.protocol import MysqlPacket
from pymysqlreplication.event import BinLogEvent
from pymysqlreplication.row_event import TableMapEvent

from connector.errors import BinlogDecodeError

__all__ = ["TRANSACTION_PAYLOAD_EVENT", "PayloadError", "TransactionPayloadEvent", "inner_events", "install",
           "payload_fields"]

TRANSACTION_PAYLOAD_EVENT = 40
_HEADER = 20  # pmr's packet data: 1 OK byte + the 19-byte event header
_EVENT_HEADER = 19

# Field types of the payload header (MySQL binary_log::codecs::binary::Transaction_payload::fields).
_END_MARK = 0
_PAYLOAD_SIZE = 1
_COMPRESSION_TYPE = 2
_UNCOMPRESSED_SIZE = 3
ZSTD = 0
NONE = 255


class PayloadError(BinlogDecodeError):
    """A payload event that cannot be decoded (unknown compression, truncated or corrupt data)."""


def _packed_int(data: bytes | memoryview, pos: int) -> tuple[int, int]:
    first = data[pos]
    if first < 251:
        return first, pos + 1
    size = {252: 2, 253: 3, 254: 8}.get(first)
    if size is None:
        raise PayloadError(f"bad packed integer 0x{first:02x} at payload header offset {pos}")
    return int.from_bytes(data[pos + 1:pos + 1 + size], "little"), pos + 1 + size


def payload_fields(body: bytes | memoryview) -> tuple[dict[int, int], int]:
    """The header fields of a payload body and the offset where the compressed bytes start."""
    fields: dict[int, int] = {}
    pos = 0
    while True:
        kind, pos = _packed_int(body, pos)
        if kind == _END_MARK:
            return fields, pos
        length, pos = _packed_int(body, pos)
        if kind in (_PAYLOAD_SIZE, _COMPRESSION_TYPE, _UNCOMPRESSED_SIZE):
            fields[kind], _ = _packed_int(body, pos)
        pos += length  # unknown fields are skipped by their length, as MySQL's own reader does


def _read_exact(stream: Any, size: int) -> bytes:
    chunks = []
    left = size
    while left:
        chunk = stream.read(left)
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def inner_events(compressed: bytes | memoryview, compression_type: int = ZSTD,
                 uncompressed_size: int = 0) -> Iterator[bytes]:
    """Split a payload into its events (header + body, no checksum), decompressing one event at a time."""
    if compression_type == ZSTD:
        stream: Any = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(compressed))
    elif compression_type == NONE:
        stream = io.BytesIO(compressed)
    else:
        raise PayloadError(f"transaction payload compressed with unknown type {compression_type}")
    total = 0
    try:
        while True:
            header = _read_exact(stream, _EVENT_HEADER)
            if not header:
                break
            size = int.from_bytes(header[9:13], "little")
            if len(header) < _EVENT_HEADER or size < _EVENT_HEADER:
                raise PayloadError(f"corrupt transaction payload: event header at uncompressed offset {total}")
            body = _read_exact(stream, size - _EVENT_HEADER)
            if len(body) != size - _EVENT_HEADER:
                raise PayloadError(f"transaction payload ends inside an event at uncompressed offset {total}")
            total += size
            yield header + body
    except zstandard.ZstdError as exc:
        raise PayloadError(f"corrupt zstd transaction payload: {exc}") from None
    if uncompressed_size and total != uncompressed_size:
        raise PayloadError(f"transaction payload holds {total} bytes, its header says {uncompressed_size}")


class TransactionPayloadEvent(BinLogEvent):
    """A compressed transaction. `events()` yields the pmr events inside it, in order."""

    def __init__(self, from_packet: Any, event_size: int, table_map: Any, ctl_connection: Any, **kwargs: Any) -> None:
        super().__init__(from_packet, event_size, table_map, ctl_connection, **kwargs)
        # The raw body (event_size excludes header and checksum); not read through pmr's slower packet reads.
        body = memoryview(from_packet.packet._data)[_HEADER:_HEADER + event_size]
        fields, start = payload_fields(body)
        self.compression_type = fields.get(_COMPRESSION_TYPE, ZSTD)
        self.payload_size = fields.get(_PAYLOAD_SIZE, len(body) - start)
        self.uncompressed_size = fields.get(_UNCOMPRESSED_SIZE, 0)
        self._compressed = body[start:start + self.payload_size]
        if len(self._compressed) != self.payload_size:
            raise PayloadError(f"transaction payload truncated: {len(self._compressed)} of {self.payload_size} bytes")
        # What pmr's stream passed to this event's packet wrapper: inner events are built the same way.
        self._ctl = ctl_connection
        self._kwargs = kwargs
        self._allowed = getattr(from_packet, "allowed_events", None)

    def raw_events(self) -> Iterator[bytes]:
        """Each inner event's bytes (header + body, no checksum)."""
        return inner_events(self._compressed, self.compression_type, self.uncompressed_size)

    def events(self) -> Iterator[BinLogEvent]:
        """The inner events as pmr events, built like the stream's (TABLE_MAPs registered in `table_map`)."""
        from connector.binlog.table_map_cache import _PacketWrapper  # the stream's own wrapper (see install())

        kw = self._kwargs
        allowed = self._allowed
        for raw in self.raw_events():
            wrapper = _PacketWrapper(
                MysqlPacket(b"\x00" + raw, self._ctl.charset), self.table_map, self._ctl,
                kw.get("mysql_version", (0, 0, 0)), False, allowed,
                kw.get("only_tables"), kw.get("ignored_tables"), kw.get("only_schemas"), kw.get("ignored_schemas"),
                kw.get("freeze_schema", False), kw.get("ignore_decode_errors", False), False,
                kw.get("optional_meta_data", False), kw.get("enable_logging", False),
                kw.get("use_column_name_cache", False), kw.get("post_header_lengths"))
            event = wrapper.event
            if event is None:
                continue  # a type the reader did not ask for
            wrapper.event = None  # no wrapper <-> event cycle: refcounting frees the event once it is handled
            if isinstance(event, TableMapEvent) and event._processed:
                self.table_map[event.table_id] = event.get_table()  # what pmr's stream does for outer ones
            yield event


def install() -> None:
    """Make the stream's packet wrapper (`table_map_cache._PacketWrapper`) build `TransactionPayloadEvent`s for
    readers that ask for them (idempotent)."""
    from connector.binlog import table_map_cache

    table_map_cache._PacketWrapper._CACHED_EVENTS[TRANSACTION_PAYLOAD_EVENT] = TransactionPayloadEvent
