"""The replication connection: python-mysql-replication for the protocol, our own positions.

It yields the library's event objects together with the binlog coordinates Debezium needs (file,
start position of the event, position of the next event). It decodes nothing more: deciding what
an event means is `streaming.py`'s job.

Library behaviours we deliberately work around (python-mysql-replication.md §4.2):
- B2/B4: its silent reconnect resumes at the last *event* (mid-transaction: rows dropped, or GTID
  duplicates). We turn it off and reconnect from our own transaction-boundary offset instead.
- B3: `is_mariadb=True` ignores file/pos. We connect MariaDB with the MySQL dump command; the library
  always sets `@mariadb_slave_capability=4`, so MariaDB sends its native GTID events, which mark
  transaction starts.
- B11: it re-parses every TABLE_MAP. Ours arrive as `CachedTableMapEvent` (a `TableMapEvent`), parsed
  once per distinct body (`table_map_cache.py`); rows are decoded by `rows_decoder.RowsDecoder`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Iterator

import pymysql
from pymysqlreplication import BinLogStreamReader
from pymysqlreplication import binlogstream as _binlogstream
from pymysqlreplication.event import (
    FormatDescriptionEvent,
    GtidEvent,
    HeartbeatLogEvent,
    MariadbAnnotateRowsEvent,
    MariadbGtidEvent,
    QueryEvent,
    RotateEvent,
    RowsQueryLogEvent,
    StopEvent,
    XAPrepareEvent,
    XidEvent,
)
from pymysqlreplication.row_event import DeleteRowsEvent, TableMapEvent, UpdateRowsEvent, WriteRowsEvent

from connector.binlog import table_map_cache
from connector.binlog.position import BinlogPosition
from connector.binlog.table_map_cache import CachedTableMapEvent, TableMapCache

log = logging.getLogger(__name__)

# See module docstring (B2/B4): errors must reach us so we restart from a transaction boundary.
_binlogstream.MYSQL_EXPECTED_ERROR_CODES = []
table_map_cache.install()

EVENT_TYPES = [
    QueryEvent, XidEvent, GtidEvent, MariadbGtidEvent, TableMapEvent, CachedTableMapEvent, WriteRowsEvent,
    UpdateRowsEvent, DeleteRowsEvent, RotateEvent, HeartbeatLogEvent, FormatDescriptionEvent, StopEvent,
    RowsQueryLogEvent,
    MariadbAnnotateRowsEvent, XAPrepareEvent,
]


_COMMIT_TS_FLAG = 1 << 55


def _original_commit_us(packet: Any) -> int | None:
    """`original_commit_timestamp` (µs) of a MySQL 8+ GTID event, which the library does not decode.

    After `last_committed`/`sequence_number` the body has `immediate_commit_timestamp` (7 bytes, top bit set
    when `original_commit_timestamp` follows, i.e. the transaction was replicated) and then the original one;
    Debezium uses it for `source.ts_ms/us/ns` in GTID mode. None on servers that do not write it."""
    try:
        if packet.bytes_to_read() < 7 + 4:  # the timestamp and the checksum
            return None
        immediate = int.from_bytes(packet.read(7), "little")
        if immediate & _COMMIT_TS_FLAG:
            if packet.bytes_to_read() < 7 + 4:
                return None
            return int.from_bytes(packet.read(7), "little")
        return immediate
    except (AttributeError, IndexError, ValueError):
        return None


@dataclass(frozen=True)
class ConnectionParams:
    host: str
    port: int
    user: str
    password: str
    connect_timeout_s: float = 30.0

    def pymysql_kwargs(self) -> dict[str, Any]:
        return {
            "host": self.host,
            "port": self.port,
            "user": self.user,
            "password": self.password,
            "connect_timeout": max(1, int(self.connect_timeout_s)),
            "charset": "utf8mb4",
        }


@dataclass
class PositionedEvent:
    """A library event with its coordinates: `start` is where the event begins, `next_pos` where the next one does."""

    event: Any
    file: str
    start: int
    next_pos: int
    timestamp: int
    server_id: int


class BinlogReader:
    def __init__(self, params: ConnectionParams, server_id: int, start: BinlogPosition,
                 heartbeat_interval_s: float = 1.0, auto_position: str | None = None) -> None:
        self._params = params
        self._server_id = server_id
        self._start = start
        # MySQL GTID set of the transactions already done: COM_BINLOG_DUMP_GTID sends every other one, from
        # whichever binlog file holds it (the file/pos are then only the server's own; a failover-safe resume).
        self._auto_position = auto_position or None
        self._heartbeat_s = heartbeat_interval_s
        self._stream: BinLogStreamReader | None = None
        # Parsed TABLE_MAP bodies, kept across rotations and reconnects (the key includes the table id).
        self._parsed_table_maps: dict[bytes, dict[str, Any]] = {}
        self.file = start.file
        self.next_pos = start.pos

    def open(self) -> None:
        settings = self._params.pymysql_kwargs()
        # A read timeout well above the heartbeat interval turns a dead server into an error, not a hang.
        settings["read_timeout"] = max(30, int(self._heartbeat_s * 10))
        self._stream = BinLogStreamReader(
            connection_settings=settings,
            server_id=self._server_id,
            resume_stream=True,
            blocking=True,
            log_file=None if self._auto_position else self._start.file,
            log_pos=None if self._auto_position else self._start.pos,
            auto_position=self._auto_position,
            only_events=EVENT_TYPES,
            slave_heartbeat=self._heartbeat_s,
            enable_logging=False,
        )
        self._stream.table_map = TableMapCache(self._parsed_table_maps)
        if self._auto_position:
            log.info("binlog reader connecting after GTIDs %s", self._auto_position)
        else:
            log.info("binlog reader connecting at %s", self._start)

    def events(self) -> Iterator[PositionedEvent]:
        if self._stream is None:
            self.open()
        assert self._stream is not None
        for event in self._stream:
            packet = event.packet
            log_pos = packet.log_pos
            if isinstance(event, RotateEvent):
                if event.timestamp:
                    # A real rotate made the library start a plain dict (table ids may be reused now).
                    self._stream.table_map = TableMapCache(self._parsed_table_maps)
                self.file = event.next_binlog
                self.next_pos = event.position
                yield PositionedEvent(event, self.file, event.position, event.position, event.timestamp,
                                      packet.server_id)
                continue
            if isinstance(event, HeartbeatLogEvent):
                # A heartbeat's log_pos is the end of the binlog the server has sent so far (events the
                # library filtered out, e.g. MariaDB binlog checkpoints, are only visible this way).
                if log_pos and log_pos > self.next_pos:
                    self.next_pos = log_pos
                yield PositionedEvent(event, self.file, self.next_pos, self.next_pos, event.timestamp,
                                      packet.server_id)
                continue
            if type(event) is GtidEvent:
                event.original_commit_us = _original_commit_us(packet)
            # The library's event.event_size excludes the header, so take the header's full length.
            start = log_pos - packet.event_size if log_pos else self.next_pos
            if log_pos:
                self.next_pos = log_pos
            yield PositionedEvent(event, self.file, start, self.next_pos, event.timestamp, packet.server_id)

    def close(self) -> None:
        if self._stream is not None:
            try:
                self._stream.close()
            except (pymysql.Error, OSError):
                pass
            self._stream = None


def binlog_file_start_time(params: ConnectionParams, server_id: int, file: str) -> float | None:
    """Source time (epoch seconds) of the first event of `file`: its FORMAT_DESCRIPTION event.

    Read over a short non-blocking dump with its own `server_id` (a second dump with the connector's id
    would make the server drop the connector's own)."""
    stream = BinLogStreamReader(
        connection_settings=params.pymysql_kwargs(), server_id=server_id, resume_stream=True, blocking=False,
        log_file=file, log_pos=4, only_events=[FormatDescriptionEvent, RotateEvent], enable_logging=False)
    try:
        for event in stream:
            if event.timestamp:
                return float(event.timestamp)
        return None
    finally:
        stream.close()
