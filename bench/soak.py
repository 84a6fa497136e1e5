#!/usr/bin/env python3
"""Soak: the connector (`binlog-cdc run`, a child process) streams a steady write load for N minutes.

A private MariaDB and Tansu broker are started; a writer thread commits small transactions at a steady
rate (default 200 row changes/s: per 10 changes of a transaction 4 inserts, 4 updates, 2 deletes, each kind one
multi-row statement; `--tx-changes` sets the transaction size); a consumer thread reads
the data topic live (assigned, no consumer group). Every 10 s the connector's RSS (and RssAnon, its heap
alone), its MilliSecondsBehindSource metric and the machine's load are sampled. A writer that falls more
than 1 s behind its schedule (a loaded machine) restarts the schedule rather than bursting, and counts a stall.

    .venv/bin/python bench/soak.py [--minutes 30] [--rate 200] [--tx-changes 10] [--port-base 14160]
    .venv/bin/python bench/soak.py --minutes 10 --rate 5000 --tx-changes 50   # issue 17: p99 lag < 100 ms

Lag, per data record:
- `lag` = Kafka record timestamp (the producer's CreateTime) minus the writer's clock when it began the
  transaction, which the row carries in `t_us` (µs): commit plus the connector's delay, sub-second precise;
- `source_lag` = record timestamp minus `source.ts_ms` (MariaDB binlog timestamps are whole seconds, so
  this overstates the lag by up to 1 s; reported for comparison).
At the end the writer stops, the connector catches up, and every change must have arrived exactly once:
records are identified by (op, id, seq), `seq` being unique per change. The last line is one JSON object.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import threading
import time
import urllib.request
from collections import Counter, deque
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition  # noqa: E402

from bench.connector_run import connector_cmd, cpu_s, fresh_messages, in_workdir, rss_kb  # noqa: E402
from tests.conformance.config import write_properties  # noqa: E402
from tests.support.connector_process import ConnectorProcess  # noqa: E402
from tests.support.connector_config import connector_properties  # noqa: E402
from tests.support.servers import MariaDBServer, Profile, TansuBroker  # noqa: E402

TABLE = ("CREATE TABLE soak.items (id BIGINT PRIMARY KEY, seq BIGINT NOT NULL, t_us BIGINT NOT NULL, "
         "name VARCHAR(64) NOT NULL, amount DECIMAL(12,2) NOT NULL, note TEXT)")
SAMPLE_EVERY_S = 10.0


class Writer(threading.Thread):
    """Commits transactions of `tx_changes` row changes (4 in 10 inserts, 4 updates, 2 deletes), paced to `rate`
    row changes/s. Each kind is one multi-row statement: one round trip per kind, not per row, so that one
    connection sustains thousands of changes per second on a loaded machine."""

    def __init__(self, server: MariaDBServer, rate: float, tx_changes: int = 10) -> None:
        super().__init__(name="soak-writer", daemon=True)
        if tx_changes < 10 or tx_changes % 10:
            raise ValueError(f"--tx-changes must be a multiple of 10, got {tx_changes}")
        self._server = server
        self._batch = tx_changes // 10
        self._interval = tx_changes / rate
        self.stop_requested = threading.Event()
        self.changes = 0
        self.transactions = 0
        self.behind_schedule_max_s = 0.0
        self.stalls = 0  # times the writer fell more than 1 s behind its schedule
        self.started_at: float | None = None
        self.stopped_at: float | None = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self._run()
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            self.error = exc
        finally:
            self.stopped_at = time.monotonic()

    def _run(self) -> None:
        conn = self._server.connect("soak")
        conn.autocommit(False)
        live: deque[int] = deque()  # ids inserted and not yet deleted, oldest first
        next_id, seq = 1, 0
        start = self.started_at = time.monotonic()
        scheduled = 0
        with conn.cursor() as cur:
            while not self.stop_requested.is_set():
                due = start + scheduled * self._interval
                now = time.monotonic()
                if due > now:
                    time.sleep(due - now)
                else:
                    self.behind_schedule_max_s = max(self.behind_schedule_max_s, now - due)
                    if now - due > 1.0:
                        # Stalled (a loaded machine): keep the rate steady from here instead of bursting.
                        self.stalls += 1
                        start, scheduled = now, 0
                scheduled += 1
                # t_us is the writer's clock at the start of the transaction, on every row it touches.
                t_us = time.time_ns() // 1000
                inserts, updates, deletes = [], [], []
                for _ in range(4 * self._batch):
                    seq += 1
                    inserts.append((next_id, seq, t_us, f"item-{next_id}", next_id % 10000 / 100, "x" * (seq % 40)))
                    live.append(next_id)
                    next_id += 1
                targets: set[int] = set()
                for k in range(4 * self._batch):
                    target = live[(seq * 7919 + k) % len(live)]
                    if target not in targets:  # one update per row and statement: each change its own seq
                        seq += 1
                        targets.add(target)
                        updates.append((target, seq, t_us, "", 0, None))
                for _ in range(2 * self._batch):
                    if len(live) > 1000:
                        deletes.append(live.popleft())
                    elif live[0] not in targets:
                        seq += 1
                        targets.add(live[0])
                        updates.append((live[0], seq, t_us, "", 0, None))
                cur.executemany("INSERT INTO items VALUES (%s, %s, %s, %s, %s, %s)", inserts)
                if updates:
                    # An upsert of existing rows: the binlog holds one UPDATE_ROWS image per row, as an UPDATE.
                    cur.executemany("INSERT INTO items VALUES (%s, %s, %s, %s, %s, %s) ON DUPLICATE KEY UPDATE "
                                    "seq = VALUES(seq), t_us = VALUES(t_us), amount = amount + 1", updates)
                if deletes:
                    cur.execute("DELETE FROM items WHERE id IN %s", (deletes,))
                conn.commit()
                self.changes += len(inserts) + len(updates) + len(deletes)
                self.transactions += 1
        conn.close()

    def achieved_rate(self) -> float:
        """Row changes per second over the writer's run."""
        if self.started_at is None:
            return 0.0
        elapsed = (self.stopped_at or time.monotonic()) - self.started_at
        return self.changes / elapsed if elapsed > 0 else 0.0


class Reader(threading.Thread):
    """Consumes the data topic live; keeps (op, id, seq) counts and the per-record lags."""

    def __init__(self, bootstrap: str, topic: str) -> None:
        super().__init__(name="soak-reader", daemon=True)
        # Assigned, not subscribed: no consumer group, so no rebalance that would read the topic again.
        self._consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "soak", "enable.auto.commit": False})
        self._consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
        self._next: dict[str, int] = {}
        self.stop_requested = threading.Event()
        self.seen: Counter[tuple[str, int, int]] = Counter()
        self.records = 0
        self.lags_ms: list[float] = []
        self.source_lags_ms: list[float] = []
        self.window: list[float] = []  # lags since the last sample
        self.lock = threading.Lock()
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            while not self.stop_requested.is_set():
                for msg in fresh_messages(self._consumer, 500, self._next):
                    if msg.value() is None:
                        continue  # tombstone
                    self._record(msg.timestamp()[1], json.loads(msg.value())["payload"])
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            self.error = exc
        finally:
            self._consumer.close()

    def _record(self, record_ts_ms: int, payload: dict[str, Any]) -> None:
        op = payload["op"]
        row = payload["before"] if op == "d" else payload["after"]
        with self.lock:
            self.records += 1
            self.seen[(op, row["id"], row["seq"])] += 1
            if op == "r":
                return
            if op != "d":
                lag = record_ts_ms - row["t_us"] / 1000
                self.lags_ms.append(lag)
                self.window.append(lag)
            self.source_lags_ms.append(record_ts_ms - payload["source"]["ts_ms"])

    def take_window(self) -> list[float]:
        with self.lock:
            window, self.window = self.window, []
        return window


def ms_behind_source(port: int) -> float | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as resp:
            text = resp.read().decode()
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("debezium_mysql_streaming_MilliSecondsBehindSource"):
            return float(line.rsplit(" ", 1)[1])
    return None


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--rate", type=float, default=200.0, help="row changes per second")
    parser.add_argument("--tx-changes", type=int, default=10, help="row changes per transaction (multiple of 10)")
    parser.add_argument("--profile", action="store_true",
                        help="run the connector under cProfile (slower) and print its top functions")
    parser.add_argument("--port-base", type=int, default=None,
                        help="MariaDB on this port, Tansu on +1, the metrics endpoint on +2 (default: free ports)")
    parser.add_argument("--workdir", type=Path, default=None, help="kept after the run (default: a temp dir)")
    args = parser.parse_args()

    return in_workdir("bench-soak-", args.workdir, lambda work: soak(work, args))


def soak(work: Path, args: argparse.Namespace) -> int:
    base = args.port_base
    metrics_port = base + 2 if base else _free_port()
    with MariaDBServer(work / "db", port=base, profile=Profile.DEFAULTS) as server, \
            TansuBroker(work / "kafka", port=base + 1 if base else None) as broker:
        server.run_sql("CREATE DATABASE soak; " + TABLE)
        prefix = "soak"
        topic = f"{prefix}.soak.items"
        broker.create_topics([topic, prefix])
        props = connector_properties(work, server, broker, "soak", prefix, server_id=5403, flush_interval_ms=1000,
                                     metrics_port=str(metrics_port), metrics_host="127.0.0.1")
        config = work / "application.properties"
        write_properties(config, props)
        prof = work / "connector.prof"
        proc = ConnectorProcess(connector_cmd(prof if args.profile else None), config, work / "status.json",
                                work / "connector.log").start()
        reader = Reader(broker.bootstrap_servers, topic)
        writer = Writer(server, args.rate, args.tx_changes)
        samples: list[dict[str, Any]] = []
        try:
            proc.wait_streaming(120)
            assert proc.pid is not None
            reader.start()
            writer.start()
            t0 = time.monotonic()
            cpu0 = last_cpu = cpu_s(proc.pid) or 0.0
            end = t0 + args.minutes * 60
            print(f"soak: {args.minutes:g} min at {args.rate:g} row changes/s; connector pid {proc.pid}; "
                  f"workdir {work}", flush=True)
            while time.monotonic() < end:
                time.sleep(min(SAMPLE_EVERY_S, max(0.0, end - time.monotonic())))
                for thread in (writer, reader):
                    if thread.error is not None:
                        raise RuntimeError(f"{thread.name} failed: {thread.error!r}")
                window = reader.take_window()
                cpu = cpu_s(proc.pid) or last_cpu
                sample = {"t_s": round(time.monotonic() - t0), "rss_mb": round(rss_kb(proc.pid) / 1024, 1),
                          "anon_mb": round(rss_kb(proc.pid, "RssAnon") / 1024, 1),
                          "load1": round(os.getloadavg()[0], 1),
                          # the connector's share of one core over the window (all its threads)
                          "cpu_pct": round(100 * (cpu - last_cpu) / SAMPLE_EVERY_S),
                          "written": writer.changes, "read": reader.records,
                          "lag_p50_ms": round(percentile(window, 50), 1),
                          "lag_max_ms": round(max(window, default=0), 1),
                          "ms_behind_source": ms_behind_source(metrics_port)}
                last_cpu = cpu
                samples.append(sample)
                print(json.dumps(sample), flush=True)
            writer.stop_requested.set()
            writer.join(30)
            if writer.error is not None:
                raise RuntimeError(f"writer failed: {writer.error!r}")
            proc.wait_caught_up(server.binlog_position(), quiet_ms=2000, timeout=300)
            deadline = time.monotonic() + 60
            while reader.records < writer.changes and time.monotonic() < deadline:
                time.sleep(0.2)
            cpu_total = (cpu_s(proc.pid) or last_cpu) - cpu0
            final_rss = rss_kb(proc.pid) / 1024
            final_anon = rss_kb(proc.pid, "RssAnon") / 1024
        finally:
            writer.stop_requested.set()
            reader.stop_requested.set()
            rc = proc.stop()
            reader.join(10)
        if rc != 0:
            print(f"connector exit code {rc}:\n{proc.log_tail()}", flush=True)
        if args.profile and prof.exists():
            import pstats

            pstats.Stats(str(prof)).sort_stats("cumulative").print_stats(40)
    return report(samples, writer, reader, final_rss, final_anon, cpu_total, args)


def report(samples: list[dict[str, Any]], writer: Writer, reader: Reader, final_rss: float, final_anon: float,
           cpu_total_s: float, args: argparse.Namespace) -> int:
    rss = [s["rss_mb"] for s in samples] + [round(final_rss, 1)]
    anon = [s["anon_mb"] for s in samples] + [round(final_anon, 1)]
    loads = [s["load1"] for s in samples]
    duplicates = sum(n - 1 for n in reader.seen.values() if n > 1)
    lags, source_lags = reader.lags_ms, reader.source_lags_ms
    behind = [s["ms_behind_source"] for s in samples if s["ms_behind_source"] is not None]
    # Memory is "flat" when the second half does not grow: compare the mean of the first and last thirds
    # after warm-up.
    third = max(1, len(rss) // 3)
    summary = {
        "minutes": args.minutes, "rate": args.rate, "tx_changes": args.tx_changes,
        "achieved_rate": round(writer.achieved_rate(), 1),
        "written": writer.changes, "read": reader.records, "distinct": len(reader.seen), "duplicates": duplicates,
        "exactly_once": reader.records == writer.changes and duplicates == 0,
        "transactions": writer.transactions, "writer_behind_schedule_max_s": round(writer.behind_schedule_max_s, 3),
        "rss_mb_first": rss[0], "rss_mb_last": rss[-1], "rss_mb_max": max(rss),
        "rss_mb_first_third_mean": round(statistics.mean(rss[:third]), 1),
        "rss_mb_last_third_mean": round(statistics.mean(rss[-third:]), 1),
        "anon_mb_first": anon[0], "anon_mb_last": anon[-1], "anon_mb_max": max(anon),
        "anon_mb_first_third_mean": round(statistics.mean(anon[:third]), 1),
        "anon_mb_last_third_mean": round(statistics.mean(anon[-third:]), 1),
        "writer_stalls": writer.stalls,
        # connector CPU per change: what the rate costs, independent of the machine's other load
        "connector_cpu_s": round(cpu_total_s, 1),
        "connector_cpu_us_per_change": round(1e6 * cpu_total_s / writer.changes, 1) if writer.changes else None,
        "load1_median": statistics.median(loads) if loads else None, "load1_max": max(loads, default=None),
        "lag_ms_p50": round(percentile(lags, 50), 1), "lag_ms_p99": round(percentile(lags, 99), 1),
        "lag_ms_max": round(max(lags, default=float("nan")), 1),
        "lag_under_1s_fraction": round(sum(1 for x in lags if x < 1000) / len(lags), 5) if lags else None,
        "source_lag_ms_p50": round(percentile(source_lags, 50), 1),
        "source_lag_ms_p99": round(percentile(source_lags, 99), 1),
        "ms_behind_source_max": max(behind, default=None),
    }
    print(f"written {writer.changes} row changes in {writer.transactions} transactions "
          f"({summary['achieved_rate']} changes/s); read {reader.records} "
          f"records ({duplicates} duplicates): {'exactly once' if summary['exactly_once'] else 'MISMATCH'}")
    print(f"connector RSS MB: first {summary['rss_mb_first']}, last {summary['rss_mb_last']}, "
          f"max {summary['rss_mb_max']} (first-third mean {summary['rss_mb_first_third_mean']}, "
          f"last-third mean {summary['rss_mb_last_third_mean']})")
    print(f"connector anonymous RSS MB: first {summary['anon_mb_first']}, last {summary['anon_mb_last']}, "
          f"max {summary['anon_mb_max']}; machine load (1 min) median {summary['load1_median']}, "
          f"max {summary['load1_max']}; writer stalls > 1 s: {writer.stalls}")
    print(f"lag ms (record time - commit clock): p50 {summary['lag_ms_p50']}, p99 {summary['lag_ms_p99']}, "
          f"max {summary['lag_ms_max']}; vs source.ts_ms (whole seconds): p50 {summary['source_lag_ms_p50']}, "
          f"p99 {summary['source_lag_ms_p99']}; MilliSecondsBehindSource max {summary['ms_behind_source_max']}")
    print(json.dumps(summary), flush=True)
    return 0 if summary["exactly_once"] else 1


def _free_port() -> int:
    from tests.support.ports import free_port

    return free_port()


if __name__ == "__main__":
    sys.exit(main())
