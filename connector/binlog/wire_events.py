"""The events of every transaction, decoded from the packet bytes without python-mysql-replication's objects.

A single-row transaction is four events (GTID, BEGIN or a MariaDB GTID, TABLE_MAP, rows, XID); pmr builds each
through its packet wrapper and `BinLogEvent.__init__` (a dozen keyword arguments, the server's DBMS asked
again, a `struct.unpack` per field), which was about a fifth of the main thread's time per row change (issue 27).
`WireDecoder.decode` reads what streaming needs of those events straight from the packet (an OK byte, the
19-byte header, the body, the checksum when the server writes one) and answers None for anything else, which
then takes pmr's path (reader.py): every other event type, a TABLE_MAP body not parsed before (pmr parses it
once, table_map_cache.py keeps the parse), a rows event of a table id without its TABLE_MAP, a query other than
BEGIN, a post-header length other than the one this module reads, partial JSON updates.

With checksums on (`binlog_checksum=CRC32`) each event's CRC32 is verified; a mismatch stops the stream
(`BinlogDecodeError`). The events are small slotted classes; streaming's handlers take them beside pmr's.
"""

from __future__ import annotations

import struct
from zlib import crc32 as _crc32
from dataclasses import dataclass
from typing import Any, Callable

from pymysqlreplication.constants import BINLOG
from pymysqlreplication.event import XidEvent

from connector.binlog.table_map_cache import TableMapCache
from connector.errors import BinlogDecodeError

__all__ = ["COMMIT_EVENTS", "WireBegin", "WireDecoder", "WireMariadbGtid", "WireMysqlGtid", "WireRows", "WireTableMap",
           "WireXid"]

_HEADER = struct.Struct("<xIBIIIH")  # OK byte, timestamp, type, server_id, event size, log_pos, flags
_BODY = 20  # the body starts after the OK byte and the header
_U16 = struct.Struct("<H").unpack_from
_U32 = struct.Struct("<I").unpack_from
_U64 = struct.Struct("<Q").unpack_from
_MARIADB_GTID = struct.Struct("<QIB").unpack_from  # sequence number, domain id, flags
_COMMIT_TS_FLAG = 1 << 55
_ROWS_KINDS = {BINLOG.WRITE_ROWS_EVENT_V1: "w", BINLOG.UPDATE_ROWS_EVENT_V1: "u", BINLOG.DELETE_ROWS_EVENT_V1: "d",
               BINLOG.WRITE_ROWS_EVENT_V2: "w", BINLOG.UPDATE_ROWS_EVENT_V2: "u", BINLOG.DELETE_ROWS_EVENT_V2: "d"}
_V2 = frozenset({BINLOG.WRITE_ROWS_EVENT_V2, BINLOG.UPDATE_ROWS_EVENT_V2, BINLOG.DELETE_ROWS_EVENT_V2})
# The post-header length each decoder below reads; a format description declaring another one means pmr's path.
_POST_HEADER = {BINLOG.QUERY_EVENT: 13, BINLOG.XID_EVENT: 0, BINLOG.TABLE_MAP_EVENT: 8,
                BINLOG.GTID_LOG_EVENT: 42, BINLOG.MARIADB_GTID_EVENT: 19,
                **{t: (10 if t in _V2 else 8) for t in _ROWS_KINDS}}


@dataclass(slots=True)
class WireXid:
    """XID_EVENT: an InnoDB transaction committed."""

    xid: int


# A transaction's commit as the reader yields it: pmr's XID event, or this module's.
COMMIT_EVENTS = (XidEvent, WireXid)


@dataclass(slots=True)
class WireMariadbGtid:
    """MARIADB_GTID_EVENT: `domain-server-sequence`, and its flags (FL_STANDALONE: DDL, no XID follows)."""

    gtid: str
    flags: int


@dataclass(slots=True)
class WireMysqlGtid:
    """GTID_LOG_EVENT (untagged): `uuid:gno`, and the original commit time (µs) when the event carries it."""

    gtid: str
    original_commit_us: int | None


@dataclass(slots=True)
class WireBegin:
    """The QUERY_EVENT `BEGIN` that opens a transaction; `slave_proxy_id` is the client's thread id."""

    slave_proxy_id: int


@dataclass(slots=True)
class WireTableMap:
    """TABLE_MAP_EVENT of a body pmr parsed before: the same `Table` object, so the rows decoder's plan is kept."""

    table_id: int
    schema: str
    table: str
    columns: list
    table_obj: Any  # pmr's Table


@dataclass(slots=True)
class WireRows:
    """A WRITE/UPDATE/DELETE rows event (v1 or v2): `data[start:end]` holds the column count, the columns-present
    bitmap(s) and the row images (`rows_decoder` reads them); `table` is pmr's `Table` of its TABLE_MAP."""

    kind: str  # w, u or d
    table_id: int
    schema: str
    table: str
    table_obj: Any
    data: bytes | None  # None once decoded (rows_decoder.release_raw_bytes)
    start: int
    end: int


class WireDecoder:
    """Decodes the events above from packet bytes; `decode` answers None for pmr's path (module docstring)."""

    def __init__(self, use_checksum: bool, post_header_lengths: bytes | None = None) -> None:
        self.use_checksum = use_checksum
        self._sids: dict[bytes, str] = {}
        self.declared(post_header_lengths)

    def declared(self, post_header_lengths: bytes | None) -> None:
        """The event types this decoder reads, given a format description's post-header lengths."""
        types = frozenset(t for t, size in _POST_HEADER.items()
                          if not post_header_lengths or t - 1 >= len(post_header_lengths)
                          or post_header_lengths[t - 1] == size)
        # event type -> its body's decoder (data, event type, end, table map); one lookup per event
        readers: dict[int, Callable[[bytes, int, int, int, TableMapCache], Any]] = {
            BINLOG.XID_EVENT: self._xid, BINLOG.MARIADB_GTID_EVENT: self._mariadb_gtid,
            BINLOG.GTID_LOG_EVENT: self._mysql_gtid, BINLOG.TABLE_MAP_EVENT: self._table_map,
            BINLOG.QUERY_EVENT: self._begin, **{t: self._rows for t in _ROWS_KINDS}}
        self._readers = {t: reader for t, reader in readers.items() if t in types}

    def decode(self, data: bytes, table_map: TableMapCache) -> tuple[Any, int, int, int] | None:
        """(event, timestamp, server_id, log_pos) of an event packet (`data` starts with the OK byte), or None.
        `table_map` is the stream's `TableMapCache`: a TABLE_MAP read here registers its table there, as pmr does."""
        end = len(data)
        if end < _BODY or data[0]:
            return None
        read = self._readers.get(data[5])
        if read is None:
            return None
        timestamp, event_type, server_id, size, log_pos, _ = _HEADER.unpack_from(data)
        if size + 1 != end or not log_pos:
            return None  # not one whole event, or one the server sent from outside the binlog
        if self.use_checksum:
            end -= 4
            if _crc32(data[1:end] if end < 4096 else memoryview(data)[1:end]) != _U32(data, end)[0]:
                raise BinlogDecodeError(f"binlog event of type {event_type} ending at position {log_pos} fails its "
                                        "CRC32 checksum", fix="check the binlog file with mysqlbinlog "
                                        "--verify-binlog-checksum; restart from a position after the damage")
        event = read(data, event_type, server_id, end, table_map)
        return None if event is None else (event, timestamp, server_id, log_pos)

    @staticmethod
    def _xid(data: bytes, event_type: int, server_id: int, end: int, table_map: TableMapCache) -> WireXid | None:
        return WireXid(_U64(data, _BODY)[0]) if end - _BODY >= 8 else None

    @staticmethod
    def _rows(data: bytes, event_type: int, server_id: int, end: int, table_map: TableMapCache) -> WireRows | None:
        table_id = int.from_bytes(data[_BODY:_BODY + 6], "little")
        table = table_map.get(table_id)
        if table is None:
            return None  # pmr drops a rows event whose TABLE_MAP it did not see
        start = _BODY + 8
        if event_type in _V2:
            start += _U16(data, _BODY + 8)[0]  # the extra data, its own 2-byte length included
        if start >= end:
            return None
        return WireRows(_ROWS_KINDS[event_type], table_id, table.schema, table.table, table, data, start, end)

    @staticmethod
    def _mariadb_gtid(data: bytes, event_type: int, server_id: int, end: int,
                      table_map: TableMapCache) -> WireMariadbGtid | None:
        if end - _BODY < 13:
            return None
        sequence, domain, flags = _MARIADB_GTID(data, _BODY)
        return WireMariadbGtid(f"{domain}-{server_id}-{sequence}", flags)

    def _mysql_gtid(self, data: bytes, event_type: int, server_id: int, end: int,
                    table_map: TableMapCache) -> WireMysqlGtid | None:
        if end - _BODY < 42:
            return None
        sid = data[_BODY + 1:_BODY + 17]
        uuid = self._sids.get(sid)
        if uuid is None:
            h = sid.hex()
            uuid = self._sids[sid] = f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}:"
        gno = _U64(data, _BODY + 17)[0]
        # reader._original_commit_us's rule: each 7-byte timestamp needs 7 bytes and a checksum's 4 after it
        commit_us, pos = None, _BODY + 42
        if len(data) - pos >= 11:
            commit_us = int.from_bytes(data[pos:pos + 7], "little")
            if commit_us & _COMMIT_TS_FLAG:
                pos += 7
                commit_us = int.from_bytes(data[pos:pos + 7], "little") if len(data) - pos >= 11 else None
        return WireMysqlGtid(f"{uuid}{gno}", commit_us)

    @staticmethod
    def _table_map(data: bytes, event_type: int, server_id: int, end: int,
                   table_map: TableMapCache) -> WireTableMap | None:
        state = table_map.parsed.get(data[_BODY:end])
        if state is None:
            return None
        event = WireTableMap(state.table_id, state.schema, state.table, state.columns, state.table_obj)
        table_map[event.table_id] = event.table_obj
        return event

    @staticmethod
    def _begin(data: bytes, event_type: int, server_id: int, end: int, table_map: TableMapCache) -> WireBegin | None:
        status_length = _U16(data, _BODY + 11)[0]
        query_at = _BODY + 13 + status_length + data[_BODY + 8] + 1
        if data[query_at:end] != b"BEGIN":
            return None
        return WireBegin(_U32(data, _BODY)[0])
