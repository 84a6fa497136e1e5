"""Micro-benchmark: JsonConverter-exact value bytes vs plain `json.dumps` / `orjson.dumps` of the same dict.

    .venv/bin/python bench/serialize.py [N]

Uses the `basic.sql` golden tables (customers and the 28-column all_types) and their golden payloads;
prints µs per record and the ratio to `json.dumps` (lower is better). Only the serializer is timed:
the row values are already Connect values (no column conversion).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from connector.config.modes import Operation  # noqa: E402
from connector.events.table_schema import TableSchemaBuilder  # noqa: E402
from tests.unit.events.golden import (  # noqa: E402
    load_records,
    payload_row,
    source_from,
    table_for,
    table_versions,
    tx_from,
)


def _timeit(fn, n: int) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, time.perf_counter() - start)
    return best / n * 1e6


def main(n: int) -> None:
    records = load_records("basic")
    versions = table_versions("basic")
    builder = TableSchemaBuilder("dbserver1")
    picks = {"customers (4 cols, op=c)": 28, "all_types (28 cols, op=u)": 62}
    print(f"{'record':28} {'ours µs':>8} {'json.dumps µs':>14} {'orjson µs':>10} {'ours/json':>10}")
    for label, seq in picks.items():
        record = next(r for r in records if r.seq == seq)
        ts = builder.build(table_for(record, versions))
        payload = record.value["payload"]
        fields = ts.value_schema.fields
        before, after = payload_row(fields, payload["before"]), payload_row(fields, payload["after"])
        source, tx, ts_ns, op = source_from(payload), tx_from(payload), payload["ts_ns"], Operation(payload["op"])
        assert ts.value_bytes(op, before, after, source, tx, ts_ns).decode() == record.value_raw
        envelope = json.loads(record.value_raw)  # the same message as a plain dict (schema + payload)

        ours = _timeit(lambda: ts.value_bytes(op, before, after, source, tx, ts_ns), n)
        plain = _timeit(lambda: json.dumps(envelope, separators=(",", ":"), ensure_ascii=False).encode(), n)
        fast = _timeit(lambda: orjson.dumps(envelope), n)
        print(f"{label:28} {ours:8.1f} {plain:14.1f} {fast:10.1f} {ours / plain:10.2f}")


def convert_and_serialize(n: int) -> None:
    """Snapshot path for one all_types row: PyMySQL values (with pymysql_conversions) → value bytes."""
    from decimal import Decimal

    records = load_records("basic")
    record = next(r for r in records if r.seq == 15)
    ts = TableSchemaBuilder("dbserver1").build(table_for(record, table_versions("basic")))
    raw = (3, 7, 7, 1234, 1234, 123456, 123456, 1234567, 1234567, 1234567890123, 1234567890123,
           Decimal("1234.56"), 3.5, 2.25, b"\x02", "ab", "hello", "some text", b"\x01\x02", b"ab\x00\x00",
           "2024-02-29", "12:34:56.789", "2024-02-29 12:34:56.123456", "2024-02-29 12:34:56", 2024,
           "medium", "b", "[1, 2, 3]")
    payload = record.value["payload"]
    source, ts_ns = source_from(payload), payload["ts_ns"]
    assert ts.value_bytes(Operation.READ, None, ts.convert_snapshot_row(raw), source, None, ts_ns).decode() == record.value_raw
    convert = _timeit(lambda: ts.convert_snapshot_row(raw), n)
    both = _timeit(lambda: ts.value_bytes(Operation.READ, None, ts.convert_snapshot_row(raw), source, None, ts_ns), n)
    print(f"all_types snapshot row: convert {convert:.1f} µs, convert + value bytes {both:.1f} µs "
          f"({1e6 / both:,.0f} records/s on one core)")


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    main(count)
    convert_and_serialize(count)
