"""Parse each distinct TABLE_MAP body once (python-mysql-replication.md B11).

Every transaction starts with a TABLE_MAP per table, and python-mysql-replication ("pmr") re-parses
it each time: two `Table` objects, optional metadata, charset lookups, ~150 µs, 58% of a single-row
transaction. `freeze_schema=True` avoids that by *dropping* TABLE_MAP events for known table ids,
which breaks ALTER handling and Debezium's per-transaction event counting, so it is not an option.

Instead the reader's `table_map` is a `TableMapCache`: a dict (table id → pmr `Table`, as pmr expects)
that also remembers, per TABLE_MAP body, what pmr parsed from it (`ParsedTableMap`, the fields pmr's
`TableMapEvent` reads from the body). `CachedTableMapEvent` looks its body up there and, on a hit, takes
those fields (including the *same* `Table` object) instead of parsing. The key is the whole body: table id,
names, column types, metadata. An ALTER gives a new table id or new metadata, a reused id after a server
restart carries its own definition, so a different table always misses. The event is still delivered, so offsets count it as before.

`install()` makes pmr's stream reader use a packet wrapper that builds `CachedTableMapEvent` — only
for readers that ask for it in `only_events`; every other reader behaves exactly as stock pmr.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pymysqlreplication import binlogstream as _binlogstream
from pymysqlreplication.column import Column as _PmrColumn
from pymysqlreplication.constants import BINLOG
from pymysqlreplication.event import BinLogEvent
from pymysqlreplication.packet import BinLogPacketWrapper
from pymysqlreplication.row_event import MetadataFieldType, TableMapEvent
from pymysql.protocol import MysqlPacket

from connector.errors import UnsupportedBinlogColumn

__all__ = ["CachedTableMapEvent", "ParsedTableMap", "TableMapCache", "UnsupportedBinlogColumn", "install"]

_HEADER = 20  # OK byte + event header, as in rows_decoder
# MySQL 9 MYSQL_TYPE_VECTOR: pmr 1.0.x does not know it and skips its 1-byte TABLE_MAP metadata (the
# length-prefix size, as for BLOB), which misaligns the rest of the event ("0 is not a valid MetadataFieldType").
FIELD_TYPE_VECTOR = 242
_pmr_parse_column = _PmrColumn._Column__parse_column_definition  # type: ignore[attr-defined]


# MariaDB's COMPRESSED columns (MYSQL_TYPE_VARCHAR_COMPRESSED / BLOB_COMPRESSED): unknown to pmr, whose
# TABLE_MAP parse then misaligns. Debezium 3.6 cannot read them either (mysql-binlog-connector-java fails
# on the unknown type), so they are refused with a message naming the table.
_MARIADB_COMPRESSED = frozenset({140, 141})


def _parse_column_definition(self: Any, column_type: int, packet: Any) -> None:
    if column_type in _MARIADB_COMPRESSED:
        raise UnsupportedBinlogColumn(f"COMPRESSED column (binlog type {column_type})")
    _pmr_parse_column(self, column_type, packet)
    if column_type == FIELD_TYPE_VECTOR:
        self.length_size = packet.read_uint8()


_KNOWN_METADATA = frozenset(m.value for m in MetadataFieldType)


def _length_coded(data: bytes, pos: int) -> tuple[int, int]:
    first = data[pos]
    if first < 251:
        return first, pos + 1
    size = {252: 2, 253: 3, 254: 8}[first]
    return int.from_bytes(data[pos + 1:pos + 1 + size], "little"), pos + 1 + size


def known_metadata_only(tlvs: bytes) -> bytes:
    """The optional-metadata TLVs pmr knows; newer ones (MySQL 9 VECTOR_DIMENSIONALITY = 13) are dropped,
    since pmr raises on an unknown type instead of skipping it. Like pmr, TLVs are read while more than
    a checksum's length remains (the checksum may be there or not); the tail is kept as it is."""
    kept, pos = bytearray(), 0
    while len(tlvs) - pos > BINLOG.BINLOG_CHECKSUM_LEN:
        start = pos
        length, value_at = _length_coded(tlvs, pos + 1)
        pos = value_at + length
        if tlvs[start] in _KNOWN_METADATA:
            kept += tlvs[start:pos]
    return bytes(kept) + tlvs[pos:]


class _BytesPacket(BinLogPacketWrapper):
    """pmr's packet reader over `data` (no event header), for re-running pmr's metadata parser. The base
    constructor reads an event header and builds the event, so this one sets only what pmr's reads use."""

    def __init__(self, data: bytes) -> None:
        self.packet = MysqlPacket(data, "utf8")
        self.read_bytes = 0
        self._BinLogPacketWrapper__data_buffer = b""  # the base's read buffer (name-mangled there)


@dataclass(frozen=True, slots=True)
class ParsedTableMap:
    """What pmr's `TableMapEvent` read from one TABLE_MAP body: every field it sets past the event header and
    its reader's options, with the `Table` it built (the same object for every event with this body)."""

    table_id: int
    flags: int
    schema_length: int
    schema: str
    table_length: int
    table: str
    column_count: int
    columns: list[Any]  # pmr's Columns
    null_bitmask: bytes
    table_obj: Any  # pmr's Table
    optional_metadata: Any

    @classmethod
    def of(cls, event: TableMapEvent) -> "ParsedTableMap":
        return cls(event.table_id, event.flags, event.schema_length, event.schema, event.table_length, event.table,
                   event.column_count, event.columns, event.null_bitmask, event.table_obj, event.optional_metadata)

    def restore(self, event: TableMapEvent) -> None:
        """Give `event` (an identical body, its header read) these fields, as pmr's parse would have."""
        event.table_id, event.flags = self.table_id, self.flags
        event.schema_length, event.schema = self.schema_length, self.schema
        event.table_length, event.table = self.table_length, self.table
        event.column_count, event.columns, event.null_bitmask = self.column_count, self.columns, self.null_bitmask
        event.table_obj, event.optional_metadata = self.table_obj, self.optional_metadata


class TableMapCache(dict):
    """pmr's `table_map` (table id → Table) plus the parsed TABLE_MAP bodies, shared across rotations."""

    def __init__(self, parsed: dict[bytes, ParsedTableMap] | None = None, limit: int = 4096) -> None:
        super().__init__()
        self.parsed: dict[bytes, ParsedTableMap] = {} if parsed is None else parsed
        self.limit = limit


class CachedTableMapEvent(TableMapEvent):
    """A `TableMapEvent` that reuses the parse of an identical earlier TABLE_MAP body."""

    def __init__(self, from_packet: Any, event_size: int, table_map: Any, ctl_connection: Any, **kwargs: Any) -> None:
        if not isinstance(table_map, TableMapCache):
            super().__init__(from_packet, event_size, table_map, ctl_connection, **kwargs)
            return
        key = from_packet.packet._data[_HEADER:_HEADER + event_size]
        state = table_map.parsed.get(key)
        if state is None:
            try:
                super().__init__(from_packet, event_size, table_map, ctl_connection, **kwargs)
            except UnsupportedBinlogColumn as exc:
                raise UnsupportedBinlogColumn(
                    f"table {self.schema}.{self.table} has a MariaDB {exc}, which the binlog decoder cannot "
                    "read (Debezium 3.6 cannot either); remove the COMPRESSED attribute (ALTER TABLE ... MODIFY) "
                    "and restart from a position after that change. Excluding the table does not help: every "
                    "TABLE_MAP in the binlog is parsed") from None
            if not self._processed:  # pmr stopped early (a table or schema filter): nothing to keep
                return
            if len(table_map.parsed) >= table_map.limit:
                table_map.parsed.clear()  # bounded; a miss only costs one normal parse
            table_map.parsed[key] = ParsedTableMap.of(self)
            return
        BinLogEvent.__init__(self, from_packet, event_size, table_map, ctl_connection, **kwargs)
        state.restore(self)
        table_map[self.table_id] = self.table_obj

    def _get_optional_meta_data(self) -> Any:
        rest = self.packet.read(self.packet.bytes_to_read())
        real = self.packet
        self.packet = _BytesPacket(known_metadata_only(rest))
        try:
            return super()._get_optional_meta_data()
        finally:
            self.packet = real


class _PacketWrapper(BinLogPacketWrapper):
    """pmr's packet wrapper, building `CachedTableMapEvent` when the reader allows that class."""

    _CACHED_EVENTS = {**BinLogPacketWrapper._BinLogPacketWrapper__event_map,  # type: ignore[attr-defined]
                      BINLOG.TABLE_MAP_EVENT: CachedTableMapEvent}

    def __init__(self, from_packet: Any, table_map: Any, ctl_connection: Any, mysql_version: Any, use_checksum: Any,
                 allowed_events: Any, *args: Any, **kwargs: Any) -> None:
        self.allowed_events = allowed_events  # payload.TransactionPayloadEvent builds its inner events with them
        if CachedTableMapEvent in allowed_events:
            # Name-mangled class attribute of the base; an instance attribute shadows it for this packet only.
            self._BinLogPacketWrapper__event_map = self._CACHED_EVENTS
        super().__init__(from_packet, table_map, ctl_connection, mysql_version, use_checksum, allowed_events,
                         *args, **kwargs)


def install() -> None:
    """Route pmr's stream reader through `_PacketWrapper` (idempotent; stock behaviour for other readers),
    and teach pmr's TABLE_MAP column parser the VECTOR metadata byte (harmless for every other type)."""
    _binlogstream.BinLogPacketWrapper = _PacketWrapper
    _PmrColumn._Column__parse_column_definition = _parse_column_definition  # type: ignore[attr-defined]
