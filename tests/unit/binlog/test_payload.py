"""TRANSACTION_PAYLOAD bodies (binlog_transaction_compression) from a real MySQL 9 binlog: the one the
`basic-compressed-mysql` golden was recorded from."""
from __future__ import annotations

from pathlib import Path

import pytest
import zstandard

from connector.binlog.payload import NONE, TRANSACTION_PAYLOAD_EVENT, PayloadError, inner_events, payload_fields

BINLOG = Path(__file__).resolve().parents[2] / "fixtures" / "golden" / "basic-compressed-mysql" / "binlog" / "mysql-bin.000002"
CHECKSUM = 4  # the server's binlog_checksum=CRC32; inner events carry none


def _events(data: bytes):
    pos = 4
    while pos < len(data):
        size = int.from_bytes(data[pos + 9:pos + 13], "little")
        yield pos, data[pos + 4], data[pos + 19:pos + size - CHECKSUM]
        pos += size


def _payloads() -> list[tuple[int, bytes]]:
    return [(pos, body) for pos, kind, body in _events(BINLOG.read_bytes()) if kind == TRANSACTION_PAYLOAD_EVENT]


def test_every_streamed_dml_transaction_is_one_payload():
    # the 10 streamed DML transactions; Debezium's BEGIN offsets in the golden name these same positions
    assert [pos for pos, _ in _payloads()] == [6438, 6770, 7123, 7455, 7979, 8501, 8865, 9422, 9976, 10658]


def test_fields_and_inner_events_of_a_multi_table_transaction():
    body = dict(_payloads())[8865]
    fields, start = payload_fields(body)
    assert fields == {2: 0, 3: 858, 1: len(body) - start}  # zstd, uncompressed size, compressed size
    events = list(inner_events(body[start:], fields[2], fields[3]))
    # BEGIN, then TABLE_MAP + rows per statement (write, write, update, delete), XID
    assert [e[4] for e in events] == [2, 19, 30, 19, 30, 19, 31, 19, 32, 16]
    assert sum(len(e) for e in events) == 858
    assert {int.from_bytes(e[13:17], "little") for e in events} == {0}  # no log_pos inside a payload
    assert events[0][-5:] == b"BEGIN"  # no checksum after the body


def test_uncompressed_payload_and_damage():
    raw = b"".join(inner_events(*_split(dict(_payloads())[8501])))
    assert list(inner_events(raw, NONE, len(raw))) == list(inner_events(*_split(dict(_payloads())[8501])))
    with pytest.raises(PayloadError, match="unknown type 7"):
        list(inner_events(raw, 7))
    with pytest.raises(PayloadError, match="ends inside an event"):
        list(inner_events(raw[:-3], NONE))
    with pytest.raises(PayloadError, match="header says"):
        list(inner_events(raw, NONE, len(raw) + 1))
    with pytest.raises(PayloadError, match="corrupt zstd"):
        list(inner_events(zstandard.ZstdCompressor().compress(raw)[:-8] + b"\x00" * 8))


def _split(body: bytes) -> tuple[bytes, int, int]:
    fields, start = payload_fields(body)
    return body[start:], fields[2], fields[3]
