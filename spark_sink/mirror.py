"""Mirror every table of a database from its Debezium topics into a lake (spark-submit-able).

    spark-submit [--packages org.apache.spark:spark-sql-kafka-0-10_2.13:<spark>] \\
        -m spark_sink.mirror --bootstrap-servers broker:9092 \\
        --topics-pattern 'dbserver1\\.inventory\\..*' --target /lake/inventory --checkpoint /ckpt/inventory

or ``python -m spark_sink.mirror ...`` (local[*]). Each change topic ``<prefix>.<db>.<table>``
goes to ``<target>/<db>/<table>`` (Delta via deltalake by default, ``--format parquet``, or
``--format spark-delta`` for Delta through Spark MERGE). ``--once`` processes what is there
and stops; otherwise it runs until stopped. Exactly once: Spark's checkpoint fixes every
micro-batch's offsets, and targets skip a batch id they already committed.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from dataclasses import replace
from enum import StrEnum
from typing import Callable, Sequence

from pyspark.errors import StreamingQueryException
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.streaming import StreamingQuery

from spark_sink.applier import apply_changes
from spark_sink.reader import DecodeOptions, history_schemas, read_kafka
from spark_sink.registry import RegistryConfig
from spark_sink.semantic_types import TimeMode
from spark_sink.session import SHUFFLE_PARTITIONS, mirror_session
from spark_sink.targets import DeltaTarget, ParquetTarget, SparkDeltaTarget, Target
from spark_sink.wire import ValueFormat

__all__ = ["main", "TargetFormat", "topic_path", "build_parser"]

logger = logging.getLogger("spark_sink.mirror")
# Restarts are exact (from the checkpoint) and a failed start costs Spark's 10 s: at load 17 on 2 cores three
# attempts in a row missed it (a worker's imports alone took seconds), so allow more.
WORKER_START_ATTEMPTS = 8


class TargetFormat(StrEnum):
    DELTA = "delta"
    PARQUET = "parquet"
    SPARK_DELTA = "spark-delta"


def topic_path(root: str, topic: str) -> str:
    """``<prefix>.<db>.<table>`` → ``<root>/<db>/<table>``."""
    parts = topic.split(".")
    return os.path.join(root, *(parts[-2:] if len(parts) >= 3 else parts))


_TARGETS: dict[TargetFormat, Callable[[str], Target]] = {
    TargetFormat.DELTA: DeltaTarget,
    TargetFormat.PARQUET: ParquetTarget,
    TargetFormat.SPARK_DELTA: lambda path: SparkDeltaTarget(f"delta.`{path}`"),
}


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="spark_sink.mirror", description=__doc__.split("\n")[0])
    p.add_argument("--bootstrap-servers", required=True)
    p.add_argument("--topics-pattern", required=True, help="regex over topic names (fully matched)")
    p.add_argument("--target", required=True, help="root directory/URI of the mirrored tables")
    p.add_argument("--checkpoint", required=True, help="Spark checkpoint directory")
    p.add_argument("--format", type=TargetFormat, default=TargetFormat.DELTA, choices=list(TargetFormat))
    p.add_argument("--value-format", type=ValueFormat, default=ValueFormat.JSON, choices=list(ValueFormat))
    p.add_argument("--schema-registry-url", help="avro: the registry the AvroConverter wrote to")
    p.add_argument("--schema-registry-option", action="append", default=[], metavar="KEY=VALUE",
                   help="avro: registry option with AvroConverter's name, e.g. basic.auth.user.info=u:p, "
                        "schema.registry.ssl.truststore.location=ca.pem (repeatable)")
    p.add_argument("--schema-change-topic",
                   help="json-schemaless: the schema-change topic (= topic.prefix) the row schemas come from")
    p.add_argument("--soft-delete", action="store_true", help="keep deleted rows with __deleted=true")
    p.add_argument("--starting-offsets", default="earliest")
    p.add_argument("--max-offsets-per-trigger", type=int)
    p.add_argument("--trigger-seconds", type=float, default=5.0)
    p.add_argument("--once", action="store_true", help="process what is available in one batch, then stop")
    p.add_argument("--drain", action="store_true",
                   help="process what is available in micro-batches (--max-offsets-per-trigger), then stop")
    p.add_argument("--kafka-option", action="append", default=[], metavar="KEY=VALUE",
                   help="librdkafka / Kafka consumer property (repeatable)")
    p.add_argument("--master", help="Spark master when the mirror starts Spark itself (default local[*]; "
                                    "ignored under spark-submit, which sets its own)")
    p.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                   help="Spark property, as spark-submit's --conf (repeatable); wins over the local-mode "
                        "defaults (spark.sql.shuffle.partitions = cores)")
    return p


def _pairs(values: Sequence[str], flag: str) -> dict[str, str]:
    bad = [v for v in values if "=" not in v]
    if bad:
        raise SystemExit(f"{flag} takes KEY=VALUE, got {bad[0]!r}")
    return dict(v.split("=", 1) for v in values)


def main(argv: Sequence[str] | None = None, spark: SparkSession | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    spark_conf = _pairs(args.conf, "--conf")
    decode = DecodeOptions(value_format=args.value_format, schema_registry_url=args.schema_registry_url,
                           registry_options=_pairs(args.schema_registry_option, "--schema-registry-option"),
                           time_mode=TimeMode.MICROS)
    make_target = _TARGETS[args.format]
    kafka_options = _pairs(args.kafka_option, "--kafka-option")

    if args.value_format is ValueFormat.JSON_SCHEMALESS and not args.schema_change_topic:
        raise SystemExit("--value-format json-schemaless needs --schema-change-topic")
    if args.value_format is ValueFormat.AVRO:
        try:  # refuse a missing URL or a misspelt option now, not in the first batch
            RegistryConfig.parse(decode.registry_settings())
        except ValueError as bad:
            raise SystemExit(f"--value-format avro: {bad} (--schema-registry-url, --schema-registry-option)")
    spark = spark or mirror_session(args.master, spark_conf)
    logger.info("Spark %s, master %s, %s=%s", spark.version, spark.sparkContext.master, SHUFFLE_PARTITIONS,
                spark.conf.get(SHUFFLE_PARTITIONS))

    def apply(batch: DataFrame, batch_id: int) -> None:
        options = decode
        if args.value_format is ValueFormat.JSON_SCHEMALESS:  # re-read: DDL may have happened since
            options = replace(decode, schemas=history_schemas(batch.sparkSession, args.bootstrap_servers,
                                                              args.schema_change_topic,
                                                              kafka_options=kafka_options))
        results = apply_changes(batch, lambda topic: make_target(topic_path(args.target, topic)),
                                batch_id=batch_id, soft_delete=args.soft_delete, decode=options)
        for r in results:
            logger.info("batch %d %s: %d changes, %d applied%s%s", batch_id, r.topic, r.changes, r.applied,
                        ", truncated" if r.truncated else "", ", already applied" if r.skipped else "")

    def start() -> StreamingQuery:
        stream = read_kafka(spark, args.bootstrap_servers, topic_pattern=args.topics_pattern,
                            starting_offsets=args.starting_offsets, split_values=args.value_format,
                            max_offsets_per_trigger=args.max_offsets_per_trigger, kafka_options=kafka_options,
                            registry_options=decode.registry_settings())
        writer = stream.writeStream.option("checkpointLocation", args.checkpoint).foreachBatch(apply)
        if args.once:
            writer = writer.trigger(once=True)
        elif not args.drain:
            writer = writer.trigger(processingTime=f"{args.trigger_seconds} seconds")
        return writer.start()

    for attempt in range(1, WORKER_START_ATTEMPTS + 1):
        query = start()
        try:
            if args.drain:  # Python sources have no Trigger.AvailableNow: drain, then stop
                query.processAllAvailable()
                query.stop()
            query.awaitTermination()
            return 0
        except StreamingQueryException as failure:
            if attempt == WORKER_START_ATTEMPTS or not worker_start_timed_out(failure):
                raise
            # Restarting from the checkpoint is exact: batches are applied idempotently by batch id.
            logger.warning("the streaming query stopped because a Spark Python worker did not connect back within "
                           "Spark's fixed 10 s (a loaded host); restarting it from checkpoint %s (attempt %d of %d)",
                           args.checkpoint, attempt + 1, WORKER_START_ATTEMPTS)
    return 0


def worker_start_timed_out(failure: BaseException) -> bool:
    """Spark gives a Python data-source worker a fixed 10 s (not configurable in Spark 4) to start and connect back;
    on a loaded host it can miss that, and the query fails although nothing is wrong with the data."""
    return "Python worker failed to connect back" in str(failure)

if __name__ == "__main__":
    sys.exit(main())
