"""Rows holding BLOB-sized values are written straight into bytes (connector/serde/big_bytes.py): the same bytes as
the one-str path, for every field kind around them, chunk boundaries, nulls, defaults, filters and schemas off."""

from __future__ import annotations

import base64
import json
from dataclasses import replace
from decimal import Decimal

import pytest

from connector.config.modes import Operation
from connector.events.envelope import TxBlock
from connector.events.source_info import SourceInfo
from connector.events.table_schema import TableSchema, TableSchemaBuilder
from connector.serde import big_bytes
from connector.serde.big_bytes import BigBytesRows
from schema_history.model import Column, Table, TableId

TABLE = Table(
    TableId("db", "blobs"),
    (Column("id", 1, 4, "INT", "INT", optional=False),
     Column("data", 2, 2004, "LONGBLOB", "LONGBLOB"),
     Column("name", 3, 12, "VARCHAR", "VARCHAR", length=64),
     Column("code", 4, -3, "VARBINARY", "VARBINARY", length=8, has_default_value=True,
            default_value_expression="ab"),
     Column("price", 5, 3, "DECIMAL", "DECIMAL", length=10, scale=2),
     Column("note", 6, 2004, "BLOB", "BLOB", optional=False)),
    primary_key_column_names=("id",),
)
SOURCE = SourceInfo(name="p", db="db", table="blobs", file="bin.000001", pos=4)


def _pair(ts: TableSchema) -> tuple[TableSchema, TableSchema]:
    """The table schema forced onto the big path for every BYTES value, and one never taking it."""
    return replace(ts, _big_rows=BigBytesRows(ts.value_schema, threshold=0)), replace(ts, _big_rows=None)


ROW_SIZES = [0, 1, 2, 3, 4, big_bytes._CHUNK - 1, big_bytes._CHUNK, big_bytes._CHUNK + 1, 2 * big_bytes._CHUNK + 2]


@pytest.mark.parametrize("schemas", [True, False])
@pytest.mark.parametrize("size", ROW_SIZES)
def test_big_path_writes_the_same_bytes_as_the_str_path(schemas: bool, size: int) -> None:
    ts = TableSchemaBuilder("p", schemas_enable=schemas).build(TABLE)
    big, plain = _pair(ts)
    blob = bytes(range(256)) * (size // 256) + bytes(range(size % 256))
    before = ts.convert_binlog_row([1, blob, "é\"\\ü", None, Decimal("12.50"), b"n"])
    after = ts.convert_binlog_row([1, bytearray(blob), None, b"\x00\xff", None, blob[:7]])
    tx = TxBlock("tx-1", 3, 2)
    for op, b, a, t in [(Operation.UPDATE, before, after, tx), (Operation.CREATE, None, after, None),
                        (Operation.DELETE, before, None, None)]:
        expected = plain.value_bytes(op, b, a, SOURCE, t, 1_700_000_000_123_456_789)
        assert big.value_bytes(op, b, a, SOURCE, t, 1_700_000_000_123_456_789) == expected
    payload = json.loads(expected)["payload"] if schemas else json.loads(expected)
    assert base64.b64decode(payload["before"]["data"]) == blob


def test_only_values_at_the_threshold_take_the_big_path_and_shared_values_stay_shared() -> None:
    ts = TableSchemaBuilder("p").build(TABLE)
    assert ts._big_rows is not None and ts._big_rows.indexes == (1, 3, 5)  # DECIMAL (bytes) is no BLOB
    rows = BigBytesRows(ts.value_schema, threshold=10)
    assert not rows.holds_big([1, b"x" * 9, None, None, None, b""]) and not rows.holds_big(None)
    assert rows.holds_big([1, None, None, None, None, b"x" * 10])
    # The after image may share the before's BLOB object (rows_decoder for an unchanged BLOB): still written twice.
    blob = b"\x01\x02\x03" * 5
    row = ts.convert_binlog_row([1, blob, None, None, None, b""])
    big, plain = _pair(ts)
    assert big.value_bytes(Operation.UPDATE, row, list(row), SOURCE, None, 0) == \
        plain.value_bytes(Operation.UPDATE, row, list(row), SOURCE, None, 0)


def test_filtered_and_blobless_tables() -> None:
    filtered = TableSchemaBuilder("p", column_filter=lambda tid, name: name != "data").build(TABLE)
    big, plain = _pair(filtered)
    row = filtered.convert_binlog_row([7, b"z" * 100, "n", b"c", Decimal("1.00"), b"q"])
    assert big.value_bytes(Operation.CREATE, None, row, SOURCE, None, 5) == \
        plain.value_bytes(Operation.CREATE, None, row, SOURCE, None, 5)
    no_blobs = Table(TableId("db", "t"), (Column("id", 1, 4, "INT", "INT", optional=False),), ("id",))
    assert TableSchemaBuilder("p").build(no_blobs)._big_rows is None  # no per-row check at all


def test_a_missing_required_value_fails_as_on_the_str_path() -> None:
    ts = TableSchemaBuilder("p").build(TABLE)
    big, plain = _pair(ts)
    row = [1, b"abc", None, None, None, None]  # note is NOT NULL
    with pytest.raises(ValueError) as on_str:
        plain.value_bytes(Operation.CREATE, None, row, SOURCE, None, 0)
    with pytest.raises(ValueError) as on_big:
        big.value_bytes(Operation.CREATE, None, row, SOURCE, None, 0)
    assert type(on_big.value) is type(on_str.value)
