#!/usr/bin/env python3
"""Memory: the connector's (`binlog-cdc run`, a child process) peak RSS while streaming big transactions and rows.

A private MariaDB (max_allowed_packet raised for the BLOBs) and Tansu broker are started and the connector
streams three phases, each measured on its own (the kernel's peak, VmHWM, is reset between them through
/proc/PID/clear_refs, and a sampler reads VmRSS every 20 ms as a cross-check):

1. one transaction of `--rows` row changes (default 1,000,000: one INSERT ... SELECT from MariaDB's sequence
   engine, so one transaction of many ROWS events);
2. `--blobs` rows carrying a `--blob-mb` MB LONGBLOB (default 24 of 16 MB), one transaction each;
3. `--blob-updates` UPDATEs of a small column of such rows (a full row image holds the BLOB twice: before and
   after), one transaction each.

A consumer counts the records of each topic by key: every change must arrive exactly once, and every BLOB
record must carry the whole BLOB. 16 MB BLOBs make records of ~22 MB (base64, twice in an update), larger
than the producer's default `max.request.size` (1 MB), so the bench raises it as a Debezium user must.

    .venv/bin/python bench/memory.py [--rows 1000000] [--blobs 24] [--blob-updates 8] [--blob-mb 16]
                                     [--port-base 15220]

The goal (issue 17) is a peak under 200 MB. The last line is one JSON object.
"""
from __future__ import annotations

import argparse
import base64
import json
import os
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition  # noqa: E402

from bench.connector_run import connector_cmd, cpu_s, fresh_messages, in_workdir, rss_kb  # noqa: E402
from tests.conformance.config import write_properties  # noqa: E402
from tests.support.connector_process import ConnectorProcess  # noqa: E402
from tests.support.connector_config import connector_properties  # noqa: E402
from tests.support.servers import MariaDBServer, Profile, TansuBroker  # noqa: E402
from tests.support.waiting import wait_until  # noqa: E402

SCHEMA = ("CREATE DATABASE mem; "
          "CREATE TABLE mem.big (id BIGINT PRIMARY KEY, n BIGINT NOT NULL, pad VARCHAR(64) NOT NULL); "
          "CREATE TABLE mem.blobs (id INT PRIMARY KEY, version INT NOT NULL, data LONGBLOB NOT NULL)")
# Records of up to twice a BLOB in base64 plus the envelope: the producer must accept them.
MAX_REQUEST_BYTES = 256 * 1024 * 1024


class RssSampler(threading.Thread):
    """Reads the connector's VmRSS every 20 ms; `peak_kb` is the highest since the last `reset()`."""

    def __init__(self, pid: int) -> None:
        super().__init__(name="rss-sampler", daemon=True)
        self._pid = pid
        self.peak_kb = 0
        self.stop_requested = threading.Event()

    def reset(self) -> None:
        self.peak_kb = 0

    def run(self) -> None:
        while not self.stop_requested.wait(0.02):
            self.peak_kb = max(self.peak_kb, rss_kb(self._pid, "VmRSS"))


class Counting(threading.Thread):
    """Consumes the topics live and counts records per (topic, key id); checks BLOB lengths as it goes."""

    def __init__(self, bootstrap: str, topics: list[str], blob_topic: str, blob_bytes: int) -> None:
        super().__init__(name="counting-reader", daemon=True)
        self._consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "memory", "enable.auto.commit": False,
                                   "fetch.max.bytes": MAX_REQUEST_BYTES, "receive.message.max.bytes":
                                   MAX_REQUEST_BYTES + 1024 * 1024})
        # Assigned, not subscribed: no consumer group, so no rebalance that would read a topic again.
        self._consumer.assign([TopicPartition(t, 0, OFFSET_BEGINNING) for t in topics])
        self._blob_topic, self._blob_bytes = blob_topic, blob_bytes
        self._next: dict[str, int] = {}
        self.seen: Counter[tuple[str, int, str]] = Counter()
        self.per_topic: Counter[str] = Counter()
        self.bad_blobs = 0
        self.stop_requested = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            while not self.stop_requested.is_set():
                for msg in fresh_messages(self._consumer, 1000, self._next):
                    self._count(msg.topic(), msg.key(), msg.value())
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            self.error = exc
        finally:
            self._consumer.close()

    def _count(self, topic: str, key: bytes, value: bytes | None) -> None:
        row_id = json.loads(key)["payload"]["id"]
        if topic == self._blob_topic and value is not None:
            payload = json.loads(value)["payload"]
            op = payload["op"]
            images = [payload["after"]] + ([payload["before"]] if op == "u" else [])
            if any(len(base64.b64decode(image["data"])) != self._blob_bytes for image in images):
                self.bad_blobs += 1
            self.seen[(topic, row_id, f"{op}{payload['after']['version']}")] += 1
        else:
            self.seen[(topic, row_id, "")] += 1
        self.per_topic[topic] += 1


def reset_peak(pid: int) -> None:
    """Reset the kernel's peak RSS (VmHWM) of `pid` to its current RSS (Linux >= 4.0, the process's owner)."""
    Path(f"/proc/{pid}/clear_refs").write_text("5")


def measure(name: str, pid: int, sampler: RssSampler, reader: Counting, topic: str, expected: int,
            load: Any, timeout_s: float) -> dict[str, Any]:
    """Run `load()`, wait until `expected` records of `topic` arrived; the phase's peaks and timings."""
    baseline_kb = rss_kb(pid, "VmRSS")
    reset_peak(pid)
    sampler.reset()
    cpu0, t0 = cpu_s(pid) or 0.0, time.monotonic()
    load()
    written_s = time.monotonic() - t0
    wait_until(lambda: reader.error is not None or reader.per_topic[topic] >= expected, timeout_s,
               f"{expected} records on {topic}", interval=0.2)
    if reader.error is not None:
        raise RuntimeError(f"reader failed: {reader.error!r}")
    phase = {"phase": name, "records": reader.per_topic[topic], "expected": expected,
             "rss_mb_before": round(baseline_kb / 1024, 1),
             "rss_mb_peak": round(max(rss_kb(pid, "VmHWM"), sampler.peak_kb) / 1024, 1),
             "rss_mb_peak_sampled": round(sampler.peak_kb / 1024, 1),
             "rss_mb_after": round(rss_kb(pid, "VmRSS") / 1024, 1),
             "load_s": round(written_s, 1), "total_s": round(time.monotonic() - t0, 1),
             "connector_cpu_s": round((cpu_s(pid) or cpu0) - cpu0, 1), "load1": round(os.getloadavg()[0], 1)}
    print(json.dumps(phase), flush=True)
    return phase


def run(work: Path, args: argparse.Namespace) -> int:
    base = args.port_base
    blob_bytes = args.blob_mb * 1024 * 1024
    # The server must take the BLOB statements and the client library must read the BLOB row events.
    options = (f"max_allowed_packet={max(64, 4 * args.blob_mb)}M",)
    with MariaDBServer(work / "db", port=base, profile=Profile.DEFAULTS, extra_options=options) as server, \
            TansuBroker(work / "kafka", port=base + 1 if base else None) as broker:
        server.run_sql(SCHEMA)
        prefix = "mem"
        big, blobs = f"{prefix}.mem.big", f"{prefix}.mem.blobs"
        broker.create_topics([big, blobs, prefix])
        props = connector_properties(work, server, broker, "mem", prefix, server_id=5404, flush_interval_ms=1000)
        props["debezium.sink.kafka.producer.max.request.size"] = str(MAX_REQUEST_BYTES)
        config = work / "application.properties"
        write_properties(config, props)
        proc = ConnectorProcess(connector_cmd(), config, work / "status.json", work / "connector.log").start()
        reader = Counting(broker.bootstrap_servers, [big, blobs], blobs, blob_bytes)
        phases: list[dict[str, Any]] = []
        try:
            proc.wait_streaming(120)
            assert proc.pid is not None
            sampler = RssSampler(proc.pid)
            sampler.start()
            reader.start()
            print(f"memory: connector pid {proc.pid}, streaming; RSS {rss_kb(proc.pid, 'VmRSS') // 1024} MB; "
                  f"workdir {work}", flush=True)
            conn = server.connect("mem")  # autocommit: each statement is its own transaction

            def one_big_transaction() -> None:
                with conn.cursor() as cur:
                    cur.execute(f"INSERT INTO big SELECT seq, seq * 7, CONCAT('row-', seq) FROM seq_1_to_{args.rows}")

            def blob_inserts() -> None:
                with conn.cursor() as cur:
                    # REPEAT of a per-row MD5: 32 bytes x blob_bytes/32, built by the server (no 16 MB packets
                    # from the client).
                    for i in range(1, args.blobs + 1):
                        cur.execute("INSERT INTO blobs VALUES (%s, 0, REPEAT(MD5(%s), %s))", (i, i, blob_bytes // 32))

            def blob_updates() -> None:
                with conn.cursor() as cur:
                    # A small column changes; the full row images (before and after) carry the BLOB twice.
                    for i in range(1, args.blob_updates + 1):
                        cur.execute("UPDATE blobs SET version = 1 WHERE id = %s", (i,))

            phases.append(measure("one_transaction", proc.pid, sampler, reader, big, args.rows,
                                  one_big_transaction, args.timeout))
            phases.append(measure("blob_inserts", proc.pid, sampler, reader, blobs, args.blobs,
                                  blob_inserts, args.timeout))
            if args.blob_updates:
                phases.append(measure("blob_updates", proc.pid, sampler, reader, blobs,
                                      args.blobs + args.blob_updates, blob_updates, args.timeout))
            conn.close()
        finally:
            reader.stop_requested.set()
            rc = proc.stop()
            if reader.is_alive():
                reader.join(10)
        if rc != 0:
            print(f"connector exit code {rc}:\n{proc.log_tail()}", flush=True)
    return report(phases, reader, args)


def report(phases: list[dict[str, Any]], reader: Counting, args: argparse.Namespace) -> int:
    duplicates = sum(n - 1 for n in reader.seen.values() if n > 1)
    complete = all(p["records"] == p["expected"] for p in phases) and len(phases) == 2 + bool(args.blob_updates)
    summary = {"rows": args.rows, "blobs": args.blobs, "blob_updates": args.blob_updates, "blob_mb": args.blob_mb,
               **{f"{p['phase']}_rss_mb_peak": p["rss_mb_peak"] for p in phases},
               **{f"{p['phase']}_records": p["records"] for p in phases},
               "rss_mb_peak": max((p["rss_mb_peak"] for p in phases), default=None),
               "duplicates": duplicates, "bad_blobs": reader.bad_blobs,
               "exactly_once": complete and duplicates == 0 and reader.bad_blobs == 0,
               "under_200_mb": all(p["rss_mb_peak"] < 200 for p in phases),
               "load1": os.getloadavg()[0]}
    print(json.dumps(summary), flush=True)
    return 0 if summary["exactly_once"] else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000, help="row changes of the one big transaction")
    parser.add_argument("--blobs", type=int, default=24, help="rows with a BLOB, inserted one per transaction")
    parser.add_argument("--blob-updates", type=int, default=8, help="updates of BLOB rows (images hold it twice)")
    parser.add_argument("--blob-mb", type=int, default=16, help="size of each BLOB, MB")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds to wait for a phase's records")
    parser.add_argument("--port-base", type=int, default=None,
                        help="MariaDB on this port, Tansu on +1 (default: free ports)")
    parser.add_argument("--workdir", type=Path, default=None, help="kept after the run (default: a temp dir)")
    args = parser.parse_args()

    return in_workdir("bench-memory-", args.workdir, lambda work: run(work, args))

if __name__ == "__main__":
    sys.exit(main())
