"""Schema history recovery time for a long history, with and without schema checkpoints.

    .venv/bin/python bench/history_recovery.py [DDL_COUNT] [TABLES] [INTERVAL]

Writes a FileSchemaHistory-format file through `SchemaHistory.apply_ddl` (the connector's own path):
TABLES tables of 12 columns, then DDL_COUNT ALTER TABLE statements spread over them (each history
record stores the whole altered table, as Debezium's does). Once with checkpoints off (Debezium's
behaviour) and once with `schema.history.internal.checkpoint.interval=INTERVAL`, it times
`SchemaHistory.recover(offset)` at the last position — reading the file, JSON, building the tables —
and checks both recoveries produce the same schema. Default: 10000 DDL, 100 tables, interval 1000.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from schema_history.history import SchemaHistory  # noqa: E402
from schema_history.settings import SchemaHistorySettings  # noqa: E402
from schema_history.stores.file import FileHistoryStore  # noqa: E402


def position(n: int) -> dict[str, object]:
    return {"file": "mysql-bin.000001", "pos": 1000 + n * 200, "server_id": 1, "ts_sec": 1700000000 + n}


def build(path: Path, ddl_count: int, tables: int, interval: int) -> tuple[dict[str, object], float]:
    history = SchemaHistory(FileHistoryStore(path), "bench", SchemaHistorySettings(checkpoint_interval=interval))
    history.initialize_storage()
    started = time.perf_counter()
    n = 0
    history.apply_ddl("CREATE DATABASE bench", None, position(n))
    for t in range(tables):
        n += 1
        cols = ", ".join(f"c{i} VARCHAR(20) DEFAULT 'x'" for i in range(10))
        history.apply_ddl(f"CREATE TABLE t{t} (id INT PRIMARY KEY, n INT NOT NULL, {cols})", "bench", position(n))
    for k in range(ddl_count):
        n += 1
        t, step = k % tables, k // tables
        stmt = (f"ALTER TABLE t{t} ADD COLUMN x{step} INT DEFAULT {step}" if step % 2 == 0
                else f"ALTER TABLE t{t} DROP COLUMN x{step - 1}")
        history.apply_ddl(stmt, "bench", position(n))
    return position(n), time.perf_counter() - started


def recover(path: Path, offset: dict[str, object], interval: int) -> tuple[float, SchemaHistory]:
    history = SchemaHistory(FileHistoryStore(path), "bench", SchemaHistorySettings(checkpoint_interval=interval))
    started = time.perf_counter()
    history.recover(offset)
    return time.perf_counter() - started, history


def main() -> None:
    ddl_count = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    tables = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    interval = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for label, every in (("without checkpoints", 0), (f"checkpoint every {interval}", interval)):
            path = Path(tmp) / f"history-{every}.jsonl"
            offset, build_s = build(path, ddl_count, tables, every)
            best = min(recover(path, offset, every)[0] for _ in range(3))
            _, history = recover(path, offset, every)
            results[label] = history
            lines = sum(1 for _ in open(path))
            print(f"{label:28s} records={lines:6d} file={path.stat().st_size / 1e6:6.1f} MB "
                  f"write={build_s:6.2f} s  recovery={best * 1000:8.1f} ms")
    a, b = results.values()
    assert {t.id: t for t in a.tables} == {t.id: t for t in b.tables}, "recovered schemas differ"
    print(f"same schema recovered ({len(a.tables)} tables)")


if __name__ == "__main__":
    main()
