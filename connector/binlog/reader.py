"""The replication connection: python-mysql-replication for the protocol, our own positions.

It yields the library's event objects together with the binlog coordinates Debezium needs (file,
start position of the event, position of the next event). It decodes nothing more: deciding what
an event means is `streaming.py`'s job.

Library behaviours we deliberately work around (python-mysql-replication.md §4.2):
- B2/B4: its silent reconnect resumes at the last *event* (mid-transaction: rows dropped, or GTID
  duplicates). We turn it off and reconnect from our own transaction-boundary offset instead.
- B3: `is_mariadb=True` ignores file/pos. We connect MariaDB with the MySQL dump command; the library
  always sets `@mariadb_slave_capability=4`, so MariaDB sends its native GTID events, which mark
  transaction starts. Its dump command never asks for ANNOTATE_ROWS events: with include.query
  `_AnnotatingConnection` sets that flag.
- It does not know MySQL's TRANSACTION_PAYLOAD (binlog_transaction_compression=ON) and would skip it: ours
  arrive as `payload.TransactionPayloadEvent`, and its inner events are yielded right before it, with
  `inner=True` and the payload's coordinates (they have no position of their own).
- B11: it re-parses every TABLE_MAP. Ours arrive as `CachedTableMapEvent` (a `TableMapEvent`), parsed
  once per distinct body (`table_map_cache.py`); rows are decoded by `rows_decoder.RowsDecoder`.
- Its event objects cost more than the rest of reading (issue 27). Once connected, the reader reads each
  packet itself (`packet_feed.PacketFeed`) and decodes the events of every transaction (GTID, BEGIN, TABLE_MAP
  of a known body, rows events, XID) on its own (`wire_events.py`); every other packet goes back to pmr, whose
  `fetchone` then reads that packet first. `wire=False` leaves every packet to pmr (the differential tests).
"""

from __future__ import annotations

import logging
import select
import socket
import struct
from dataclasses import dataclass, field
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
from pymysqlreplication.row_event import (DeleteRowsEvent, PartialUpdateRowsEvent, TableMapEvent, UpdateRowsEvent,
                                          WriteRowsEvent)

from connector.binlog import payload, table_map_cache, tagged_gtid
from connector.binlog.payload import PayloadError, TransactionPayloadEvent
from connector.offsets.position import BinlogPosition
from connector.binlog.packet_feed import PacketFeed
from connector.binlog.tagged_gtid import TaggedGtidEvent
from connector.binlog.wire_events import WireDecoder, WireTableMap
from connector.binlog.tls import DatabaseTls, TlsConnection, handshake_failure, login_hint
from connector.errors import ServerSetupError
from connector.binlog.table_map_cache import CachedTableMapEvent, ParsedTableMap, TableMapCache

log = logging.getLogger(__name__)

# See module docstring (B2/B4): errors must reach us so we restart from a transaction boundary.
_binlogstream.MYSQL_EXPECTED_ERROR_CODES = []
table_map_cache.install()
payload.install()
tagged_gtid.install()


def _install_mariadb_dump_length_fix() -> None:
    """B1: the library's MariaDB COM_BINLOG_DUMP (used for GTID connects) declares a payload one byte short,
    so the server leaves a byte unread and ends the dump with a TCP reset that loses in-flight events. The
    packet is rebuilt with its real length (the payload after the 4-byte header)."""
    name = "_BinLogStreamReader__set_mariadb_settings"
    original = getattr(BinLogStreamReader, name)
    if getattr(original, "_length_fixed", False):
        return

    def fixed(self: BinLogStreamReader) -> bytes:
        prelude: bytes = original(self)
        return len(prelude[4:]).to_bytes(4, "little") + prelude[4:]

    fixed._length_fixed = True  # type: ignore[attr-defined]
    setattr(BinLogStreamReader, name, fixed)


_install_mariadb_dump_length_fix()

EVENT_TYPES = [
    QueryEvent, XidEvent, GtidEvent, MariadbGtidEvent, TableMapEvent, CachedTableMapEvent, WriteRowsEvent,
    UpdateRowsEvent, DeleteRowsEvent, RotateEvent, HeartbeatLogEvent, FormatDescriptionEvent, StopEvent,
    RowsQueryLogEvent,
    MariadbAnnotateRowsEvent, XAPrepareEvent, TransactionPayloadEvent, TaggedGtidEvent,
    PartialUpdateRowsEvent,  # binlog_row_value_options=PARTIAL_JSON: UPDATEs Debezium drops (rows_decoder.py)
]
_EVENT_CLASSES = frozenset(EVENT_TYPES)
# COM_BINLOG_DUMP flag BINLOG_SEND_ANNOTATE_ROWS_EVENT: MariaDB sends ANNOTATE_ROWS events only when asked.
_COM_BINLOG_DUMP = 0x12
_SEND_ANNOTATE_ROWS = 0x02


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
    password: str = field(repr=False)
    connect_timeout_s: float = 30.0
    # database.ssl.*: every connection built from these params (binlog, snapshot, control) gets it.
    tls: DatabaseTls = field(default_factory=DatabaseTls)

    def pymysql_kwargs(self) -> dict[str, Any]:
        return {
            "host": self.host,
            "port": self.port,
            "user": self.user,
            "password": self.password,
            "connect_timeout": max(1, int(self.connect_timeout_s)),
            "charset": "utf8mb4",
            **self.tls.pymysql_kwargs(),
        }

    def refusal(self, exc: BaseException) -> ServerSetupError | None:
        """A terminal one-line error when the server refused us for good (TLS handshake, login); None for
        failures a reconnect may heal."""
        refused = handshake_failure(exc, self.host, self.port, self.tls.mode)
        if refused is None and isinstance(exc, pymysql.err.OperationalError) and exc.args and exc.args[0] in (1045, 1698):
            refused = ServerSetupError(f"cannot log in to {self.host}:{self.port} as {self.user!r}: {exc.args[1]}",
                                       fix=f"check database.user/database.password{login_hint(self.tls.mode)}")
        return refused


@dataclass(slots=True)
class PositionedEvent:
    """A library event with its coordinates: `start` is where the event begins, `next_pos` where the next one does."""

    event: Any
    file: str
    start: int
    next_pos: int
    timestamp: int
    server_id: int
    # An event from inside a TRANSACTION_PAYLOAD (compressed transaction): it has no position of its own, so
    # start/next_pos are the payload event's. The payload event itself follows its inner events.
    inner: bool = False
    # Sent by the server for the dump, not read from the binlog at a position (log_pos 0): the file's
    # FORMAT_DESCRIPTION that opens every connection, whose time is when the file was created.
    artificial: bool = False
    # (event, start, next_pos, timestamp, server_id) of a TABLE_MAP just before this event that the reader did not
    # yield because it repeats the last TABLE_MAP of its table id, body for body: the handler counts and checks it
    # before this event (a single-row transaction is one event less to yield and dispatch).
    absorbed: "tuple[Any, int, int, int, int] | None" = None


class _AnnotatingConnection(TlsConnection):
    """A pymysql connection whose COM_BINLOG_DUMP asks MariaDB for ANNOTATE_ROWS events (include.query).

    pmr's dump commands do not ask for them (its MariaDB one only with its own option, which we do not
    use); Debezium's MariaDB connector sets this flag when include.query=true. Packet (MySQL's and
    MariaDB's COM_BINLOG_DUMP alike): 3-byte length, sequence id, command byte, 4-byte position, 2-byte flags."""

    def _write_bytes(self, data: bytes) -> None:
        if len(data) >= 11 and data[4] == _COM_BINLOG_DUMP:
            flags = int.from_bytes(data[9:11], "little") | _SEND_ANNOTATE_ROWS
            data = data[:9] + flags.to_bytes(2, "little") + data[11:]
        super()._write_bytes(data)


class BinlogReader:
    def __init__(self, params: ConnectionParams, server_id: int, start: BinlogPosition,
                 heartbeat_interval_s: float = 1.0, auto_position: str | None = None,
                 annotate_rows: bool = False, is_mariadb: bool = False, session_statement: str | None = None,
                 wire: bool = True, nongraceful: bool = False) -> None:
        self._params = params
        # use.nongraceful.disconnect: close with SO_LINGER 0 (a reset), no COM_QUIT
        self._nongraceful = nongraceful
        self._wire = wire
        # binlog.net.read/write.timeout: a SET run on the connection before it asks for the dump
        self._session_statement = session_statement
        self._annotate_rows = annotate_rows
        self._server_id = server_id
        self._start = start
        # MySQL GTID set of the transactions already done: COM_BINLOG_DUMP_GTID sends every other one, from
        # whichever binlog file holds it (the file/pos are then only the server's own; a failover-safe resume).
        self._auto_position = auto_position or None
        # On MariaDB the GTID position (`d-s-n` per domain) goes in @slave_connect_state; the library's MariaDB
        # dump ignores file/pos (B3), so it is used for GTID connects only.
        self._mariadb_gtid = is_mariadb and self._auto_position is not None
        self._heartbeat_s = heartbeat_interval_s
        self._stream: BinLogStreamReader | None = None
        self._poller: tuple[Any, Any] | None = None  # has_pending's poll object and the socket it watches
        # Parsed TABLE_MAP bodies, kept across rotations and reconnects (the key includes the table id).
        self._parsed_table_maps: dict[bytes, ParsedTableMap] = {}
        self.file = start.file
        self.next_pos = start.pos

    def open(self) -> None:
        settings = self._params.pymysql_kwargs()
        # A read timeout well above the heartbeat interval turns a dead server into an error, not a hang.
        settings["read_timeout"] = max(30, int(self._heartbeat_s * 10))
        if self._session_statement:
            settings["init_command"] = self._session_statement
        self._stream = BinLogStreamReader(
            connection_settings=settings,
            server_id=self._server_id,
            resume_stream=True,
            blocking=True,
            log_file=None if self._auto_position else self._start.file,
            log_pos=None if self._auto_position else self._start.pos,
            auto_position=self._auto_position,
            is_mariadb=self._mariadb_gtid,
            only_events=EVENT_TYPES,
            slave_heartbeat=self._heartbeat_s,
            enable_logging=False,
            pymysql_wrapper=self._params.tls.connection_class(_AnnotatingConnection if self._annotate_rows
                                                              else TlsConnection),
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
        try:
            yield from self._positioned(self._stream)
        except pymysql.err.OperationalError as exc:
            # A refused TLS handshake or login does not heal by reconnecting: stop with the fix instead.
            refused = self._params.refusal(exc)
            if refused is not None:
                raise refused from None
            raise

    def _wire_decoder(self, stream: BinLogStreamReader) -> tuple[PacketFeed, WireDecoder] | None:
        """The feed and decoder of the stream's connection once pmr connected it (None before, or with wire off)."""
        connection = getattr(stream, "_stream_connection", None)
        if not self._wire or connection is None or not getattr(stream, "_BinLogStreamReader__connected_stream", False):
            return None
        return PacketFeed(connection), WireDecoder(bool(stream._BinLogStreamReader__use_checksum),  # type: ignore
                                                   stream._BinLogStreamReader__post_header_lengths)  # type: ignore

    def _positioned(self, stream: BinLogStreamReader) -> Iterator[PositionedEvent]:
        wire: tuple[PacketFeed, WireDecoder] | None = None
        # table id -> the pmr `Table` of its last TABLE_MAP; any other event of pmr's path (a DDL, a rotation) empties it
        seen: dict[int, Any] = {}
        while True:
            # Drop the previous event first: its bytes (a row with a 16 MB BLOB, twice in an update) would
            # otherwise stay alive while the next one is read, next to it.
            event = packet = None
            if wire is not None:
                # Our own events until a packet the decoder leaves to pmr: the file and the table map change only
                # in pmr's path below (a rotation), so they are taken once per run of such events.
                feed, decoder = wire
                next_packet, decode, table_map, file = feed.next, decoder.decode, stream.table_map, self.file
                # A TABLE_MAP that repeats the last one of its table id (a transaction per row change repeats it)
                # rides on the next event instead of being one (`PositionedEvent.absorbed`).
                held: tuple[WireTableMap, int, int, int, int] | None = None
                while True:
                    data = next_packet()
                    decoded = decode(data, table_map)
                    if decoded is None:
                        break
                    event, timestamp, server_id, log_pos = decoded
                    # the header's event size is the packet's length without the OK byte
                    start, self.next_pos = log_pos + 1 - len(data), log_pos
                    data = decoded = None
                    if type(event) is WireTableMap:
                        if held is None and seen.get(event.table_id) is event.table_obj:
                            held, event = (event, start, log_pos, timestamp, server_id), None
                            continue
                        seen[event.table_id] = event.table_obj
                    # by position (inner and artificial False): keywords cost more, and this is every event
                    yield PositionedEvent(event, file, start, log_pos, timestamp, server_id, False, False, held)
                    event = held = None
                feed.give_back(data)
                data = None
                if held is not None:  # the next event takes pmr's path: the TABLE_MAP goes first, as itself
                    event, start, log_pos, timestamp, server_id = held
                    held = None
                    yield PositionedEvent(event, file, start, log_pos, timestamp, server_id)
                    event = None
            event = stream.fetchone()
            if event is None:
                return
            if isinstance(event, TableMapEvent):  # a body seen for the first time: its repeats are ours to read
                seen[event.table_id] = stream.table_map.get(event.table_id)
            else:
                seen.clear()
            if wire is None:
                wire = self._wire_decoder(stream)
            elif type(event) is FormatDescriptionEvent:
                wire[1].declared(stream._BinLogStreamReader__post_header_lengths)  # type: ignore[attr-defined]
            packet = event.packet
            # pmr's packet wrapper and its event refer to each other: cut that cycle, or an event and its bytes
            # stay in memory until the next cyclic GC pass (a run of 16 MB BLOB rows held hundreds of MB).
            packet.event = None
            log_pos = packet.log_pos
            if isinstance(event, RotateEvent):
                if event.timestamp:
                    # A real rotate made the library start a plain dict (table ids may be reused now).
                    stream.table_map = TableMapCache(self._parsed_table_maps)
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
            if type(event) is TransactionPayloadEvent:
                try:
                    for inner in event.events():
                        if type(inner) in _EVENT_CLASSES:  # the stream's own filter (only_events)
                            # The payload's time (the commit), not the statements': Debezium's event time
                            # comes from the events its client delivers, and inner ones are not delivered.
                            yield PositionedEvent(inner, self.file, start, self.next_pos, event.timestamp,
                                                  inner.packet.server_id, inner=True)
                except PayloadError as exc:
                    raise PayloadError(f"{exc} (TRANSACTION_PAYLOAD event at {self.file}:{start}; see it with "
                                       f"mysqlbinlog --start-position={start} {self.file})") from None
            yield PositionedEvent(event, self.file, start, self.next_pos, event.timestamp, packet.server_id,
                                  artificial=not log_pos)

    def socket(self) -> Any:
        """The replication connection's socket (None before open and after close)."""
        return getattr(getattr(self._stream, "_stream_connection", None), "_sock", None)

    def has_pending(self) -> bool:
        """Whether the server has sent bytes not read yet (a zero-timeout poll of the connection; asked after
        every transaction, so the poll object is kept with its socket instead of a select per call)."""
        sock = self.socket()
        if sock is None:
            return False
        poller = self._poller
        try:
            if poller is None or poller[0] is not sock:
                poll = select.poll()
                poll.register(sock, select.POLLIN)
                poller = self._poller = (sock, poll)
            return bool(poller[1].poll(0))
        except (OSError, ValueError):
            return False

    def close(self) -> None:
        if self._stream is not None:
            if self._nongraceful:
                self._reset()
            try:
                self._stream.close()
            except (pymysql.Error, OSError):
                pass
            self._stream = None
            self._poller = None


    def _reset(self) -> None:
        """mysql-binlog-connector-java's PacketChannel.close with shouldUseSoLinger0: SO_LINGER on with a zero
        timeout, input shut down, the socket closed: the kernel sends a reset and drops unsent bytes. The
        connection is then closed under PyMySQL, so the stream's own close sends no COM_QUIT."""
        connection = getattr(self._stream, "_stream_connection", None)
        sock = self.socket()
        if connection is None or sock is None:
            return
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            sock.shutdown(socket.SHUT_RD)
        except OSError:
            pass
        connection._force_close()


def binlog_file_start_time(params: ConnectionParams, server_id: int, file: str) -> float | None:
    """Source time (epoch seconds) of the first event of `file`: its FORMAT_DESCRIPTION event.

    Read over a short non-blocking dump with its own `server_id` (a second dump with the connector's id
    would make the server drop the connector's own)."""
    stream = BinLogStreamReader(
        connection_settings=params.pymysql_kwargs(), server_id=server_id, resume_stream=True, blocking=False,
        log_file=file, log_pos=4, only_events=[FormatDescriptionEvent, RotateEvent], enable_logging=False,
        pymysql_wrapper=params.tls.connection_class())
    try:
        for event in stream:
            if event.timestamp:
                return float(event.timestamp)
        return None
    finally:
        stream.close()
