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

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, TopicPartition  # noqa: E402

from bench.connector_run import connector_cmd, cpu_s, in_workdir  # noqa: E402
from tests.conformance.config import write_properties  # noqa: E402
from tests.conformance.connector_process import ConnectorProcess  # noqa: E402
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
        self._next_offset = 0
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
                for msg in self._consumer.consume(500, 0.2):
                    if msg.error():
                        if msg.error().code() != KafkaError._PARTITION_EOF:
                            raise RuntimeError(msg.error())
                        continue
                    if msg.offset() < self._next_offset:
                        continue  # fetched again after a broker timeout: already counted
                    self._next_offset = msg.offset() + 1
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


def rss_kb(pid: int, field: str = "VmRSS") -> int:
    """Resident memory of a process; `RssAnon` is its heap and stacks only (no mapped files, which the kernel
    may drop from memory and bring back, so VmRSS moves without the process allocating anything)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


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

if __name__ == "__main__":
    sys.exit(main())
