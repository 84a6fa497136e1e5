"""Profile of the spark_sink decode and apply steps, each timed in isolation.

    .venv/bin/python bench/spark_profile.py [--events 100000] [--keys 20000] [--steps read,split,...]
        [--apply-parts decode,window,...]

Same broker, records and session settings as ``bench/spark_apply.py``; prints one line per
step (seconds, events/s, ratio to the read floor of this run), to find where the time goes
before changing anything. Steps: see ``steps``.

``--apply-parts`` breaks ``apply_changes`` down (see ``apply_parts``): each part runs on the same
cached and decoded split read, once untimed, then timed alone, what it needs prepared untimed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Iterator

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from spark_apply import broker_session, measure  # noqa: E402
from spark_cpu import SparkCpu  # noqa: E402


def read_split(spark, raw: Callable):
    """What the mirror reads: values split by the Python source."""
    from spark_sink import read_kafka
    return read_kafka(spark, raw.bootstrap, topics=[raw.topic], streaming=False, split_values="json")


def steps(spark, raw: Callable, work: Path) -> dict[str, Callable[[], object]]:
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
        return read_split(spark, raw)

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


# The parts of apply_changes → DeltaTarget after the decode step, in its order: the last change per key
# (window sorts) filling the `latest` cache during the stats job, toArrow of the merged rows from that
# cache, then delta-rs's merge in the driver; plus variants to set against them.
APPLY_PARTS = ("decode", "window", "cache_stats", "stats", "to_arrow", "window_to_arrow", "merge")


def apply_parts(spark, split_read: Callable, work: Path) -> dict[str, Callable[[], contextlib.AbstractContextManager]]:
    """Per part: a context manager that prepares what the part needs (untimed) and yields the part."""
    from pyspark.sql import functions as F

    from spark_sink import DecodeOptions, DeltaTarget, TimeMode, decode_split
    from spark_sink.applier import _COUNT, batch_stats, key_fields
    from spark_sink.ordering import latest_per_key
    from spark_sink.reader import discover_batch
    options = DecodeOptions(time_mode=TimeMode.MICROS)

    @contextlib.contextmanager
    def decoded() -> Iterator[tuple]:
        split = split_read().persist()
        try:
            discovered = discover_batch(split, options)  # fills the split cache, as in apply_changes
            (topic, changes), = decode_split(split, options, discovered.versions).items()
            keys = key_fields(discovered.keys[topic], topic, options)
            yield changes, keys
        finally:
            split.unpersist()

    def rows_of(latest):  # what the applier hands the target when the batch has no TRUNCATE
        return latest.filter(F.col("__op") != "t").drop(_COUNT, "__topic")

    @contextlib.contextmanager
    def on_latest(cached: bool, part: Callable) -> Iterator[Callable[[], object]]:
        with decoded() as (changes, keys):
            latest = latest_per_key(changes, keys, count_as=_COUNT)
            if cached:
                latest = latest.persist()
                batch_stats(latest)
            try:
                yield lambda: part(latest, keys)
            finally:
                latest.unpersist()

    def noop(df) -> None:
        df.write.format("noop").mode("overwrite").save()

    @contextlib.contextmanager
    def decode_only() -> Iterator[Callable[[], object]]:
        with decoded() as (changes, _):
            yield lambda: noop(changes)

    @contextlib.contextmanager
    def cache_stats() -> Iterator[Callable[[], object]]:
        with decoded() as (changes, keys):
            def run() -> None:
                latest = latest_per_key(changes, keys, count_as=_COUNT).persist()
                batch_stats(latest)
                latest.unpersist()
            yield run

    @contextlib.contextmanager
    def merge() -> Iterator[Callable[[], object]]:
        with on_latest(True, lambda latest, keys: (rows_of(latest).toArrow(), keys)) as collect:
            data, keys = collect()
        yield lambda: DeltaTarget(work / f"m{time.time_ns()}").merge(data, keys, truncate=False, batch_id=None,
                                                                       soft_delete=False)

    return {
        "decode": decode_only,  # the decoded changes into noop (the end of the decode step)
        "window": lambda: on_latest(False, lambda latest, _: noop(latest)),  # + last change per key, no cache
        "cache_stats": cache_stats,  # + the `latest` cache filled by the stats job (apply's first job)
        "stats": lambda: on_latest(True, lambda latest, _: batch_stats(latest)),  # the stats job on a filled cache
        "to_arrow": lambda: on_latest(True, lambda latest, _: rows_of(latest).toArrow()),  # from the filled cache
        "window_to_arrow": lambda: on_latest(False, lambda latest, _: rows_of(latest).toArrow()),  # no cache
        "merge": merge,  # delta-rs merge of the Arrow rows into a new table (the driver)
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--keys", type=int, default=20_000)
    ap.add_argument("--steps",
                    default="read,read_values,split,split_cache,discover,decode_cached,decode_uncached,apply")
    ap.add_argument("--apply-parts", help=f"after the steps, these parts of apply_changes: {','.join(APPLY_PARTS)}")
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
            if args.apply_parts:
                parts = apply_parts(spark, lambda: read_split(spark, raw), work)
                for name in args.apply_parts.split(","):
                    with parts[name]() as part:
                        part()  # warm-up: the first plan of its kind pays code generation and JIT
                        measure(f"apply part: {name}", args.events, part, sampler)
            print(json.dumps({"load1": round(os.getloadavg()[0], 2)}))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
