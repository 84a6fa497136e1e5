"""snapshot/raw_rows.split_row against PyMySQL's own length-coded-string reader, on every length prefix."""
from __future__ import annotations

import pytest
from pymysql.protocol import MysqlPacket

from snapshot.raw_rows import decode, split_row


def _lenenc(value: bytes | None, width: int | None = None) -> bytes:
    if value is None:
        return b"\xfb"
    n = len(value)
    if width is None:
        width = 0 if n < 251 else 2 if n < 1 << 16 else 3 if n < 1 << 24 else 8
    prefix = {0: bytes([n]) if n < 251 else b"", 2: b"\xfc", 3: b"\xfd", 8: b"\xfe"}[width]
    return prefix + (n.to_bytes(width, "little") if width else b"") + value


VALUES = [b"", b"7", None, b"x" * 250, b"y" * 251, None, b"z" * 300, b"w" * 70000, "é€𝄞".encode()]


def test_split_row_matches_pymysql_for_every_length_prefix() -> None:
    data = b"".join(_lenenc(v) for v in VALUES) + _lenenc(b"eight", width=8) + _lenenc(b"three", width=3)
    packet = MysqlPacket(data, "utf8")
    expected = [packet.read_length_coded_string() for _ in range(len(VALUES) + 2)]
    assert split_row(data, len(VALUES) + 2) == expected
    assert expected[-2:] == [b"eight", b"three"]


def test_short_row_stops_like_pymysql() -> None:
    assert split_row(_lenenc(b"1") + _lenenc(b"2"), 3) == [b"1", b"2"]


@pytest.mark.parametrize("raw, decoder, value", [
    (b"42", ("ascii", int), 42),
    (b"caf\xc3\xa9", ("utf8", None), "café"),
    (b"\x00\xff", (None, None), b"\x00\xff"),
    (None, ("ascii", int), None),
])
def test_decode_is_pymysqls_decoding(raw, decoder, value) -> None:
    assert decode(raw, decoder) == value
