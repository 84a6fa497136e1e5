"""Profile of the spark_sink decode and apply steps, each timed in isolation.

    .venv/bin/python bench/spark_profile.py [--events 100000] [--keys 20000] [--steps read,split,...]

Same broker, records and session settings as ``bench/spark_apply.py``; prints one line per
step (seconds, events/s, ratio to the read floor of this run), to find where the time goes
before changing anything. Steps: see ``STEPS``.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from spark_apply import broker_session, measure  # noqa: E402
from spark_cpu import SparkCpu  # noqa: E402


def steps(spark, raw: Callable, work: Path) -> dict[str, Callable[[], object]]:
    from spark_sink import read_kafka
    from pyspark.sql import functions as F

    from spark_sink import DecodeOptions, DeltaTarget, TimeMode, apply_changes, decode_split, split_records
    from spark_sink.reader import discover_versions
    options = DecodeOptions(time_mode=TimeMode.MICROS)

    def noop(df) -> None:
        df.write.format("noop").mode("overwrite").save()

    def on_cached(make_split, fn):
        def run():
            split = make_split().persist()
            try:
                split.count()
                start = time.perf_counter()
                fn(split)
                print(f"    (on the cached split: {time.perf_counter() - start:.2f}s)")
            finally:
                split.unpersist()
        return run

    def cached(fn):
        return on_cached(lambda: split_records(raw(), options), fn)

    def decode_all(split) -> None:
        for df in decode_split(split, options).values():
            noop(df)

    def split_read():
        return read_kafka(spark, raw.bootstrap, topics=[raw.topic], streaming=False, split_values="json")

    def cached_split_read(fn):
        return on_cached(split_read, fn)

    return {
        "read": lambda: raw().count(),
        "read_split": lambda: split_read().count(),
        "split_read_noop": lambda: noop(split_read()),
        "split_read_cache": lambda: split_read().persist().count(),
        "decode_split_read": cached_split_read(decode_all),
        "discover_split_read": cached_split_read(lambda split: discover_versions(split, options)),
        "decode_split_uncached": lambda: decode_all(split_read()),
        "apply_split_read": lambda: apply_changes(split_read(), DeltaTarget(work / f"t{time.time_ns()}")),
        "read_values": lambda: noop(raw().select("value")),
        "split": lambda: noop(split_records(raw(), options)),
        "split_cache": lambda: split_records(raw(), options).persist().count(),
        "discover": cached(lambda split: discover_versions(split, options)),
        "decode_cached": cached(decode_all),
        "decode_uncached": lambda: decode_all(split_records(raw(), options)),
        "apply": lambda: apply_changes(raw(), DeltaTarget(work / f"t{time.time_ns()}")),
        "op_count": lambda: raw().select(F.get_json_object(F.col("value").cast("string"), "$.payload.op")).count(),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--keys", type=int, default=20_000)
    ap.add_argument("--steps",
                    default="read,read_values,split,split_cache,discover,decode_cached,decode_uncached,apply")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="spark-profile-"))
    try:
        with broker_session(args.events, args.keys) as (spark, raw):
            logging.getLogger("spark_sink").setLevel(logging.WARNING)
            table = steps(spark, raw, work)
            sampler = SparkCpu.of(spark)
            floor = None
            for name in args.steps.split(","):
                step = measure(name, args.events, table[name], sampler)
                cpu = step.cpu.total if step.cpu else step.wall
                floor = floor or (cpu if name == "read" else None)
                if floor:
                    print(f"{'':<42} {floor / cpu:5.2f}x the read's CPU seconds", flush=True)
            print(json.dumps({"load1": round(os.getloadavg()[0], 2)}))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
