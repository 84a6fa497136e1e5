#!/usr/bin/env python3
"""Initial snapshot throughput: a 300k-row, 12-column mixed-type table snapshotted through the CLI
into Kafka, timed from the connector's start until Kafka acknowledged the last snapshot record.
In the same run, the baseline: a plain PyMySQL SSCursor reading the same table (no conversion,
no serialization, no Kafka). Real Debezium 3.6.3 reads about 18.8k rows/s on this kind of machine.

    .venv/bin/python bench/snapshot.py [--rows 300000] [--profile]

`--profile` runs the connector under cProfile (much slower) and prints the top functions.
The last line of output is one JSON object: {"rows_per_s": ..., "sscursor_rows_per_s": ..., ...}
"""
from __future__ import annotations

import argparse
import json
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pymysql  # noqa: E402
import pymysql.cursors  # noqa: E402

from tests.conformance.config import write_properties  # noqa: E402
from tests.conformance.connector_process import ConnectorProcess  # noqa: E402
from tests.conformance.run import default_connector_cmd  # noqa: E402
from tests.support.servers import MariaDBServer, Profile, TansuBroker  # noqa: E402

TABLE = """CREATE TABLE bench.t (
  id BIGINT NOT NULL PRIMARY KEY, n INT NOT NULL, name VARCHAR(64), amount DECIMAL(12,2), created DATETIME(6),
  updated TIMESTAMP NULL DEFAULT NULL, doc JSON, body TEXT, state ENUM('new','paid','shipped','void'),
  score DOUBLE, active TINYINT(1), payload BLOB
)"""


def _row(i: int) -> str:
    return (f"({i},{i * 7 % 100000},'name-{i}',{i % 99999}.{i % 100:02d},"
            f"'2024-01-{i % 28 + 1:02d} 12:{i % 60:02d}:00.{i % 1000000:06d}',"
            f"{'NULL' if i % 5 == 0 else repr(f'2024-02-{i % 28 + 1:02d} 01:02:03')},"
            f"'{{\"k\": {i}, \"tags\": [\"a\", \"b\"]}}',"
            f"'body text for row {i} with some more words','{('new', 'paid', 'shipped', 'void')[i % 4]}',"
            f"{i / 7:.6f},{i % 2},X'{i:016x}')")


def load(server: MariaDBServer, rows: int) -> None:
    parts = ["CREATE DATABASE bench;", TABLE + ";"]
    for start in range(1, rows + 1, 1000):
        parts.append("INSERT INTO bench.t VALUES " + ",".join(_row(i) for i in range(start, min(start + 1000, rows + 1)))
                     + ";")
    parts.append("ANALYZE TABLE bench.t;")
    server.run_sql("\n".join(parts), what="bench load")


def sscursor_rate(server: MariaDBServer) -> tuple[int, float]:
    conn = pymysql.connect(host="127.0.0.1", port=server.port, user=server.user, password=server.password)
    try:
        t0 = time.perf_counter()
        with conn.cursor(pymysql.cursors.SSCursor) as cur:
            cur.execute("SELECT * FROM bench.t")
            n = sum(1 for _ in cur)
        return n, time.perf_counter() - t0
    finally:
        conn.close()


def _rss_kb(pid: int | None) -> int:
    """Resident set size of the connector process (sampled; its peak is the number that matters)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=300_000)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-snapshot-") as tmp:
        work = Path(tmp)
        with MariaDBServer(work / "db", profile=Profile.DEFAULTS) as server, TansuBroker(work / "kafka") as broker:
            t0 = time.perf_counter()
            load(server, args.rows)
            print(f"loaded {args.rows} rows in {time.perf_counter() - t0:.1f} s", flush=True)
            n, base_s = sscursor_rate(server)
            base_rate = n / base_s
            print(f"baseline: PyMySQL SSCursor read {n} rows in {base_s:.2f} s = {base_rate:,.0f} rows/s", flush=True)

            prefix = "bench"
            broker.create_topics([f"{prefix}.bench.t", prefix])
            config = work / "application.properties"
            write_properties(config, {
                "debezium.sink.type": "kafka",
                "debezium.sink.kafka.producer.bootstrap.servers": broker.bootstrap_servers,
                "debezium.source.database.hostname": "127.0.0.1",
                "debezium.source.database.port": str(server.port),
                "debezium.source.database.user": server.user,
                "debezium.source.database.password": server.password,
                "debezium.source.database.server.id": "5403",
                "debezium.source.topic.prefix": prefix,
                "debezium.source.database.include.list": "bench",
                "debezium.source.snapshot.mode": "initial_only",
                "debezium.source.offset.storage.file.filename": str(work / "offsets.dat"),
                "debezium.source.offset.flush.interval.ms": "1000",
                "debezium.source.schema.history.internal": "io.debezium.storage.file.history.FileSchemaHistory",
                "debezium.source.schema.history.internal.file.filename": str(work / "history.jsonl"),
            })
            cmd = list(default_connector_cmd())
            prof = Path(os.environ.get("BENCH_SNAPSHOT_PROF", work / "snapshot.prof"))
            if args.profile:
                cmd = [sys.executable, "-m", "cProfile", "-o", str(prof), "-m", "connector.cli"]
            expected = args.rows + 6  # + schema change records (SET, DROP TABLE, DROP/CREATE DATABASE, USE, CREATE)
            t0 = time.perf_counter()
            proc = ConnectorProcess(cmd, config, work / "status.json", work / "connector.log").start()
            last: dict = {}
            peak_kb = 0
            while proc._proc is not None and proc._proc.poll() is None:
                last = proc.status() or last
                peak_kb = max(peak_kb, _rss_kb(proc.pid))
                time.sleep(0.02)
            elapsed = time.perf_counter() - t0
            rc = proc.stop()
            last = proc.status() or last
            if rc != 0 or last.get("records_acked", 0) < expected:
                raise SystemExit(f"connector rc={rc}, status {last}\n{proc.log_tail()}")
            rate = args.rows / elapsed
            peak_mb = peak_kb / 1024
            snap = last.get("snapshot") or {}
            print(f"binlog-cdc: {args.rows} rows snapshotted to Kafka (all acknowledged) in {elapsed:.2f} s = "
                  f"{rate:,.0f} rows/s ({rate / base_rate:.2f}x the bare SSCursor read; Debezium 3.6.3 ~18.8k rows/s)",
                  flush=True)
            print(f"connector peak RSS {peak_mb:.0f} MB (streamed result set: flat in the table size)", flush=True)
            if args.profile and prof.exists():
                pstats.Stats(str(prof)).sort_stats("tottime").print_stats(25)
            print(json.dumps({
                "rows_per_s": round(rate),
                "sscursor_rows_per_s": round(base_rate),
                "ratio_vs_sscursor": round(rate / base_rate, 2),
                "vs_debezium_18_8k": round(rate / 18800, 2),
                "rows": args.rows,
                "seconds": round(elapsed, 2),
                "connector_peak_rss_mb": round(peak_mb),
                "snapshot_metrics": snap,
                "cpus": os.cpu_count(),
            }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
