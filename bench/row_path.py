#!/usr/bin/env python3
"""CPU per row change of the connector's own row path, in one process, without servers: decoded rows events of
bench/streaming.py's 12-column table through the streaming handler, the dispatcher and the sender into a sink that
acknowledges at once (the offset tracker does its real work; librdkafka and the binlog read are not measured).

    .venv/bin/python bench/row_path.py [--rows 60000] [--repeat 5] [--profile]

Runs the general path (BINLOG_CDC_FUSED_ROWS=0) and the fused one alternately, `--repeat` times each, and prints
the best CPU µs per row change of each (process CPU time, so a loaded machine inflates both alike). Workload as
bench/streaming.py's: 2/3 inserts in rows events of `--event-rows` rows, 1/5 single-row updates, the rest
single-row deletes (with their tombstones), each single-row change its own transaction.
"""
from __future__ import annotations

import argparse
import cProfile
import datetime
import json
import os
import pstats
import sys
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.replay import AckingSink  # noqa: E402
from connector.offsets.position import SourceOffset  # noqa: E402
from connector.dispatch.dispatcher import Dispatcher, FusedRowsMode  # noqa: E402
from connector.config.table_filter import TableFilter  # noqa: E402
from connector.daemon import table_schema_builder  # noqa: E402
from connector.offsets.tracker import OffsetTracker  # noqa: E402
from connector.schema.tracker import SchemaTracker  # noqa: E402
from connector.streaming.handler import StreamingHandler  # noqa: E402
from connector.streaming.source import streaming_state  # noqa: E402
from schema_history.stores.memory import MemoryHistoryStore  # noqa: E402
from tests.unit.streaming.scripted import Binlog, settings  # noqa: E402

TABLE = """CREATE TABLE events (id BIGINT NOT NULL PRIMARY KEY, account INT NOT NULL, name VARCHAR(64) NOT NULL,
  amount DECIMAL(12,2) NOT NULL, created DATETIME(6) NOT NULL, updated TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  attrs JSON, note TEXT, state ENUM('new','open','closed') NOT NULL, score DOUBLE, flag TINYINT(1) NOT NULL,
  payload BLOB)"""


def row(i: int) -> list[Any]:
    """Row i as the rows decoder gives it (connector/binlog/value_decoders.py's value types)."""
    return [i, 1000 + i % 997, f"name-{i}", Decimal(f"{i % 100000}.{i % 100:02d}"),
            datetime.datetime(2024, 1, 1 + i % 28, 12, i % 60, i % 60, i % 10 ** 6),
            datetime.datetime(2024, 2, 1 + i % 28, 10), f'{{"k":{i},"tags":["a","b"]}}',
            f"note {i} {'x' * (i % 50)}", 1 + i % 3, (i % 1000) / 997, i % 2, (i % 65536).to_bytes(2, "big") + b"\xde\xad"]


def workload(rows: int, event_rows: int) -> Binlog:
    binlog = Binlog()
    binlog.ddl(TABLE)
    inserts = rows * 2 // 3
    updates = rows // 5
    for start in range(1, inserts + 1, event_rows):
        binlog.begin().insert("events", *(row(i) for i in range(start, min(start + event_rows, inserts + 1))))
        binlog.commit()
    for n in range(updates):
        i = 1 + (n * 7919) % inserts
        after = row(i)
        after[3] += 1
        after[7] = f"updated {n}"
        binlog.begin().update("events", (row(i), after)).commit()
    for n in range(rows - inserts - updates):
        binlog.begin().delete("events", row(inserts - n)).commit()
    return binlog


def run(binlog: Binlog, mode: FusedRowsMode, profile: cProfile.Profile | None) -> tuple[float, int]:
    s = settings()
    table_filter = TableFilter(s.filters)
    sink = AckingSink()
    dispatcher = Dispatcher(s, SchemaTracker(s, table_filter, MemoryHistoryStore()), table_schema_builder(s), sink,
                            OffsetTracker(), table_filter, fused_mode=mode)
    handler = StreamingHandler(streaming_state(SourceOffset("mysql-bin.000001", 4), None), dispatcher,
                               use_gtids=False, is_mariadb=False, provide_transaction_metadata=False,
                               rows_of=lambda ev: ev.scripted_rows)
    events = binlog.events
    handler.handle(events[0])  # the DDL
    cpu = time.process_time()
    if profile is not None:
        profile.enable()
    for pe in events[1:]:
        handler.handle(pe)
    dispatcher.drain()  # small groups are held back (connector/dispatch/sender.py): what is left goes now
    if profile is not None:
        profile.disable()
    return time.process_time() - cpu, sink.records


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=60_000)
    parser.add_argument("--event-rows", type=int, default=30, help="rows per insert rows event (an 8 KB event holds "
                        "about 30 of the table's rows)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--profile", action="store_true", help="profile the fused runs (cProfile, top functions)")
    args = parser.parse_args()
    binlog = workload(args.rows, args.event_rows)
    best: dict[str, float] = {}
    records: dict[str, int] = {}
    profile = cProfile.Profile() if args.profile else None
    for _ in range(args.repeat):
        for mode in (FusedRowsMode.OFF, FusedRowsMode.ON):
            cpu, records[mode.name] = run(binlog, mode, profile if mode is FusedRowsMode.ON else None)
            best[mode.name] = min(best.get(mode.name, cpu), cpu)
    assert records["OFF"] == records["ON"], records
    out = {f"{name.lower()}_us_per_row_change": round(cpu / args.rows * 1e6, 1) for name, cpu in best.items()}
    out.update(rows=args.rows, records=records["ON"], speedup=round(best["OFF"] / best["ON"], 2),
               load_avg_1m=os.getloadavg()[0])
    if profile is not None:
        pstats.Stats(profile).sort_stats("tottime").print_stats(15)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
