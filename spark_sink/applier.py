"""Apply a batch of change events to tables: last change per key wins, by source position.

Contract of ``apply_changes`` (call it from ``foreachBatch``):

* Order is ``ordering``'s: the order the connector wrote the changes to Kafka (per key: the
  offset in its partition), which holds across failovers, re-snapshots and binlog rotations.
  Within a batch only the last change per key is kept.
* ``op`` c/u/r upsert, ``d`` deletes (or, with ``soft_delete``, upserts the last image with
  ``__deleted = true``), ``t`` empties the table; only changes after it in the batch remain.
* Targets store the Kafka and source-position columns (``ordering.STORED_ORDER``) and only let a
  change replace a row whose stored position is not newer, so applying a batch twice, or
  re-reading older records, leaves the table as it was. Columns new in the batch are added.
"""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass, replace
from typing import Callable, Mapping, Sequence

import orjson
import pyarrow.compute as pc
from pyspark.sql import DataFrame, Row
from pyspark.sql import functions as F

from spark_sink.evolution import BatchSchema, SchemaEvolution, TableDdl
from spark_sink.ordering import STORED_ORDER, latest_per_key, later_than, newer_or_equal
from spark_sink.reader import DecodeOptions, decode_split, discover_batch, split_records
from spark_sink.semantic_types import TimeMode
from spark_sink.targets import ArrowMerge, Target, target_for
from spark_sink.wire import ValueFormat

__all__ = ["apply_changes", "ApplyResult", "key_columns", "key_fields"]

logger = logging.getLogger(__name__)

TargetSpec = Target | str | Callable[[str], Target]
# The schema-change topic's DDL per change topic, or a function of the batch's change topics giving it.
DdlSource = Mapping[str, Sequence[TableDdl]] | Callable[[Sequence[str]], Mapping[str, Sequence[TableDdl]]]


@dataclass(frozen=True)
class ApplyResult:
    """What one ``apply_changes`` call did, per topic."""

    topic: str
    changes: int  # change rows of this topic in the batch (tombstones excluded)
    applied: int  # rows merged after keeping the last change per key
    truncated: bool
    skipped: bool = False  # batch_id already applied to this target


def key_columns(raw: DataFrame, topic: str, decode: DecodeOptions) -> list[str]:
    """The Kafka key's field names for `topic` (Debezium keys = primary key or message.key.columns)."""
    row = raw.filter((F.col("topic") == topic) & F.col("key").isNotNull()).select("key").limit(1).collect()
    if not row:
        raise ValueError(f"topic {topic}: records have no key (table without a primary key?); "
                         "pass keys=[...] to apply_changes")
    return key_fields(bytes(row[0]["key"]), topic, decode)


def key_fields(key: bytes, topic: str, decode: DecodeOptions) -> list[str]:
    """The field names of one Kafka key of `topic`, as written by the connector."""
    fmt = ValueFormat(decode.value_format)
    if fmt is ValueFormat.AVRO:
        wire = decode.wire()
        schema = wire.connect_schema(topic, *wire.split(topic, key)[:2])
        return [f.name for f in schema.fields]
    parsed = orjson.loads(key)
    payload = parsed["payload"] if fmt is ValueFormat.JSON else parsed
    return list(payload)


def _resolve_keys(keys: Sequence[str] | Mapping[str, Sequence[str]] | None, raw: DataFrame | None,
                  topic: str, decode: DecodeOptions, sample: bytes | None = None) -> list[str]:
    if isinstance(keys, Mapping):
        keys = keys.get(topic)
    if keys:
        return list(keys)
    if sample is not None:  # found by the discovery job: no job of its own
        return key_fields(sample, topic, decode)
    if raw is None:
        raise ValueError(f"topic {topic}: pass keys= when applying already-decoded changes")
    return key_columns(raw, topic, decode)


def _resolve_target(target: TargetSpec, topic: str, topics: int) -> Target:
    if isinstance(target, str):
        if topics > 1:
            raise ValueError(f"one target path for {topics} topics: pass a callable topic -> Target")
        return target_for(target)
    if callable(target) and not hasattr(target, "apply"):
        return target(topic)
    if topics > 1:
        raise ValueError(f"one target for {topics} topics: pass a callable topic -> Target")
    return target  # type: ignore[return-value]


def apply_changes(df: DataFrame, target: TargetSpec, keys: Sequence[str] | Mapping[str, Sequence[str]] | None = None,
                  *, batch_id: int | None = None, soft_delete: bool = False,
                  decode: DecodeOptions = DecodeOptions(time_mode=TimeMode.MICROS),
                  evolution: SchemaEvolution = SchemaEvolution.LENIENT,
                  ddls: DdlSource | None = None) -> list[ApplyResult]:
    """Apply a batch of changes to `target` (a path → Delta via ``deltalake``, a ``Target``,
    or ``topic -> Target`` for several topics). `df` is raw Kafka rows (as given to
    ``foreachBatch``), split rows (``read_kafka(split_values=...)``, the faster input) or rows
    already decoded by ``read_changes``/``decode_batch``.
    Pass the ``foreachBatch`` batch id as `batch_id` to skip batches a target already has.
    `evolution` is what a table does when its source's schema changed (``evolution``; `ddls`, the
    schema-change topic's DDL per topic, tells renames from drops and is quoted by ``fail``)."""
    if decode.time_mode is not TimeMode.MICROS:
        # Delta and Parquet have no interval type; TIME is stored as signed microseconds.
        decode = replace(decode, time_mode=TimeMode.MICROS)
    raw: DataFrame | None = None
    schemas: dict[str, BatchSchema] = {}
    sampled: dict[str, bytes] = {}
    if "__op" in df.columns:
        topics = [r["__topic"] for r in df.select("__topic").distinct().collect()]
        per_topic = {t: df.filter(F.col("__topic") == t) for t in topics}
    else:
        # One pass over Kafka: values split into schema version + body and cached, since
        # versions are discovered before the decoding plan can be built.
        raw = split_records(df, decode).persist()
        # The same job samples a key per topic: the key columns need no lookup job of their own.
        discovered = discover_batch(raw, decode)
        found, sampled = discovered.versions, discovered.keys
        by_topic = (ddls(sorted(found)) if callable(ddls) else ddls) or {}
        schemas = {t: BatchSchema.of(t, evolution, [v for _, v in versions], by_topic.get(t, ()))
                   for t, versions in found.items()}
        per_topic = decode_split(raw, decode, found)
    try:
        results = []
        for topic, changes in sorted(per_topic.items()):
            sink = _resolve_target(target, topic, len(per_topic))
            columns = _resolve_keys(keys, raw, topic, decode, sampled.get(topic))
            results.append(_apply_topic(topic, changes, sink, columns, batch_id, soft_delete, schemas.get(topic)))
        return results
    finally:
        if raw is not None:
            raw.unpersist()


_COUNT = "__changes"  # changes to the row's key in the batch, summed into ApplyResult.changes


def batch_stats(latest: DataFrame) -> Row:
    """One job over the last change per key: ``total`` changes, the last ``truncate`` (its ``STORED_ORDER``, or
    None), and the ``rows`` to merge if there was no truncate."""
    return latest.agg(F.sum(_COUNT).alias("total"), F.max(F.when(
        F.col("__op") == "t", F.struct(*STORED_ORDER))).alias("truncate"),
        F.count(F.when(F.col("__op") != "t", 1)).alias("rows")).collect()[0]


def _apply_topic(topic: str, changes: DataFrame, sink: Target, keys: list[str],
                 batch_id: int | None, soft_delete: bool, schema: BatchSchema | None) -> ApplyResult:
    if batch_id is not None and sink.has_batch(batch_id):
        logger.info("topic %s: batch %s already applied to %s, skipping", topic, batch_id, sink)
        return ApplyResult(topic, 0, 0, False, skipped=True)
    # One pass over the changes: the last change per key, and how many changes each key had.
    # A TRUNCATE has no row image, so its key columns are null: the null key's last change is
    # the batch's last TRUNCATE. A key whose last change precedes it is gone with the
    # truncate; one changed after it keeps its last change: the same rows as taking the last
    # change per key among the changes after the truncate, without a pass to find it first.
    latest = latest_per_key(changes, keys, count_as=_COUNT)
    if isinstance(sink, ArrowMerge):
        total, applied, truncated = _merge_arrow(latest, sink, keys, batch_id, soft_delete, schema)
    else:
        total, applied, truncated = _apply_frame(latest, sink, keys, batch_id, soft_delete, changes, schema)
    logger.info("topic %s: %d changes, %d rows applied%s", topic, total, applied,
                ", table truncated first" if truncated else "")
    return ApplyResult(topic, total, applied, truncated)


def _apply_frame(latest: DataFrame, sink: Target, keys: list[str], batch_id: int | None, soft_delete: bool,
                 changes: DataFrame, schema: BatchSchema | None) -> tuple[int, int, bool]:
    """Targets that take a DataFrame: `latest` is cached by the stats job, then read by the target."""
    latest = latest.persist()
    try:
        stats = batch_stats(latest)
        total, truncate, applied = stats["total"] or 0, stats["truncate"], stats["rows"]
        rows = latest.filter(F.col("__op") != "t")
        if truncate is not None:
            rows = rows.filter(later_than(truncate))
            applied = rows.count()  # only then: a pass less over the batch in the common case
        # The Kafka position stays in the table: the merge guard orders later changes against it.
        rows = rows.drop(_COUNT, "__topic")
        sink.apply(rows, keys, truncate=truncate is not None, batch_id=batch_id, soft_delete=soft_delete,
                   changes=changes, schema=schema)
        return total, applied, truncate is not None
    finally:
        latest.unpersist()


def _merge_arrow(latest: DataFrame, sink: ArrowMerge, keys: list[str], batch_id: int | None, soft_delete: bool,
                 schema: BatchSchema | None) -> tuple[int, int, bool]:
    """Targets that merge Arrow in the driver: `latest` goes to Arrow in one job, counted by the driver (the
    Spark cache and stats job of ``_apply_frame`` cost more JVM CPU than the job itself). Only a batch with a
    TRUNCATE runs a second job, for the rows after it."""
    prepared = sink.prepare(latest.drop("__topic"), schema)  # the Kafka position stays: the merge guard needs it
    data = prepared.toArrow()
    total = pc.sum(data.column(_COUNT)).as_py() or 0
    is_truncate = pc.equal(data.column("__op"), "t")  # a null op is neither a truncate nor a row, as in Spark
    truncates = data.filter(is_truncate).select(list(STORED_ORDER)).to_pylist()
    if truncates:
        last = functools.reduce(lambda a, b: b if newer_or_equal(b, a) else a, truncates)
        data = prepared.filter(F.col("__op") != "t").filter(later_than(last)).toArrow()
    else:
        data = data.filter(pc.invert(is_truncate))
    rows = data.drop_columns([_COUNT])
    sink.merge(rows, keys, truncate=bool(truncates), batch_id=batch_id, soft_delete=soft_delete)
    return total, rows.num_rows, bool(truncates)
