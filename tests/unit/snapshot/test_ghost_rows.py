"""What a consumer holds of a topic, and its rows back as Connect values (snapshot/ghost_rows.py)."""

from __future__ import annotations

import base64
import json

from snapshot.ghost_rows import connect_values, live_keys

ROW_SCHEMA = {"type": "struct", "field": "after", "fields": [
    {"type": "int32", "field": "id"}, {"type": "bytes", "field": "blob"}, {"type": "string", "field": "name"}]}


def record(key: int, op: str, after: dict | None, before: dict | None = None) -> tuple[bytes, bytes]:
    value = {"schema": {"type": "struct", "fields": [{**ROW_SCHEMA, "field": "before"}, ROW_SCHEMA]},
             "payload": {"before": before, "after": after, "op": op}}
    return (json.dumps({"schema": {}, "payload": {"id": key}}).encode(), json.dumps(value).encode())


def test_the_keys_a_consumer_holds_are_those_whose_last_record_is_no_delete_or_tombstone():
    k1, r1 = record(1, "r", {"id": 1, "blob": None, "name": "a"})
    k2, r2 = record(2, "r", {"id": 2, "blob": None, "name": "b"})
    _, d2 = record(2, "d", None, {"id": 2, "blob": None, "name": "b"})
    k3, r3 = record(3, "r", {"id": 3, "blob": None, "name": "c"})
    _, u1 = record(1, "u", {"id": 1, "blob": None, "name": "a2"})
    held = live_keys([(k1, r1), (k2, r2), (k2, d2), (k2, None), (k3, r3), (k3, None), (k1, u1),
                      (None, r1), (b"not json", b"{")])
    assert list(held) == [k1]
    assert held[k1].key == {"id": 1} and held[k1].row["name"] == "a2"


def test_rows_come_back_in_column_order_with_bytes_decoded_and_missing_columns_null():
    row = {"name": "x", "id": 7, "blob": base64.b64encode(b"\x00\x01").decode()}
    assert connect_values(["id", "blob", "name", "excluded"], row, ROW_SCHEMA) == [7, b"\x00\x01", "x", None]
