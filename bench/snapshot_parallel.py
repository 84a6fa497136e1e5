#!/usr/bin/env python3
"""Parallel snapshot (`snapshot.max.threads`): the same multi-table database snapshotted into Kafka with
1 reader and with N readers, back to back on the same server and broker, timed from the connector's start until
its exit (snapshot.mode=initial_only: every record acknowledged). The tables are bench/snapshot.py's 12-column
table, several copies.

    .venv/bin/python bench/snapshot_parallel.py [--tables 4] [--rows-per-table 40000] [--threads 2]

The last line of output is one JSON object: {"rows_per_s_1": ..., "rows_per_s_n": ..., "ratio": ...}
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.conformance.config import write_properties  # noqa: E402
from tests.support.connector_config import connector_properties  # noqa: E402
from tests.support.connector_process import ConnectorProcess  # noqa: E402
from tests.conformance.run import default_connector_cmd  # noqa: E402
from tests.support.servers import MariaDBServer, Profile, TansuBroker  # noqa: E402

# bench/snapshot.py's table and rows (loaded by path: `snapshot` is also our package's name)
_spec = importlib.util.spec_from_file_location("bench_snapshot", Path(__file__).with_name("snapshot.py"))
assert _spec is not None and _spec.loader is not None
single = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(single)


def load(server: MariaDBServer, tables: int, rows: int) -> None:
    parts = ["CREATE DATABASE bench;"]
    for t in range(tables):
        parts.append(single.TABLE.replace("bench.t ", f"bench.t{t} ") + ";")
        for start in range(1, rows + 1, 1000):
            parts.append(f"INSERT INTO bench.t{t} VALUES "
                         + ",".join(single._row(i) for i in range(start, min(start + 1000, rows + 1))) + ";")
        parts.append(f"ANALYZE TABLE bench.t{t};")
    server.run_sql("\n".join(parts), what="bench load")


def snapshot_once(work: Path, server: MariaDBServer, broker: TansuBroker, tables: int, threads: int,
                  expected: int) -> float:
    prefix = f"bench{threads}"
    broker.create_topics([prefix, *(f"{prefix}.bench.t{t}" for t in range(tables))])
    run = work / f"threads-{threads}"
    run.mkdir()
    config = run / "application.properties"
    write_properties(config, connector_properties(run, server, broker, "bench", prefix, server_id=5410 + threads,
                                                  flush_interval_ms=1000, snapshot_mode="initial_only",
                                                  snapshot_max_threads=str(threads)))
    t0 = time.perf_counter()
    proc = ConnectorProcess(list(default_connector_cmd()), config, run / "status.json", run / "connector.log").start()
    last: dict = {}
    while proc._proc is not None and proc._proc.poll() is None:
        last = proc.status() or last
        time.sleep(0.05)
    elapsed = time.perf_counter() - t0
    rc = proc.stop()
    last = proc.status() or last
    if rc != 0 or last.get("records_acked", 0) < expected:
        raise SystemExit(f"threads={threads}: connector rc={rc}, status {last}\n{proc.log_tail()}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--rows-per-table", type=int, default=40_000)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    rows = args.tables * args.rows_per_table
    with tempfile.TemporaryDirectory(prefix="bench-snapshot-parallel-") as tmp:
        work = Path(tmp)
        with MariaDBServer(work / "db", profile=Profile.DEFAULTS) as server, TansuBroker(work / "kafka") as broker:
            t0 = time.perf_counter()
            load(server, args.tables, args.rows_per_table)
            print(f"loaded {args.tables} tables x {args.rows_per_table} rows in {time.perf_counter() - t0:.1f} s",
                  flush=True)
            # + schema records: SET, DROP TABLE per table, DROP/CREATE DATABASE, USE, CREATE per table
            expected = rows + 4 + 2 * args.tables
            seconds = {}
            for threads in (1, args.threads):
                seconds[threads] = snapshot_once(work, server, broker, args.tables, threads, expected)
                print(f"snapshot.max.threads={threads}: {rows} rows in {seconds[threads]:.2f} s = "
                      f"{rows / seconds[threads]:,.0f} rows/s", flush=True)
            one, many = rows / seconds[1], rows / seconds[args.threads]
            print(json.dumps({"rows": rows, "tables": args.tables, "threads": args.threads,
                              "rows_per_s_1": round(one), "rows_per_s_n": round(many),
                              "ratio": round(many / one, 2), "cpus": os.cpu_count()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
