"""wire_events.WireDecoder on hand-built event packets: what it decodes, what it leaves to pmr (None), and the
CRC32 check. The events of real servers are compared with pmr's in tests/integration/binlog/test_rows_decoder.py."""

from __future__ import annotations

import struct
import zlib

import pytest
from pymysqlreplication.constants import BINLOG

from connector.binlog.table_map_cache import TableMapCache
from connector.binlog.wire_events import WireBegin, WireDecoder, WireMariadbGtid, WireMysqlGtid, WireXid
from connector.errors import BinlogDecodeError

SERVER_ID = 7


def packet(event_type: int, body: bytes, log_pos: int = 1000, checksum: bool = True) -> bytes:
    """An event packet as the server sends it: the OK byte, the 19-byte header, the body, the CRC32."""
    size = 19 + len(body) + (4 if checksum else 0)
    event = struct.pack("<IBIIIH", 1_700_000_000, event_type, SERVER_ID, size, log_pos, 0) + body
    if checksum:
        event += zlib.crc32(event).to_bytes(4, "little")
    return b"\x00" + event


def query_body(query: bytes, schema: bytes = b"db", status: bytes = b"\x00\x00\x00\x00\x00\x00\x00") -> bytes:
    return struct.pack("<IIBHH", 42, 0, len(schema), 0, len(status)) + status + schema + b"\x00" + query


def decode(data: bytes, checksum: bool = True) -> object:
    decoded = WireDecoder(checksum).decode(data, TableMapCache())
    return None if decoded is None else decoded[0]


def test_transaction_events() -> None:
    assert decode(packet(BINLOG.XID_EVENT, struct.pack("<Q", 99))) == WireXid(99)
    assert decode(packet(BINLOG.XID_EVENT, struct.pack("<Q", 99), checksum=False), checksum=False) == WireXid(99)
    assert decode(packet(BINLOG.MARIADB_GTID_EVENT, struct.pack("<QIB", 12, 3, 1) + bytes(6))) == \
        WireMariadbGtid("3-7-12", 1)
    assert decode(packet(BINLOG.QUERY_EVENT, query_body(b"BEGIN"))) == WireBegin(42)
    sid = bytes(range(16))
    gtid = b"\x01" + sid + struct.pack("<Q", 5) + b"\x02" + bytes(16) + (1 << 55 | 1).to_bytes(7, "little") + \
        (123).to_bytes(7, "little") + bytes(8)
    assert decode(packet(BINLOG.GTID_LOG_EVENT, gtid)) == \
        WireMysqlGtid("00010203-0405-0607-0809-0a0b0c0d0e0f:5", 123)


@pytest.mark.parametrize("data", [
    packet(BINLOG.QUERY_EVENT, query_body(b"COMMIT")),  # any query but BEGIN: pmr's QueryEvent
    packet(BINLOG.ROTATE_EVENT, struct.pack("<Q", 4) + b"mariadb-bin.000002"),  # other types
    packet(BINLOG.XID_EVENT, struct.pack("<Q", 99), log_pos=0),  # not from the binlog (no position)
    packet(BINLOG.XID_EVENT, struct.pack("<Q", 99))[:-1],  # not one whole event
    packet(BINLOG.WRITE_ROWS_EVENT_V1, bytes(6) + bytes(2) + b"\x01\x01\x00"),  # table id without a TABLE_MAP
    packet(BINLOG.TABLE_MAP_EVENT, bytes(30)),  # a TABLE_MAP body pmr did not parse yet
], ids=["commit", "rotate", "no position", "truncated", "unknown table", "new table map"])
def test_everything_else_is_left_to_pmr(data: bytes) -> None:
    assert decode(data) is None


def test_a_declared_post_header_length_it_does_not_read_leaves_the_type_to_pmr() -> None:
    lengths = bytearray(0xA3)
    lengths[BINLOG.XID_EVENT - 1] = 4
    decoder = WireDecoder(True, bytes(lengths))
    assert decoder.decode(packet(BINLOG.XID_EVENT, struct.pack("<Q", 99)), TableMapCache()) is None
    # 0 declared, 13 read
    assert decoder.decode(packet(BINLOG.QUERY_EVENT, query_body(b"BEGIN")), TableMapCache()) is None


def test_a_damaged_event_stops_the_stream() -> None:
    data = bytearray(packet(BINLOG.XID_EVENT, struct.pack("<Q", 99)))
    data[21] ^= 1
    with pytest.raises(BinlogDecodeError, match="CRC32"):
        decode(bytes(data))


def test_a_large_event_is_checked_in_place_and_a_damaged_one_stops_the_stream() -> None:
    # events of 4 KB and more are checked through a memoryview (no copy), smaller ones through a slice
    data = bytearray(packet(BINLOG.QUERY_EVENT, query_body(b"BEGIN", status=bytes(5000))))
    assert len(data) > 4096
    assert decode(bytes(data)) == WireBegin(42)
    data[4000] ^= 1
    with pytest.raises(BinlogDecodeError, match="CRC32"):
        decode(bytes(data))
