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
import re
import sys
from dataclasses import replace
from functools import partial
from enum import StrEnum
from typing import Callable, Mapping, Sequence

from pyspark.errors import StreamingQueryException
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.streaming import StreamingQuery

from spark_sink.applier import apply_changes
from spark_sink.ddl_schema import schema_change_payloads
from spark_sink.evolution import SchemaEvolution, TableDdl, table_ddls
from spark_sink.reader import DecodeOptions, history_schemas, read_kafka
from spark_sink.registry import RegistryConfig
from spark_sink.semantic_types import TimeMode
from spark_sink.session import SHUFFLE_PARTITIONS, mirror_session
from spark_sink.history import HistoryTarget
from spark_sink.kafka_source import read_values
from spark_sink.maintenance import Maintenance, maintain
from spark_sink.targets import DeltaTarget, FanOut, ParquetTarget, SparkDeltaTarget, Target
from spark_sink.transactions import PENDING_DIR, CommitLog, TransactionGate
from spark_sink.wire import ValueFormat

__all__ = ["main", "TargetFormat", "History", "topic_path", "target_factory", "build_parser"]

logger = logging.getLogger("spark_sink.mirror")
# Restarts are exact (from the checkpoint) and a failed start costs Spark's 10 s: at load 17 on 2 cores three
# attempts in a row missed it (a worker's imports alone took seconds), so allow more.
WORKER_START_ATTEMPTS = 8


class TargetFormat(StrEnum):
    DELTA = "delta"
    PARQUET = "parquet"
    SPARK_DELTA = "spark-delta"
    ICEBERG = "iceberg"


class History(StrEnum):
    BESIDE = "beside"
    ONLY = "only"


HISTORY_DIR = "_history"


def target_factory(fmt: TargetFormat, root: str, history: History | None,
                   catalog: Mapping[str, str] | None = None) -> Callable[[str], Target]:
    """topic → its target: the current-state table, its history (``<root>/_history/<db>/<table>``), or both.
    Iceberg: the table ``<db>.<table>`` of the pyiceberg catalog `catalog` (default: SQLite under `root`)."""
    if fmt is TargetFormat.ICEBERG:
        if history is not None:
            raise SystemExit("--history is written with deltalake: it needs --format delta, not iceberg")
        from spark_sink.iceberg import IcebergTarget, local_catalog
        if not catalog:
            os.makedirs(root, exist_ok=True)  # SQLite creates its file, not the directory
        properties = dict(catalog or local_catalog(os.path.abspath(root)))
        return lambda topic: IcebergTarget(properties, ".".join(topic.split(".")[-2:]))
    current = _TARGETS[fmt]
    if history is None:
        return lambda topic: current(topic_path(root, topic))
    if fmt is not TargetFormat.DELTA:
        raise SystemExit(f"--history is written with deltalake: it needs --format delta, not {fmt}")

    def both(topic: str) -> Target:
        past = HistoryTarget(topic_path(os.path.join(root, HISTORY_DIR), topic))
        return past if history is History.ONLY else FanOut(current(topic_path(root, topic)), past)
    return both


def target_paths(root: str, topic: str, history: History | None) -> list[str]:
    """The tables the mirror writes for `topic`."""
    current = [] if history is History.ONLY else [topic_path(root, topic)]
    return current + ([topic_path(os.path.join(root, HISTORY_DIR), topic)] if history else [])


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
    p.add_argument("--iceberg-catalog", action="append", default=[], metavar="KEY=VALUE",
                   help="with --format iceberg: a pyiceberg catalog property (repeatable), e.g. type=rest, "
                        "uri=https://catalog:8181; default: type=sql, uri=sqlite:///<target>/_catalog.db, "
                        "warehouse=file://<target>. Each topic <prefix>.<db>.<table> goes to table <db>.<table>")
    p.add_argument("--value-format", type=ValueFormat, default=ValueFormat.JSON, choices=list(ValueFormat))
    p.add_argument("--schema-registry-url", help="avro: the registry the AvroConverter wrote to")
    p.add_argument("--schema-registry-option", action="append", default=[], metavar="KEY=VALUE",
                   help="avro: registry option with AvroConverter's name, e.g. basic.auth.user.info=u:p, "
                        "schema.registry.ssl.truststore.location=ca.pem (repeatable)")
    p.add_argument("--schema-change-topic",
                   help="the schema-change topic (= topic.prefix): json-schemaless takes the row schemas from it "
                        "(required), --schema-evolution the DDL (default: the change topics' prefix)")
    p.add_argument("--history", nargs="?", const=History.BESIDE, type=History, choices=list(History),
                   help="keep every version of each row (SCD type 2: __valid_from/__valid_to/__current) in "
                        "<target>/_history/<db>/<table>, beside the current-state table (default) or only")
    p.add_argument("--schema-evolution", type=SchemaEvolution, default=SchemaEvolution.LENIENT,
                   choices=list(SchemaEvolution),
                   help="when a source table's schema changes: evolve (add, drop, rename, widen as the source), "
                        "lenient (add and widen; dropped columns stay), ignore (keep the first columns), fail "
                        "(stop with the DDL and its position). Renames and DDL come from the schema-change topic "
                        "(--schema-change-topic, default: the change topics' prefix)")
    p.add_argument("--optimize-every", type=int, default=0, metavar="N",
                   help="compact each Delta table a batch touched after every N-th batch (0: never)")
    p.add_argument("--vacuum-retention", type=float, metavar="HOURS",
                   help="with --optimize-every: also delete files unreferenced for HOURS (Delta VACUUM)")
    p.add_argument("--transaction-topic", metavar="TOPIC",
                   help="transaction-consistent tables: apply only whole source transactions, in commit order, "
                        "holding back a transaction until its END and all its events are read; TOPIC is the "
                        "connector's transaction topic (<topic.prefix>.transaction; provide.transaction.metadata="
                        "true). Each batch's commit point is a row per table in <target>/_transactions")
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
    if args.iceberg_catalog and args.format is not TargetFormat.ICEBERG:
        raise SystemExit("--iceberg-catalog goes with --format iceberg")
    make_target = target_factory(args.format, args.target, args.history,
                                 _pairs(args.iceberg_catalog, "--iceberg-catalog") or None)
    maintenance = Maintenance(args.optimize_every, args.vacuum_retention)
    if args.vacuum_retention is not None and not args.optimize_every:
        raise SystemExit("--vacuum-retention runs with the compaction: give --optimize-every N too "
                         "(or run python -m spark_sink.maintenance)")
    if args.optimize_every and args.format is not TargetFormat.DELTA:
        raise SystemExit(f"--optimize-every needs --format delta ({args.format} keeps its own files)")
    if args.schema_evolution is not SchemaEvolution.LENIENT and args.format is not TargetFormat.DELTA:
        raise SystemExit(f"--schema-evolution {args.schema_evolution} needs --format delta (the others are lenient)")
    kafka_options = _pairs(args.kafka_option, "--kafka-option")
    gate = commits = None
    topics_pattern = args.topics_pattern
    if args.transaction_topic:
        if args.format is not TargetFormat.DELTA:
            raise SystemExit(f"--transaction-topic needs --format delta (its commit log is a Delta table), "
                             f"not {args.format}")
        gate = TransactionGate(args.transaction_topic, args.topics_pattern, os.path.join(args.checkpoint, PENDING_DIR))
        commits = CommitLog(args.target)
        topics_pattern = gate.subscription(args.topics_pattern)

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

    # The DDL tells renames from drops, and fail quotes it; read per batch (DDL may have happened since).
    ddls = None if args.schema_evolution is SchemaEvolution.LENIENT else \
        partial(schema_ddls, args.bootstrap_servers, args.schema_change_topic, kafka_options=kafka_options)

    def apply(batch: DataFrame, batch_id: int) -> None:
        options = decode
        if args.value_format is ValueFormat.JSON_SCHEMALESS:  # re-read: DDL may have happened since
            options = replace(decode, schemas=history_schemas(batch.sparkSession, args.bootstrap_servers,
                                                              args.schema_change_topic,
                                                              kafka_options=kafka_options))
        admitted = gate.admit(batch, batch_id) if gate else None
        try:
            results = apply_changes(admitted.ready if admitted else batch, make_target, batch_id=batch_id,
                                    soft_delete=args.soft_delete, decode=options, evolution=args.schema_evolution,
                                    ddls=ddls)
            if maintenance.due(batch_id):
                for r in results:
                    for path in target_paths(args.target, r.topic, args.history):
                        maintain(path, maintenance.vacuum_retention_hours)
            if admitted and commits:  # after every table of the batch: the batch's commit point
                touched = [p for r in results for p in target_paths(args.target, r.topic, args.history)]
                point = commits.record(batch_id, touched, admitted)
                if point:
                    logger.info("batch %d: commit point of %d tables after %d whole transactions (last %s), "
                                "%d held back", batch_id, len(point.versions), point.transactions,
                                point.last_transaction, point.held_transactions)
        finally:
            if admitted:
                admitted.release()
        for r in results:
            logger.info("batch %d %s: %d changes, %d applied%s%s", batch_id, r.topic, r.changes, r.applied,
                        ", truncated" if r.truncated else "", ", already applied" if r.skipped else "")

    def start() -> StreamingQuery:
        stream = read_kafka(spark, args.bootstrap_servers, topic_pattern=topics_pattern,
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
            refused = SCHEMA_REFUSAL.search(str(failure))
            if refused:  # --schema-evolution fail: one line, exit 2 (fix and start again)
                logger.error("%s", refused.group(0))
                return 2
            if attempt == WORKER_START_ATTEMPTS or not worker_start_timed_out(failure):
                raise
            # Restarting from the checkpoint is exact: batches are applied idempotently by batch id.
            logger.warning("the streaming query stopped because a Spark Python worker did not connect back within "
                           "Spark's fixed 10 s (a loaded host); restarting it from checkpoint %s (attempt %d of %d)",
                           args.checkpoint, attempt + 1, WORKER_START_ATTEMPTS)
    return 0


SCHEMA_REFUSAL = re.compile(r"schema change of \S+ refused .*?into a new target")


def schema_ddls(bootstrap_servers: str, schema_change_topic: str | None, topics: Sequence[str],
                kafka_options: dict[str, str]) -> dict[str, list[TableDdl]]:
    """The DDL per change topic from the schema-change topic (``<prefix>`` of ``<prefix>.<db>.<table>``, Debezium's
    name, unless given). It holds one record per DDL: read whole, per batch, as ``history_schemas`` does."""
    prefixes = {schema_change_topic} if schema_change_topic else \
        {t.rsplit(".", 2)[0] for t in topics if t.count(".") >= 2}
    out: dict[str, list[TableDdl]] = {}
    for prefix in sorted(prefixes):
        out.update(table_ddls(schema_change_payloads(read_values(bootstrap_servers, prefix, kafka_options)), prefix))
    return out


def worker_start_timed_out(failure: BaseException) -> bool:
    """Spark gives a Python data-source worker a fixed 10 s (not configurable in Spark 4) to start and connect back;
    on a loaded host it can miss that, and the query fails although nothing is wrong with the data."""
    return "Python worker failed to connect back" in str(failure)

if __name__ == "__main__":
    sys.exit(main())
