#!/usr/bin/env python3
"""Initial snapshot throughput: a 300k-row, 12-column mixed-type table snapshotted through the CLI
into Kafka, timed from the connector's start until Kafka acknowledged the last snapshot record.
In the same run, the baseline: a plain PyMySQL SSCursor reading the same table (no conversion,
no serialization, no Kafka). Real Debezium 3.6.3 reads about 18.8k rows/s on this kind of machine.

    .venv/bin/python bench/snapshot.py [--rows 300000] [--profile] [--baseline DIR] [--repeat N]

`--profile` runs the connector under cProfile (much slower) and prints the top functions.
`BENCH_PYSPY=FILE` instead samples every run with py-spy (100 Hz, not pausing it) into FILE.<run> (`c0` this
tree's first run, `b0` the baseline's); `bench/stages.py FILE.c0 --rows N --main-cpu-s S` then splits the main
thread's CPU (printed per thread) into stages, µs per row.
`--baseline DIR` runs, back to back on the same servers, the connector of another source tree, e.g.
`mkdir /tmp/base && git archive HEAD~1 | tar -x -C /tmp/base`: on a shared machine only such pairs
(and the connector's CPU seconds, also reported) compare; wall-clock rows/s move with the load.
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
from tests.support.connector_config import connector_properties  # noqa: E402
from bench.connector_run import connector_cmd, cpu_s, rss_kb, start_connector, start_pyspy, thread_cpu_s  # noqa: E402
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


def snapshot_once(work: Path, server: MariaDBServer, broker: TansuBroker, rows: int, name: str,
                  root: Path | None = None, profile: bool = False) -> dict:
    """One `initial_only` snapshot of bench.t through the CLI into fresh topics; `root` runs the connector
    package from another source tree (the baseline) instead of this one."""
    run_dir = work / name
    run_dir.mkdir()
    prefix = f"bench{name}"
    broker.create_topics([f"{prefix}.bench.t", prefix])
    config = run_dir / "application.properties"
    write_properties(config, connector_properties(run_dir, server, broker, "bench", prefix, server_id=5403,
                                                  flush_interval_ms=1000, snapshot_mode="initial_only"))
    prof = Path(os.environ.get("BENCH_SNAPSHOT_PROF", run_dir / "snapshot.prof"))
    cmd = connector_cmd(prof if profile else None)
    expected = rows + 6  # + schema change records (SET, DROP TABLE, DROP/CREATE DATABASE, USE, CREATE)
    t0 = time.perf_counter()
    proc = start_connector(cmd, config, run_dir, root)
    spy = start_pyspy(proc.pid, name)  # py-spy stops by itself when the connector exits
    last: dict = {}
    peak_kb, cpu = 0, 0.0
    threads: dict[str, float] = {}
    while proc._proc is not None and proc._proc.poll() is None:
        last = proc.status() or last
        peak_kb = max(peak_kb, rss_kb(proc.pid))
        cpu = cpu_s(proc.pid) or cpu
        threads = thread_cpu_s(proc.pid) or threads
        time.sleep(0.02)
    elapsed = time.perf_counter() - t0
    rc = proc.stop()
    last = proc.status() or last
    if spy is not None:
        spy.wait(60)
    if rc != 0 or last.get("records_acked", 0) < expected:
        raise SystemExit(f"connector rc={rc}, status {last}\n{proc.log_tail()}")
    if profile and prof.exists():
        pstats.Stats(str(prof)).sort_stats("tottime").print_stats(25)
    return {"rows_per_s": rows / elapsed, "seconds": elapsed, "cpu_s": cpu, "peak_mb": peak_kb / 1024,
            "threads": threads, "snapshot": last.get("snapshot") or {}}


def _report_run(name: str, run: dict, rows: int) -> None:
    # every run's CPU, not only the best one's: on a shared machine the pairs are what compare
    print(f"run {name}: {run['seconds']:.2f} s wall, connector CPU {run['cpu_s']:.2f} s "
          f"({run['cpu_s'] / rows * 1e6:.1f} µs per row), CPU seconds per thread {run['threads']}, "
          f"load {os.getloadavg()[0]:.1f}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=300_000)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--baseline", type=Path, metavar="DIR",
                        help="also snapshot with the connector of the source tree DIR (e.g. `git archive` of an "
                             "older commit), alternating with this tree, and report both")
    parser.add_argument("--repeat", type=int, default=1, help="runs per connector (the best one is reported)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-snapshot-") as tmp:
        work = Path(tmp)
        with MariaDBServer(work / "db", profile=Profile.DEFAULTS) as server, TansuBroker(work / "kafka") as broker:
            t0 = time.perf_counter()
            load(server, args.rows)
            print(f"loaded {args.rows} rows in {time.perf_counter() - t0:.1f} s", flush=True)
            n, base_s = sscursor_rate(server)
            base_rate = n / base_s
            print(f"bare read: PyMySQL SSCursor read {n} rows in {base_s:.2f} s = {base_rate:,.0f} rows/s", flush=True)

            runs: dict[str, list[dict]] = {"current": [], "baseline": []}
            for i in range(args.repeat):
                if args.baseline is not None:
                    runs["baseline"].append(snapshot_once(work, server, broker, args.rows, f"b{i}", args.baseline))
                    _report_run(f"b{i}", runs["baseline"][-1], args.rows)
                runs["current"].append(snapshot_once(work, server, broker, args.rows, f"c{i}",
                                                     profile=args.profile))
                _report_run(f"c{i}", runs["current"][-1], args.rows)
            best = {k: max(v, key=lambda r: r["rows_per_s"]) for k, v in runs.items() if v}
            for kind, r in best.items():
                print(f"{kind}: {args.rows} rows snapshotted to Kafka (all acknowledged) in {r['seconds']:.2f} s = "
                      f"{r['rows_per_s']:,.0f} rows/s ({r['rows_per_s'] / base_rate:.2f}x the bare SSCursor read; "
                      f"Debezium 3.6.3 ~18.8k rows/s); connector CPU {r['cpu_s']:.1f} s = "
                      f"{args.rows / max(r['cpu_s'], 1e-9):,.0f} rows per CPU-second "
                      f"({r['cpu_s'] / args.rows * 1e6:.1f} µs per row); peak RSS {r['peak_mb']:.0f} MB; "
                      f"CPU seconds per thread {r['threads']}", flush=True)
            current = best["current"]
            out = {
                "rows_per_s": round(current["rows_per_s"]),
                "sscursor_rows_per_s": round(base_rate),
                "ratio_vs_sscursor": round(current["rows_per_s"] / base_rate, 2),
                "vs_debezium_18_8k": round(current["rows_per_s"] / 18800, 2),
                "rows": args.rows,
                "seconds": round(current["seconds"], 2),
                "connector_cpu_s": round(current["cpu_s"], 2),
                "connector_cpu_us_per_row": round(current["cpu_s"] / args.rows * 1e6, 1),
                "thread_cpu_s": current["threads"],
                "connector_peak_rss_mb": round(current["peak_mb"]),
                "snapshot_metrics": current["snapshot"],
                "cpus": os.cpu_count(),
                "load_avg_1m": os.getloadavg()[0],
            }
            if "baseline" in best:
                b = best["baseline"]
                out["baseline"] = {"rows_per_s": round(b["rows_per_s"]), "seconds": round(b["seconds"], 2),
                                   "connector_cpu_s": round(b["cpu_s"], 2), "thread_cpu_s": b["threads"]}
                out["speedup_wall"] = round(current["rows_per_s"] / b["rows_per_s"], 2)
                out["speedup_cpu"] = round(b["cpu_s"] / max(current["cpu_s"], 1e-9), 2)
            print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
