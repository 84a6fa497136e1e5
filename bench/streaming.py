#!/usr/bin/env python3
"""Streaming throughput: 300k row changes already in the binlog, connector started, time until Kafka
acknowledged the last record. In the same run, the rate of plain python-mysql-replication decoding
of the same binlog range (no serialization, no Kafka) is measured as the baseline.

    .venv/bin/python bench/streaming.py [--rows 300000] [--shape bulk|oltp] [--baseline DIR] [--repeat N] [--profile]

`--baseline DIR` streams the same binlog range, back to back on the same servers, with the connector of
another source tree (e.g. `git worktree add --detach /tmp/base <commit>`), alternating with this tree;
each run has its own topics and offsets, stored by a first start before the load. On a shared machine
only such pairs, and the connector's CPU seconds (also reported), compare.
`--profile` runs this tree's connector under cProfile (much slower) and prints the top functions.
`BENCH_PYSPY=FILE` instead samples every run with py-spy (100 Hz, not pausing it) into FILE.<run> (`c0` this
tree's first, `b0` the baseline's) in py-spy's raw format; `bench/stages.py FILE.c0 --rows N --main-cpu-s S`
turns one into µs per row change per stage.

Workload (a 12-column mixed-type table): 2/3 inserts in 1000-row INSERTs, 1/5 single-row UPDATEs,
the rest single-row DELETEs. The last line of output is one JSON object:
{"events_per_s": ..., "pmr_decode_rows_per_s": ..., ...}
"""
from __future__ import annotations

import argparse
import json
import os
import pstats
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pymysqlreplication import BinLogStreamReader  # noqa: E402
from pymysqlreplication.row_event import DeleteRowsEvent, UpdateRowsEvent, WriteRowsEvent  # noqa: E402

from tests.conformance.config import write_properties  # noqa: E402
from tests.support.connector_config import connector_properties  # noqa: E402
from bench.connector_run import (child_pids, connector_cmd, start_connector, start_pyspy, thread_cpu_s,  # noqa: E402
                                 tree_cpu_s)
from tests.support.servers import MariaDBServer, Profile, TansuBroker  # noqa: E402

TABLE = """CREATE TABLE bench.events (
  id BIGINT NOT NULL PRIMARY KEY,
  account INT NOT NULL,
  name VARCHAR(64) NOT NULL,
  amount DECIMAL(12,2) NOT NULL,
  created DATETIME(6) NOT NULL,
  updated TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  attrs JSON,
  note TEXT,
  state ENUM('new','open','closed') NOT NULL,
  score DOUBLE,
  flag TINYINT(1) NOT NULL,
  payload BLOB
)"""


def workload_sql(rows: int, seed: int = 1) -> tuple[str, int, int, int]:
    rng = random.Random(seed)
    inserts = rows * 2 // 3
    updates = rows // 5
    deletes = rows - inserts - updates
    out = ["USE bench;"]
    for start in range(1, inserts + 1, 1000):
        values = []
        for i in range(start, min(start + 1000, inserts + 1)):
            values.append(
                f"({i},{rng.randint(1, 10**6)},'name-{i}',{rng.randint(0, 10**9) / 100:.2f},"
                f"'2024-01-{1 + i % 28:02d} 12:{i % 60:02d}:{i % 60:02d}.{i % 10**6:06d}',"
                f"'2024-02-{1 + i % 28:02d} 10:00:00','{{\"k\": {i}, \"tags\": [\"a\", \"b\"]}}',"
                f"'note {i} {'x' * (i % 50)}','{('new', 'open', 'closed')[i % 3]}',{rng.random():.6f},{i % 2},"
                f"X'{(i % 65536):04x}deadbeef')")
        out.append("INSERT INTO events VALUES " + ",".join(values) + ";")
    for n in range(updates):
        i = 1 + (n * 7919) % inserts
        out.append(f"UPDATE events SET amount = amount + 1, state = 'open', note = 'updated {n}' WHERE id = {i};")
    for n in range(deletes):
        out.append(f"DELETE FROM events WHERE id = {inserts - n};")
    return "\n".join(out) + "\n", inserts, updates, deletes


def oltp_sql(rows: int, seed: int = 1) -> tuple[str, int, int, int]:
    """The OLTP shape (issue 27): transactions of UPDATE, UPDATE, DELETE, INSERT (one row each), `rows` row changes
    in all, on the table `workload_sql(max(4, rows // 4))` filled (the caller loads that first). Returns (sql,
    inserts, updates, deletes)."""
    base, size, _, preload_deletes = workload_sql(max(4, rows // 4), seed)
    rng = random.Random(seed + 1)
    out = [base.rstrip("\n").split("\n", 1)[0]]  # USE bench;
    transactions = rows // 4
    next_id = size + 1
    live = list(range(1, size - preload_deletes + 1))  # the preload deletes its highest ids
    for n in range(transactions):
        a, b = rng.choice(live), rng.choice(live)
        gone = live.pop(rng.randrange(len(live)))
        out.append(f"BEGIN; UPDATE events SET amount = amount + 1 WHERE id = {a}; "
                   f"UPDATE events SET note = 'tx {n}' WHERE id = {b}; DELETE FROM events WHERE id = {gone}; "
                   f"INSERT INTO events VALUES ({next_id},{n},'name-{next_id}',{n % 10000}.25,"
                   f"'2024-03-01 10:00:00.000001','2024-03-01 10:00:00','{{\"n\": {n}}}','oltp {n}','new',"
                   f"{n / 7:.4f},1,X'cafe'); COMMIT;")
        live.append(next_id)
        next_id += 1
    return "\n".join(out) + "\n", transactions, 2 * transactions, transactions


def pmr_decode_rate(server: MariaDBServer, start: tuple[str, int], end: tuple[str, int]) -> tuple[int, float]:
    stream = BinLogStreamReader(
        connection_settings={"host": "127.0.0.1", "port": server.port, "user": server.user, "passwd": server.password},
        server_id=98765, resume_stream=True, blocking=False, log_file=start[0], log_pos=start[1],
        only_events=[WriteRowsEvent, UpdateRowsEvent, DeleteRowsEvent], enable_logging=False)
    rows = 0
    t0 = time.perf_counter()
    for event in stream:
        rows += len(event.rows)
        if (stream.log_file, stream.log_pos) >= end:
            break
    elapsed = time.perf_counter() - t0
    stream.close()
    return rows, elapsed


# `--transforms`: this tree's runs unwrap every change (rewrite-with-tombstone keeps the record count: a delete
# and its tombstone both stay) and route it to another topic, as a typical Debezium Server chain does.
TRANSFORMS = {
    "debezium.transforms": "unwrap,route",
    "debezium.transforms.unwrap.type": "io.debezium.transforms.ExtractNewRecordState",
    "debezium.transforms.unwrap.delete.tombstone.handling.mode": "rewrite-with-tombstone",
    "debezium.transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
    "debezium.transforms.route.regex": r"(.*)\.bench\.events",
    "debezium.transforms.route.replacement": "$1.routed",
}


def prepare_run(work: Path, server: MariaDBServer, broker: TansuBroker, name: str, root: Path | None,
                transforms: bool = False, workers: int = 0) -> Path:
    """A run's own topics and config; a first start snapshots the (still empty) table, so the stored offset is
    the binlog position before the load. Returns the run directory."""
    run_dir = work / name
    run_dir.mkdir()
    prefix = f"bench{name}"
    broker.create_topics([f"{prefix}.bench.events", prefix, f"{prefix}.routed"])
    props = connector_properties(run_dir, server, broker, "bench", prefix, server_id=5402, flush_interval_ms=1000)
    if workers:
        props["debezium.source.encode.workers"] = str(workers)
    write_properties(run_dir / "application.properties", {**props, **(TRANSFORMS if transforms else {})})
    proc = start_connector(connector_cmd(), run_dir / "application.properties", run_dir, root)
    proc.wait_streaming(120)
    assert proc.stop() == 0, proc.log_tail()
    return run_dir


def stream_once(run_dir: Path, expected_records: int, root: Path | None, profile: bool) -> dict:
    """Start the run's connector and time it until Kafka acknowledged `expected_records`."""
    prof = Path(os.environ.get("BENCH_STREAMING_PROF", run_dir / "streaming.prof"))  # kept when set
    cmd = connector_cmd(prof if profile else None)
    t0 = time.perf_counter()
    proc = start_connector(cmd, run_dir / "application.properties", run_dir, root)
    spy = start_pyspy(proc.pid, run_dir.name)  # py-spy stops by itself when the connector exits
    cpu = 0.0
    threads: dict[str, float] = {}
    children: list[int] = []
    while True:
        st = proc.status() or {}
        if not children:  # encode.workers' processes: their CPU counts as the connector's
            children = child_pids(proc.pid)
        cpu = tree_cpu_s(proc.pid, children) or cpu
        threads = thread_cpu_s(proc.pid) or threads
        if st.get("records_acked", 0) >= expected_records:
            break
        if time.perf_counter() - t0 > 1800:
            raise SystemExit(f"timed out; last status {st}\n{proc.log_tail()}")
        time.sleep(0.02)
    elapsed = time.perf_counter() - t0
    assert proc.stop() == 0, proc.log_tail()
    if spy is not None:
        spy.wait(60)
    if profile and prof.exists():
        pstats.Stats(str(prof)).sort_stats("tottime").print_stats(30)
    return {"seconds": elapsed, "cpu_s": cpu, "threads": threads}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=300_000)
    parser.add_argument("--baseline", type=Path, metavar="DIR",
                        help="also stream with the connector of the source tree DIR, alternating with this tree")
    parser.add_argument("--repeat", type=int, default=1, help="runs per connector (the best one is reported)")
    parser.add_argument("--no-pmr", action="store_true", help="skip the python-mysql-replication decoding baseline")
    parser.add_argument("--profile", action="store_true", help="run this tree's connector under cProfile")
    parser.add_argument("--transforms", action="store_true",
                        help="this tree's connector runs with unwrap + route (ExtractNewRecordState, RegexRouter); "
                             "with --baseline set to this same tree, the pair compares transforms with a plain run")
    parser.add_argument("--shape", choices=("bulk", "oltp"), default="bulk",
                        help="bulk: 1000-row INSERTs then single-row UPDATEs and DELETEs; oltp: transactions of "
                             "UPDATE, UPDATE, DELETE, INSERT on a pre-filled table (issue 27's small transactions)")
    parser.add_argument("--workers", default=None, metavar="N,N,...",
                        help="instead of --baseline: this tree's connector once per encode.workers value (e.g. "
                             "0,1,2,4), alternating; the last line compares each with the first")
    args = parser.parse_args()
    if args.workers is not None:
        return compare_workers(args, [int(n) for n in args.workers.split(",")])
    with tempfile.TemporaryDirectory(prefix="bench-streaming-") as tmp:
        work = Path(tmp)
        with MariaDBServer(work / "db", profile=Profile.DEFAULTS) as server, TansuBroker(work / "kafka") as broker:
            server.run_sql("CREATE DATABASE bench;")
            # The load is not timed and the binlog is the same either way: without an fsync per commit the single-row
            # transactions go in several times faster on a busy disk (about 200 commits/s with one).
            server.run_sql("SET GLOBAL innodb_flush_log_at_trx_commit = 2;")
            server.run_sql(TABLE + ";")
            if args.shape == "oltp":  # the pre-filled rows: each run's first start snapshots them
                server.run_sql(workload_sql(max(4, args.rows // 4))[0], what="oltp preload")
            trees = {"current": None, **({"baseline": args.baseline} if args.baseline is not None else {})}
            run_dirs = {(kind, i): prepare_run(work, server, broker, f"{kind[0]}{i}", root,
                                               args.transforms and kind == "current")
                        for i in range(args.repeat) for kind, root in trees.items()}
            start = server.binlog_position()

            sql, inserts, updates, deletes = (oltp_sql if args.shape == "oltp" else workload_sql)(args.rows)
            shape = ("in transactions of UPDATE, UPDATE, DELETE, INSERT" if args.shape == "oltp"
                     else "inserts in 1000-row statements, single-row updates and deletes")
            print(f"loading {args.rows} row changes ({inserts} inserts, {updates} updates, {deletes} deletes, "
                  f"{shape}) ...", flush=True)
            t0 = time.perf_counter()
            (work / "load.sql").write_text(sql)
            server.run_sql(sql, what="bench workload")
            end = server.binlog_position()
            print(f"loaded in {time.perf_counter() - t0:.1f} s; binlog {start} -> {end}", flush=True)

            decoded, pmr_s = pmr_decode_rate(server, start, end) if not args.no_pmr else (1, 1e9)
            pmr_rate = decoded / pmr_s
            print(f"baseline: python-mysql-replication decoded {decoded} rows in {pmr_s:.2f} s = "
                  f"{pmr_rate:,.0f} rows/s", flush=True)

            expected_records = inserts + updates + 2 * deletes  # deletes are followed by tombstones
            runs: dict[str, list[dict]] = {kind: [] for kind in trees}
            for (kind, _), run_dir in run_dirs.items():
                runs[kind].append(stream_once(run_dir, expected_records, trees[kind],
                                              args.profile and kind == "current"))
            best = {kind: min(r, key=lambda x: x["seconds"]) for kind, r in runs.items()}
            for kind, r in best.items():
                rate = args.rows / r["seconds"]
                print(f"{kind}: {args.rows} row changes ({expected_records} Kafka records) acknowledged in "
                      f"{r['seconds']:.2f} s = {rate:,.0f} row events/s ({rate / pmr_rate:.2f}x the library's bare "
                      f"decoding rate); connector CPU {r['cpu_s']:.1f} s (per thread: {r['threads']})",
                      flush=True)
            current = best["current"]
            events_per_s = args.rows / current["seconds"]
            out = {
                "events_per_s": round(events_per_s),
                "pmr_decode_rows_per_s": round(pmr_rate),
                "ratio_vs_pmr_decode": round(events_per_s / pmr_rate, 2),
                "rows": args.rows,
                "records": expected_records,
                "seconds": round(current["seconds"], 2),
                "connector_cpu_s": round(current["cpu_s"], 2),
                "load_avg_1m": os.getloadavg()[0],
            }
            if "baseline" in best:
                b = best["baseline"]
                out["baseline"] = {"events_per_s": round(args.rows / b["seconds"]), "seconds": round(b["seconds"], 2),
                                   "connector_cpu_s": round(b["cpu_s"], 2)}
                out["speedup_wall"] = round(b["seconds"] / current["seconds"], 3)
                out["speedup_cpu"] = round(b["cpu_s"] / max(current["cpu_s"], 1e-9), 3)
            print(json.dumps(out))
    return 0


def compare_workers(args: argparse.Namespace, counts: list[int]) -> int:
    """Streams the same binlog range with each encode.workers value, `--repeat` rounds of all of them in turn
    (so a change in the machine's load hits every value alike); reports the median per value."""
    with tempfile.TemporaryDirectory(prefix="bench-streaming-") as tmp:
        work = Path(tmp)
        with MariaDBServer(work / "db", profile=Profile.DEFAULTS) as server, TansuBroker(work / "kafka") as broker:
            server.run_sql("CREATE DATABASE bench;")
            server.run_sql(TABLE + ";")
            run_dirs = {(n, i): prepare_run(work, server, broker, f"w{n}r{i}", None, args.transforms, n)
                        for i in range(args.repeat) for n in counts}
            sql, inserts, updates, deletes = workload_sql(args.rows)
            (work / "load.sql").write_text(sql)
            server.run_sql(sql, what="bench workload")
            expected_records = inserts + updates + 2 * deletes
            results: dict[int, list[dict]] = {n: [] for n in counts}
            for (n, i), run_dir in run_dirs.items():
                r = stream_once(run_dir, expected_records, None, args.profile and n == counts[-1])
                results[n].append(r)
                print(f"encode.workers={n} round {i + 1}: {args.rows} row changes in {r['seconds']:.2f} s = "
                      f"{args.rows / r['seconds']:,.0f}/s, CPU {r['cpu_s']:.1f} s (connector + workers; connector's "
                      f"threads {r['threads']}), "
                      f"load {os.getloadavg()[0]:.1f}", flush=True)
            base = statistics.median(r["seconds"] for r in results[counts[0]])
            out: dict = {"rows": args.rows, "records": expected_records, "rounds": args.repeat,
                         "cores": os.cpu_count(), "load_avg_1m": os.getloadavg()[0]}
            for n in counts:
                secs = statistics.median(r["seconds"] for r in results[n])
                cpu = statistics.median(r["cpu_s"] for r in results[n])
                out[f"workers_{n}"] = {"seconds": round(secs, 2), "rows_per_s": round(args.rows / secs),
                                       "cpu_s": round(cpu, 2), "speedup": round(base / secs, 3)}
            print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
