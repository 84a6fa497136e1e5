"""Transaction-consistent tables: apply only whole source transactions, as a prefix of the source's commit order.

With ``provide.transaction.metadata=true`` the connector writes a BEGIN and an END record per source transaction
to ``<topic.prefix>.transaction`` (END: the transaction's id and its event count per table) and puts
``transaction.{id, data_collection_order}`` in every change it made. Per micro-batch (``TransactionGate.admit``):

1. the batch's records plus the records held back by the previous batch (``<checkpoint>/transactions_pending``);
2. transactions in END order (the transaction topic's order): one is *complete* when, for every table of it that
   the mirror mirrors, the distinct ``data_collection_order`` values seen equal the END's count for that table;
   the complete ones up to the first incomplete one are applied, every later one is held back with it (so the
   tables show the source at a transaction boundary, not a later transaction without an earlier one);
3. records without a transaction (snapshot rows, TRUNCATE) are applied unless written (Kafka record time) at or
   after the first held-back record: a TRUNCATE after a held transaction must not empty the table before it;
4. what is held is written back, its schema text on every row, as the pending state of this batch id (a Delta
   table: one overwrite commit per batch with transaction id ``(app_id, batch_id)``; a re-run batch reads the
   version before its own commit, so it admits the same records again).

Delta has no multi-table transactions: each table of a batch commits on its own. The commit point is
``CommitLog``: after every table of the batch (and its history) is committed, one append to
``<target>/_transactions`` lists every mirrored table with its Delta version. Reading each table at the versions
of one batch gives a state of the source at a transaction boundary; ``commit_point`` returns the newest.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from spark_sink.kafka_source import _SPLIT_ARROW_SCHEMA, SPLIT_SCHEMA

__all__ = ["TransactionGate", "Admitted", "CommitLog", "CommitPoint", "commit_point", "commit_points", "COMMIT_LOG_DIR",
           "PENDING_DIR"]

logger = logging.getLogger(__name__)

COMMIT_LOG_DIR = "_transactions"
PENDING_DIR = "transactions_pending"

# One parse of a body gives both kinds of record: transaction-topic payloads (status, id, counts) and change
# events (their transaction block and table).
_BODY = T.StructType([
    T.StructField("status", T.StringType()), T.StructField("id", T.StringType()),
    T.StructField("ts_ms", T.LongType()),
    T.StructField("data_collections", T.ArrayType(T.StructType([
        T.StructField("data_collection", T.StringType()), T.StructField("event_count", T.LongType())]))),
    T.StructField("transaction", T.StructType([
        T.StructField("id", T.StringType()), T.StructField("data_collection_order", T.LongType())])),
    T.StructField("source", T.StructType([
        T.StructField("db", T.StringType()), T.StructField("table", T.StringType())])),
])
_TXID, _MICROS = "__txid", "__micros"


@dataclass
class Admitted:
    """What a batch may apply (`ready`: split rows) and what it holds back, for the log and the commit log."""

    ready: DataFrame
    transactions: int  # complete transactions applied by this batch
    last_transaction: str | None  # the last of them (END order)
    last_transaction_ts_ms: int | None
    held_transactions: int
    held_records: int
    _cached: list[DataFrame] = field(default_factory=list)

    def release(self) -> None:
        for df in self._cached:
            df.unpersist()


class TransactionGate:
    """Holds back the records of incomplete transactions between micro-batches (see the module docstring).

    `topic` is the connector's transaction topic; `mirrored` tells whether a table (``db.table``, as the END record
    names it) is mirrored, i.e. whether its events are to be waited for."""

    def __init__(self, topic: str, topics_pattern: str, pending_path: str, app_id: str = "binlog-cdc-spark-sink"):
        self.topic = topic
        self.prefix = topic.rsplit(".", 1)[0]
        self._pattern = re.compile(topics_pattern)
        self.pending_path = pending_path
        self.app_id = app_id

    def mirrored(self, collection: str) -> bool:
        return self._pattern.fullmatch(f"{self.prefix}.{collection}") is not None

    def subscription(self, topics_pattern: str) -> str:
        """The mirror's pattern with the transaction topic added."""
        return f"(?:{topics_pattern})|{re.escape(self.topic)}"

    def admit(self, batch: DataFrame, batch_id: int) -> Admitted:
        spark = batch.sparkSession
        rows = batch.select(*SPLIT_SCHEMA.names)
        pending = self._pending_before(spark, batch_id)
        if pending is not None:
            rows = pending.unionByName(rows)
        parsed = F.from_json(F.col("body").cast("string"), _BODY)
        annotated = rows.withColumn("__b", parsed).withColumn(
            _TXID, F.when(F.col("topic") == self.topic, F.col("__b.id")).otherwise(F.col("__b.transaction.id"))
        ).withColumn(_MICROS, F.unix_micros("timestamp")).persist()
        on_topic = F.col("topic") == self.topic
        ends = annotated.filter(on_topic & (F.col("__b.status") == "END")).select(
            _TXID, "partition", "offset", _MICROS, F.col("__b.ts_ms").alias("ts_ms"),
            F.col("__b.data_collections").alias("collections")).collect()
        seen = annotated.filter(~on_topic & F.col(_TXID).isNotNull()).groupBy(
            _TXID, F.concat_ws(".", "__b.source.db", "__b.source.table").alias("collection")).agg(
            F.count_distinct("__b.transaction.data_collection_order").alias("n"), F.min(_MICROS).alias("first")
        ).collect()
        applied, held_ends = self._complete_prefix(ends, {(r[_TXID], r["collection"]): r["n"] for r in seen})
        first_seen: dict[str, int] = {}
        for r in seen:
            first_seen[r[_TXID]] = min(r["first"], first_seen.get(r[_TXID], r["first"]))
        applied_ids = {e[_TXID] for e in applied}
        held_ids = ({t for t in first_seen if t not in applied_ids}) | {e[_TXID] for e in held_ends}
        cutoff = min([e[_MICROS] for e in held_ends] + [first_seen[t] for t in held_ids if t in first_seen],
                     default=None)
        held_df = spark.createDataFrame([(t,) for t in sorted(held_ids)], f"{_TXID} string") \
            .withColumn("__held", F.lit(True))
        flagged = annotated.join(F.broadcast(held_df), _TXID, "left")
        held = F.coalesce(F.col("__held"), F.lit(False))
        late = F.col(_TXID).isNull() & F.lit(cutoff is not None) & (F.col(_MICROS) >= F.lit(cutoff or 0))
        keep = flagged.filter((~on_topic & (held | late)) | (on_topic & (F.col("__b.status") == "END") & held))
        held_records = self._write_pending(keep, annotated, batch_id)
        ready = flagged.filter(~on_topic & ~held & ~late).select(*SPLIT_SCHEMA.names)
        last = applied[-1] if applied else None
        if held_ids:
            logger.info("batch %d: %d whole transactions applied, %d held back (%d records) until their END and "
                        "every event of theirs are read", batch_id, len(applied), len(held_ids), held_records)
        return Admitted(ready, len(applied), last[_TXID] if last else None, last["ts_ms"] if last else None,
                        len(held_ids), held_records, [annotated])

    def _complete_prefix(self, ends: list, counts: Mapping[tuple[str, str], int]) -> tuple[list, list]:
        """ENDs in commit order, split into the complete prefix and the rest (first incomplete one onwards).
        One partition (Debezium creates the topic so): offset order; more: record time, then partition and offset."""
        single = len({e["partition"] for e in ends}) <= 1
        order = (lambda e: e["offset"]) if single else (lambda e: (e[_MICROS], e["partition"], e["offset"]))
        applied: list = []
        held: list = []
        done: set[str] = set()
        for end in sorted(ends, key=order):
            if end[_TXID] in done:  # an END written again (a connector replay): the first one decides
                continue
            done.add(end[_TXID])
            need = {c["data_collection"]: c["event_count"] for c in end["collections"] or ()
                    if self.mirrored(c["data_collection"])}
            if not held and all(counts.get((end[_TXID], c), 0) >= n for c, n in need.items()):
                applied.append(end)
            else:
                held.append(end)
        return applied, held

    # The pending state: one Delta overwrite per batch id, so a re-run batch finds the state before it.
    def _pending_before(self, spark: SparkSession, batch_id: int) -> DataFrame | None:
        from deltalake import DeltaTable
        if not DeltaTable.is_deltatable(self.pending_path):
            return None
        table = DeltaTable(self.pending_path)
        done = table.transaction_version(self.app_id)
        if done is not None and done > batch_id:
            raise RuntimeError(f"{self.pending_path} holds batch {done}, after batch {batch_id} being run: "
                               "the checkpoint and the pending transactions belong to different runs")
        if done == batch_id:  # this batch ran before (a crash after writing its pending state): the one before
            if table.version() == 0:
                return None
            table = DeltaTable(self.pending_path, version=table.version() - 1)
        data = table.to_pyarrow_table()
        return spark.createDataFrame(data, SPLIT_SCHEMA) if data.num_rows else None

    def _write_pending(self, keep: DataFrame, rows: DataFrame, batch_id: int) -> int:
        """Held rows, each with its schema version's text (a later batch may not read the row that carried it)."""
        from deltalake import CommitProperties, Transaction, write_deltalake
        versions = rows.filter(F.col("schema").isNotNull()).groupBy("topic", "schema_key").agg(
            F.first("schema").alias("__schema"))
        filled = keep.select(*SPLIT_SCHEMA.names).join(versions, ["topic", "schema_key"], "left").withColumn(
            "schema", F.coalesce("schema", "__schema")).select(*SPLIT_SCHEMA.names)
        data = filled.toArrow()
        write_deltalake(self.pending_path, data.cast(_SPLIT_ARROW_SCHEMA), mode="overwrite",
                        commit_properties=CommitProperties(app_transactions=[Transaction(self.app_id, batch_id)]))
        return data.num_rows


@dataclass(frozen=True)
class CommitPoint:
    """One batch's commit point: every mirrored table (path relative to the target root) at its version."""

    batch_id: int
    versions: Mapping[str, int]
    transactions: int
    last_transaction: str | None
    held_transactions: int


class CommitLog:
    """``<root>/_transactions``: one Delta append per batch, after all of the batch's tables committed, listing every
    table the mirror wrote with its version (a re-run batch finds its rows and appends nothing)."""

    def __init__(self, root: str, app_id: str = "binlog-cdc-spark-sink") -> None:
        self.root = root
        self.path = os.path.join(root, COMMIT_LOG_DIR)
        self.app_id = app_id
        self._versions: dict[str, int] | None = None  # the last commit point's, read once

    def record(self, batch_id: int, tables: Iterable[str], admitted: Admitted) -> CommitPoint | None:
        from deltalake import CommitProperties, DeltaTable, Transaction, write_deltalake
        if DeltaTable.is_deltatable(self.path):
            done = DeltaTable(self.path).transaction_version(self.app_id)
            if done is not None and done >= batch_id:
                return None  # recorded before a crash
        if self._versions is None:
            previous = commit_point(self.root)
            self._versions = dict(previous.versions) if previous else {}
        versions = self._versions
        for path in tables:
            if DeltaTable.is_deltatable(path):
                versions[os.path.relpath(path, self.root)] = DeltaTable(path).version()
        if not versions:
            return None
        now = dt.datetime.now(dt.timezone.utc)
        n = len(versions)
        data = pa.table({
            "batch_id": pa.array([batch_id] * n, pa.int64()), "table": list(versions),
            "version": pa.array(list(versions.values()), pa.int64()),
            "transactions": pa.array([admitted.transactions] * n, pa.int64()),
            "last_transaction": pa.array([admitted.last_transaction] * n, pa.string()),
            "last_transaction_ts_ms": pa.array([admitted.last_transaction_ts_ms] * n, pa.int64()),
            "held_transactions": pa.array([admitted.held_transactions] * n, pa.int64()),
            "committed_at": pa.array([now] * n, pa.timestamp("us", tz="UTC"))})
        write_deltalake(self.path, data, mode="append",
                        commit_properties=CommitProperties(app_transactions=[Transaction(self.app_id, batch_id)]))
        return CommitPoint(batch_id, versions, admitted.transactions, admitted.last_transaction,
                           admitted.held_transactions)


def commit_points(root: str) -> list[CommitPoint]:
    """Every batch's commit point under `root`, oldest first."""
    from deltalake import DeltaTable
    path = os.path.join(root, COMMIT_LOG_DIR)
    if not DeltaTable.is_deltatable(path):
        return []
    by_batch: dict[int, list[dict[str, Any]]] = {}
    for r in DeltaTable(path).to_pyarrow_table().to_pylist():
        by_batch.setdefault(r["batch_id"], []).append(r)
    return [CommitPoint(b, {r["table"]: r["version"] for r in rows}, rows[0]["transactions"],
                        rows[0]["last_transaction"], rows[0]["held_transactions"])
            for b, rows in sorted(by_batch.items())]


def commit_point(root: str) -> CommitPoint | None:
    """The newest commit point: read each table at its version (``DeltaTable(path, version=v)``,
    ``spark.read.format("delta").option("versionAsOf", v)``) for a transaction-consistent view of all tables."""
    points = commit_points(root)
    return points[-1] if points else None
