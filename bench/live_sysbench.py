#!/usr/bin/env python3
"""A live load kept up with: Debian's sysbench `oltp_write_only` at full speed while the connector streams beside it.

    .venv/bin/python bench/live_sysbench.py [--threads 4] [--seconds 60] [--tables 4] [--table-size 10000] [--rate TPS]

A private MariaDB and Tansu broker; sysbench prepares `--tables` tables of `--table-size` rows, the connector
(`binlog-cdc run`, started cold) snapshots them and starts streaming; then sysbench runs `oltp_write_only` (per
transaction an indexed UPDATE, a non-indexed UPDATE, a DELETE and an INSERT of one row) with `--threads` threads
for `--seconds`, as fast as the machine lets it (or at `--rate` transactions/s), and stops. A consumer reads the
data topics live (no group).

Lag: beside sysbench a probe thread inserts a row into `sbtest.probe` every 50 ms carrying its own clock (µs);
each probe's lag is its record's Kafka timestamp (the producer's CreateTime, ms, set when the connector hands
the record to the producer) minus that clock: commit plus the connector's delay, behind everything sysbench
wrote before it (MariaDB's binlog times are whole seconds, too coarse for this). Also: the row changes per
second sysbench made, that every one of them arrived, and how long after sysbench stopped the last one did
(the backlog). The last line is one JSON object.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from confluent_kafka import Consumer, TopicPartition  # noqa: E402

from bench.connector_run import connector_cmd, cpu_s, start_connector  # noqa: E402
from tests.conformance.config import write_properties  # noqa: E402
from tests.support.connector_config import connector_properties  # noqa: E402
from tests.support.servers import MariaDBServer, Profile, TansuBroker  # noqa: E402

PREFIX = "live"


def sysbench(server: MariaDBServer, command: str, args: argparse.Namespace, threads: int, seconds: int = 0
             ) -> str:
    cmd = ["sysbench", "oltp_write_only", "--db-driver=mysql", f"--mysql-socket={server.socket}",
           "--mysql-user=root", "--mysql-password=", "--mysql-db=sbtest", f"--tables={args.tables}",
           f"--table-size={args.table_size}", f"--threads={threads}", "--report-interval=0"]
    if seconds:
        cmd += [f"--time={seconds}", f"--rate={args.rate}"]
    done = subprocess.run([*cmd, command], capture_output=True, text=True, timeout=seconds + 600)
    if done.returncode:
        raise SystemExit(f"sysbench {command} failed ({done.returncode}): {done.stderr or done.stdout}")
    return done.stdout


class Probe(threading.Thread):
    """Inserts a row carrying its clock (µs) every `interval_s` until stopped."""

    def __init__(self, server: MariaDBServer, interval_s: float = 0.05) -> None:
        super().__init__(name="live-probe", daemon=True)
        self._server, self._interval_s = server, interval_s
        self.stop_requested = threading.Event()
        self.sent = 0

    def run(self) -> None:
        conn = self._server.connect("sbtest")
        conn.autocommit(True)
        with conn.cursor() as cur:
            while not self.stop_requested.wait(self._interval_s):
                cur.execute("INSERT INTO probe (t_us) VALUES (%s)", (time.time_ns() // 1000,))
                self.sent += 1
        conn.close()


class Reader(threading.Thread):
    """Reads every data topic from the start: per change event (Kafka timestamp ms, table, t_us of a probe row or
    None, arrival time)."""

    def __init__(self, bootstrap: str, topics: list[str]) -> None:
        super().__init__(name="live-reader", daemon=True)
        self.consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "live-bench", "enable.auto.commit": False,
                                  "auto.offset.reset": "earliest"})
        self.consumer.assign([TopicPartition(t, 0, 0) for t in topics])
        self.samples: list[tuple[int, str, int | None, float]] = []
        self.stop_requested = threading.Event()

    def run(self) -> None:
        while not self.stop_requested.is_set():
            for msg in self.consumer.consume(1000, 0.2):
                value = msg.value()
                if msg.error() is not None or not value:
                    continue
                payload = json.loads(value).get("payload") or {}
                source = payload.get("source") or {}
                if payload.get("op") in ("c", "u", "d"):
                    after = payload.get("after") or {}
                    self.samples.append((msg.timestamp()[1], source.get("table", ""), after.get("t_us"), time.time()))
        self.consumer.close()


def quantile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=1000)[int(q * 1000) - 1] if len(values) > 1 else (values or [0.0])[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--table-size", type=int, default=10000)
    parser.add_argument("--rate", type=int, default=0, help="sysbench transactions per second (0: full speed)")
    args = parser.parse_args()
    if shutil.which("sysbench") is None:
        raise SystemExit("sysbench is not installed: apt-get install sysbench (Debian's package)")
    with tempfile.TemporaryDirectory(prefix="bench-live-") as tmp:
        work = Path(tmp)
        with MariaDBServer(work / "db", profile=Profile.DEFAULTS) as server, TansuBroker(work / "kafka") as broker:
            server.run_sql("CREATE DATABASE sbtest; CREATE TABLE sbtest.probe (id BIGINT AUTO_INCREMENT PRIMARY KEY, "
                           "t_us BIGINT NOT NULL);")
            sysbench(server, "prepare", args, threads=args.tables)
            topics = [f"{PREFIX}.sbtest.sbtest{i}" for i in range(1, args.tables + 1)] + [f"{PREFIX}.sbtest.probe"]
            broker.create_topics([PREFIX, *topics])
            run_dir = work / "connector"
            run_dir.mkdir()
            write_properties(run_dir / "application.properties",
                             connector_properties(run_dir, server, broker, "sbtest", PREFIX, flush_interval_ms=1000))
            proc = start_connector(connector_cmd(), run_dir / "application.properties", run_dir)
            try:
                proc.wait_streaming(600)
                reader = Reader(broker.bootstrap_servers, topics)
                reader.start()
                probe = Probe(server)
                cpu0, t0 = cpu_s(proc.pid) or 0.0, time.time()
                probe.start()
                out = sysbench(server, "run", args, threads=args.threads, seconds=args.seconds)
                stopped = time.time()
                probe.stop_requested.set()
                probe.join(10)
                tx_line = next((ln for ln in out.splitlines() if "transactions:" in ln), "")
                transactions = int(tx_line.split()[1]) if tx_line else 0
                expected = 4 * transactions  # UPDATE, UPDATE, DELETE, INSERT per transaction
                deadline = time.time() + 600
                while (len([s for s in reader.samples if s[1] != "probe" and s[3] >= t0]) < expected
                       or len([s for s in reader.samples if s[1] == "probe"]) < probe.sent) and time.time() < deadline:
                    time.sleep(0.1)
                cpu = (cpu_s(proc.pid) or 0.0) - cpu0
            finally:
                assert proc.stop() == 0, proc.log_tail()
            reader.stop_requested.set()
            reader.join(30)
    live = [s for s in reader.samples if s[1] != "probe" and s[3] >= t0]
    lags = [float(ts - t_us / 1000) for ts, table, t_us, _ in reader.samples if table == "probe" and t_us]
    last_arrival = max((s[3] for s in live), default=stopped)
    result = {
        "threads": args.threads, "seconds": args.seconds, "rate": args.rate, "transactions": transactions,
        "row_changes": expected, "change_events_read": len(live), "probes": len(lags),
        "sysbench_row_changes_per_s": round(expected / args.seconds, 1),
        "lag_ms_p50": round(quantile(lags, 0.5)), "lag_ms_p99": round(quantile(lags, 0.99)),
        "lag_ms_max": round(max(lags, default=0.0)),
        "backlog_after_stop_s": round(max(0.0, last_arrival - stopped), 2),
        "connector_cpu_s": round(cpu, 1), "connector_cpu_us_per_change": round(cpu / max(expected, 1) * 1e6, 1),
        "load_avg_1m": round(os.getloadavg()[0], 2),
    }
    print(f"sysbench oltp_write_only, {args.threads} threads, {args.seconds} s: {transactions} transactions = "
          f"{result['sysbench_row_changes_per_s']} row changes/s; read {len(live)} change events; lag p50 "
          f"{result['lag_ms_p50']} ms, p99 {result['lag_ms_p99']} ms, max {result['lag_ms_max']} ms "
          f"({len(lags)} probes); "
          f"last change {result['backlog_after_stop_s']} s after sysbench stopped; "
          f"connector CPU {result['connector_cpu_s']} s ({result['connector_cpu_us_per_change']} µs per change)",
          flush=True)
    print(json.dumps(result))
    return 0 if len(live) >= expected else 1


if __name__ == "__main__":
    sys.exit(main())
