"""MySQL 8.3+'s GTID_TAGGED_LOG_EVENT (type 42): the GTID event of a tagged transaction (`SET gtid_next=
'AUTOMATIC:etl'`), whose GTID reads `uuid:etl:4`.

python-mysql-replication 1.0.x does not know the type: it skipped these events, so a tagged transaction
streamed with the previous transaction's GTID (or none) in `source.gtid` and its transaction id. Unlike the
untagged GTID_LOG_EVENT (fixed offsets), its body is written with MySQL's serialization library
(libs/mysql/serialization, libs/mysql/binlog/event/control_events.h `Gtid_event::define_fields`):

    format_version  payload_size  last_non_ignorable_field_id  { field_id value }*

every number a variable-length integer (`read_varlen_uint`), signed ones zig-zag encoded. Field ids: 0 flags,
1 source UUID (16 varlen bytes, no length), 2 gno (signed), 3 tag (varlen length + bytes), 4 last_committed,
5 sequence_number (signed), 6 immediate_commit_timestamp, 7 original_commit_timestamp (absent: the
immediate one), 8 transaction length, 9/10 immediate/original server version, 11 commit group ticket.
A field holding its default value may be left out; fields are in ascending id order.

`install()` registers `TaggedGtidEvent` with the stream's packet wrapper (table_map_cache._PacketWrapper), for
readers that ask for it; streaming treats it as a GtidEvent (its `gtid` carries the tag).
"""

from __future__ import annotations

import uuid as _uuid
from dataclasses import dataclass
from typing import Any

from pymysqlreplication.event import BinLogEvent

from connector.errors import BinlogDecodeError

__all__ = ["GTID_TAGGED_LOG_EVENT", "TaggedGtid", "TaggedGtidEvent", "TaggedGtidError", "TaggedGtidEventError",
           "decode_tagged_gtid", "install"]

GTID_TAGGED_LOG_EVENT = 42
_HEADER = 20  # OK byte + event header, as in rows_decoder

_FLAGS, _SID, _GNO, _TAG, _LAST_COMMITTED, _SEQUENCE_NUMBER = 0, 1, 2, 3, 4, 5
_IMMEDIATE_COMMIT_TS, _ORIGINAL_COMMIT_TS, _TRANSACTION_LENGTH = 6, 7, 8
_IMMEDIATE_SERVER_VERSION, _ORIGINAL_SERVER_VERSION, _COMMIT_GROUP_TICKET = 9, 10, 11
_SIGNED = frozenset({_GNO, _LAST_COMMITTED, _SEQUENCE_NUMBER})


class TaggedGtidError(ValueError):
    """A GTID_TAGGED_LOG_EVENT body that does not decode (truncated, or a field this decoder cannot skip)."""


class TaggedGtidEventError(BinlogDecodeError):
    """The stream's tagged GTID event could not be decoded: the connector stops (a wrong GTID in offsets would
    make a restart skip or repeat transactions)."""


def read_varlen_uint(data: bytes | memoryview, pos: int) -> tuple[int, int]:
    """MySQL serialization's unsigned varlen integer at `pos`: (value, position after it). The first byte's
    count of trailing one bits plus one is the length (1-9 bytes); the value follows those bits, little endian."""
    if pos >= len(data):
        raise TaggedGtidError(f"truncated at byte {pos}")
    first = data[pos]
    size = 1
    while size < 9 and first & (1 << (size - 1)):
        size += 1
    if pos + size > len(data):
        raise TaggedGtidError(f"truncated {size}-byte integer at byte {pos}")
    if size == 1:
        return first >> 1, pos + 1
    rest = int.from_bytes(bytes(data[pos + 1:pos + size]), "little")
    if size == 9:
        return rest, pos + 9  # the first byte is all length bits
    return (first >> size) | (rest << (8 - size)), pos + size


def _zigzag(value: int) -> int:
    return -(value >> 1) - 1 if value & 1 else value >> 1


@dataclass(frozen=True)
class TaggedGtid:
    flags: int
    sid: bytes
    gno: int
    tag: str
    last_committed: int
    sequence_number: int
    immediate_commit_us: int
    original_commit_us: int
    transaction_length: int

    @property
    def gtid(self) -> str:
        return f"{_uuid.UUID(bytes=self.sid)}:{self.tag}:{self.gno}"


def decode_tagged_gtid(body: bytes | memoryview) -> TaggedGtid:
    """Decode an event body (after the 19-byte header, without the checksum)."""
    _version, pos = read_varlen_uint(body, 0)
    payload_size, pos = read_varlen_uint(body, pos)
    last_non_ignorable, pos = read_varlen_uint(body, pos)
    # payload_size counts the whole message from its first byte (the version), itself included.
    end = payload_size
    if payload_size < pos or end > len(body):
        raise TaggedGtidError(f"payload size {payload_size} does not fit the {len(body)}-byte body")
    values: dict[int, Any] = {}
    while pos < end:
        field, pos = read_varlen_uint(body, pos)
        if field == _SID:
            sid = bytearray()
            for _ in range(16):
                byte, pos = read_varlen_uint(body, pos)
                sid.append(byte & 0xFF)
            values[field] = bytes(sid)
        elif field == _TAG:
            length, pos = read_varlen_uint(body, pos)
            if pos + length > end:
                raise TaggedGtidError(f"tag of {length} bytes overruns the payload")
            values[field] = bytes(body[pos:pos + length]).decode("ascii").lower()
            pos += length
        elif field <= _COMMIT_GROUP_TICKET:
            raw, pos = read_varlen_uint(body, pos)
            values[field] = _zigzag(raw) if field in _SIGNED else raw
        elif field <= last_non_ignorable:
            raise TaggedGtidError(f"unknown non-ignorable field {field}")
        else:
            break  # a newer server's optional field: its type is unknown, so nothing after it can be read
    if _SID not in values or _GNO not in values:
        raise TaggedGtidError("no source UUID or transaction number")
    immediate = values.get(_IMMEDIATE_COMMIT_TS, 0)
    return TaggedGtid(flags=values.get(_FLAGS, 0), sid=values[_SID], gno=values[_GNO], tag=values.get(_TAG, ""),
                      last_committed=values.get(_LAST_COMMITTED, 0),
                      sequence_number=values.get(_SEQUENCE_NUMBER, 0), immediate_commit_us=immediate,
                      original_commit_us=values.get(_ORIGINAL_COMMIT_TS, immediate),
                      transaction_length=values.get(_TRANSACTION_LENGTH, 0))


class TaggedGtidEvent(BinLogEvent):
    """A tagged transaction's GTID event, with pmr's GtidEvent attributes (`gtid`, `sid`, `gno`, `commit_flag`,
    `last_committed`, `sequence_number`) plus `tag` and `original_commit_us` (what reader.py reads for GtidEvent)."""

    def __init__(self, from_packet: Any, event_size: int, table_map: Any, ctl_connection: Any, **kwargs: Any) -> None:
        super().__init__(from_packet, event_size, table_map, ctl_connection, **kwargs)
        body = memoryview(from_packet.packet._data)[_HEADER:_HEADER + event_size]
        try:
            decoded = decode_tagged_gtid(body)
        except (TaggedGtidError, UnicodeDecodeError, ValueError) as exc:
            end = getattr(from_packet, "log_pos", 0)
            raise TaggedGtidEventError(
                f"cannot decode a GTID_TAGGED_LOG_EVENT (MySQL 8.3+ tagged GTID) ending at binlog position {end}: "
                f"{exc}", fix="look at the event with mysqlbinlog -v and report it with that output") from None
        self.decoded = decoded
        self.gtid = decoded.gtid
        self.sid = decoded.sid
        self.gno = decoded.gno
        self.tag = decoded.tag
        self.commit_flag = bool(decoded.flags & 1)
        self.last_committed = decoded.last_committed
        self.sequence_number = decoded.sequence_number
        self.original_commit_us = decoded.original_commit_us

    def __repr__(self) -> str:
        return f'<TaggedGtidEvent "{self.gtid}">'


def install() -> None:
    """Make the stream's packet wrapper build `TaggedGtidEvent`s for readers that ask for them, and pmr's GTID
    dump command take tagged sets (idempotent)."""
    from pymysqlreplication import binlogstream

    from connector.binlog import table_map_cache

    table_map_cache._PacketWrapper._CACHED_EVENTS[GTID_TAGGED_LOG_EVENT] = TaggedGtidEvent
    binlogstream.GtidSet = _DumpGtidSet  # type: ignore[attr-defined, misc]


class _DumpGtidSet:
    """What pmr's stream builds from `auto_position` for COM_BINLOG_DUMP_GTID: pmr's own GtidSet rejects tagged
    sets (`uuid:1-6:etl:1-4`), so the connector's GtidSet encodes it (untagged sets: the same bytes as pmr's)."""

    def __init__(self, text: str) -> None:
        from connector.gtids.sets import GtidSet

        self._bytes = GtidSet.parse(text).encoded()

    @property
    def encoded_length(self) -> int:
        return len(self._bytes)

    def encoded(self) -> bytes:
        return self._bytes
