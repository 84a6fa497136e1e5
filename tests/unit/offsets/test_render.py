"""Offset and partition-key rendering: Connect's schemaless JsonConverter bytes, HashMap key order."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from connector.offsets import parse_offset, partition_key, render_offset
from connector.offsets.store import OffsetStoreError

DATA = Path(__file__).parent / "data"


def test_partition_key_bytes() -> None:
    assert partition_key("dbz-ref", "dbserver1") == b'["dbz-ref",{"server":"dbserver1"}]'


@pytest.mark.parametrize(
    "keys, expected",
    [
        # debezium-contract.md §d10 observed orders
        (["server_id", "event", "row", "gtids", "pos", "file", "ts_sec"],
         ["ts_sec", "file", "pos", "gtids", "row", "server_id", "event"]),
        (["server_id", "pos", "file", "ts_sec"], ["ts_sec", "file", "pos", "server_id"]),
        (["snapshot", "gtids", "pos", "file", "ts_sec"], ["ts_sec", "file", "pos", "gtids", "snapshot"]),
    ],
)
def test_render_uses_java_hashmap_order(keys: list[str], expected: list[str]) -> None:
    offset = {k: 1 for k in keys}
    assert list(json.loads(render_offset(offset))) == expected


def test_render_reproduces_debezium_offset_value_bytes() -> None:
    expected = json.loads((DATA / "debezium-3.6.3-basic.offsets.json").read_text())[0]["value"]
    raw = (DATA / "debezium-3.6.3-basic.offsets.dat").read_bytes()
    # Already in HashMap order (as callers build it): re-ordering is idempotent.
    assert render_offset(expected) in raw


def test_render_is_compact_utf8() -> None:
    assert render_offset({"gtids": "é"}) == '{"gtids":"é"}'.encode()


def test_parse_keeps_order_and_rejects_garbage() -> None:
    assert list(parse_offset(b'{"b":1,"a":2}', "x")) == ["b", "a"]
    with pytest.raises(OffsetStoreError, match="where"):
        parse_offset(b"[1]", "where")
    with pytest.raises(OffsetStoreError):
        parse_offset(b"{", "where")
