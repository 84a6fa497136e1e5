#!/usr/bin/env python3
"""The dispatcher alone, no servers: row changes (6 inserts, 2 updates, 2 deletes with tombstones in every
10) and snapshot rows of a 7-column table through `Dispatcher` → encoder → an in-memory sink that
acknowledges at once. CPU seconds (best of `--repeat`) per path; the JSON fast path, no transforms.

    .venv/bin/python bench/dispatch.py [--rows 40000] [--repeat 3] [--baseline DIR]

`--baseline DIR` runs the same in a subprocess with the `connector` package of the source tree DIR
(e.g. `git worktree add --detach /tmp/base <commit>`), alternating with this tree. The last line is one
JSON object: {"current": {"stream_s": ..., "snapshot_row_s": ...}, "baseline": {...}, "ratio": {...}}.
"""
from __future__ import annotations

import argparse
from connector.transforms.config import transform_settings
import json
import os
import subprocess
import sys
import time
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DDL = ("CREATE TABLE events (id BIGINT NOT NULL PRIMARY KEY, account INT NOT NULL, name VARCHAR(64) NOT NULL, "
       "amount DECIMAL(12,2) NOT NULL, note TEXT, score DOUBLE, flag TINYINT(1) NOT NULL)")


def measure(rows: int, repeat: int) -> dict[str, float]:
    """Best CPU seconds of `repeat` passes over each path, in this process (imports the `connector` on sys.path)."""
    # The script's own directory comes first on sys.path, and its bench/snapshot.py would shadow the package.
    here = Path(__file__).resolve().parent
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != here]
    from connector.offsets.position import SourceOffset
    from connector.config.loaders import load_server_properties
    from connector.config.modes import Operation
    from connector.daemon import table_schema_builder
    from connector.dispatch.dispatcher import Dispatcher
    from connector.config.table_filter import TableFilter
    from connector.offsets.tracker import OffsetTracker
    from connector.schema.tracker import SchemaTracker
    from connector.events.changes import EventSource, RowChange
    from schema_history.model import TableId
    from schema_history.stores.memory import MemoryHistoryStore

    class Sink:
        def send(self, record: object, on_ack: object) -> None:
            on_ack()  # type: ignore[operator]

    class Positions:
        offset = SourceOffset(file="bin.000001", pos=4)

        def next_event(self, data_collection: str) -> tuple[None, SourceOffset]:
            return None, self.offset

    settings = load_server_properties({
        "debezium.sink.type": "kafka", "debezium.sink.kafka.producer.bootstrap.servers": "127.0.0.1:1",
        "debezium.source.connector.class": "io.debezium.connector.mysql.MySqlConnector",
        "debezium.source.database.hostname": "h", "debezium.source.database.user": "u",
        "debezium.source.database.password": "p", "debezium.source.database.server.id": "1",
        "debezium.source.topic.prefix": "bench",
        "debezium.source.schema.history.internal": "io.debezium.relational.history.MemorySchemaHistory",
    }).settings(transform_settings)
    table_filter = TableFilter(settings.filters)
    schema = SchemaTracker(settings, table_filter, MemoryHistoryStore())
    dispatcher = Dispatcher(settings, schema, table_schema_builder(settings), Sink(), OffsetTracker(), table_filter)
    source = EventSource(ts_ms=1000, db="bench", table="events", server_id=1, gtid=None, file="bin.000001", pos=4,
                         row=0, thread=None)
    dispatcher.ddl(DDL, "bench", source, SourceOffset(file="bin.000001", pos=4))
    table = TableId("bench", "events")
    data = [[i, i * 7, f"name-{i}", Decimal(f"{i}.25"), f"note {i}", i / 7, i % 2] for i in range(rows)]
    changes = [RowChange(table, Operation.CREATE, None, r) if i % 10 < 6 else
               RowChange(table, Operation.UPDATE, r, r) if i % 10 < 8 else
               RowChange(table, Operation.DELETE, r, None) for i, r in enumerate(data)]
    snapshot_offset = SourceOffset(file="bin.000001", pos=4, snapshot="INITIAL")
    best = {"stream_s": float("inf"), "snapshot_row_s": float("inf")}
    for _ in range(repeat):
        t0 = time.process_time()
        positions = Positions()
        # As streaming hands them: one source per rows event, copied per row (trees without at_row: the same one).
        at_row = getattr(source, "at_row", lambda row: source)
        for i, change in enumerate(changes):
            dispatcher.row_change(change, at_row(i % 1000), positions)
        best["stream_s"] = min(best["stream_s"], time.process_time() - t0)
        t0 = time.process_time()
        for r in data:
            dispatcher.snapshot_row(table, tuple(r), source, snapshot_offset)
        best["snapshot_row_s"] = min(best["snapshot_row_s"], time.process_time() - t0)
    return {k: round(v, 3) for k, v in best.items()}


def in_subprocess(tree: Path, rows: int, repeat: int) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(tree)}  # before the venv's editable install: that tree's packages win
    out = subprocess.run([sys.executable, __file__, "--rows", str(rows), "--repeat", str(repeat), "--measure"],
                         env=env, check=True, capture_output=True, text=True, cwd="/")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=40_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--baseline", type=Path, metavar="DIR")
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)  # the child process
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.rows, args.repeat)))
        return 0
    trees = {"current": ROOT, **({"baseline": args.baseline} if args.baseline is not None else {})}
    runs: dict[str, list[dict[str, float]]] = {kind: [] for kind in trees}
    for _ in range(2):  # alternate, so that a change in the machine's load hits both
        for kind, tree in trees.items():
            runs[kind].append(in_subprocess(tree, args.rows, args.repeat))
    out: dict[str, dict[str, float]] = {kind: {k: min(r[k] for r in rs) for k in rs[0]} for kind, rs in runs.items()}
    if "baseline" in out:
        out["ratio"] = {k: round(out["current"][k] / out["baseline"][k], 3) for k in out["current"]}
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
