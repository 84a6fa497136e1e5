"""Kafka change topics → Spark DataFrames: raw Kafka rows, and typed change rows.

``read_kafka`` uses Spark's JVM Kafka source (``format("kafka")``) when its jars are on the
classpath and the ``binlog_cdc_kafka`` Python data source otherwise; both give the same
columns. ``decode_batch`` turns a batch of raw rows (e.g. a ``foreachBatch`` micro-batch)
into one typed DataFrame per topic, using every schema version present in that batch, so
records written after an ``ALTER TABLE`` decode with their new columns. ``read_changes`` is
the streaming form: a typed streaming DataFrame whose columns are fixed when it starts.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping, Sequence

import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from spark_sink.connect_schema import ConnectField
from spark_sink.decoder import RecordDecoder, TableLayout
from spark_sink.json_decode import decode_json, split_json, union_row
from spark_sink.kafka_source import SOURCE_NAME, SPLIT_SCHEMA, KafkaDataSource
from spark_sink.semantic_types import TimeMode
from spark_sink.registry import HttpSchemaRegistry
from spark_sink.wire import SchemaRegistry, ValueFormat, ValueSplitter, wire_reader

__all__ = ["DecodeOptions", "read_kafka", "split_records", "discover_versions", "discover_batch", "Discovered",
           "decode_split",
           "decode_batch", "decode_with", "read_changes", "history_schemas", "jvm_kafka_available"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class DecodeOptions:
    """How change values are spelled and how TIME columns are typed."""

    value_format: ValueFormat = ValueFormat.JSON
    schema_registry_url: str | None = None
    """Confluent Schema Registry URL(s), required for ``avro``."""
    registry_options: Mapping[str, str] = field(default_factory=dict)
    """More registry options with AvroConverter's names: ``basic.auth.user.info``,
    ``schema.registry.ssl.truststore.location``, ... (``registry.REGISTRY_OPTION_NAMES``)."""
    registry: SchemaRegistry | None = None
    """Alternative to the URL: any object with ``schema(id) -> str`` (picklable)."""
    time_mode: TimeMode = TimeMode.INTERVAL
    schemas: Mapping[str, ConnectField] = field(default_factory=dict)
    """Per topic: row schema for ``json-schemaless`` (see ``ddl_schema.schemas_from_history``)."""

    def registry_settings(self) -> dict[str, str]:
        """The registry options in AvroConverter's names, URL included."""
        url = {"schema.registry.url": self.schema_registry_url} if self.schema_registry_url else {}
        return {**self.registry_options, **url}

    def schema_registry(self) -> SchemaRegistry | None:
        if self.registry is not None:
            return self.registry
        settings = self.registry_settings()
        return HttpSchemaRegistry.from_options(settings) if settings else None

    def wire(self) -> Any:
        return wire_reader(ValueFormat(self.value_format), self.schema_registry(), self.schemas)


def jvm_kafka_available(spark: SparkSession) -> bool:
    """True when Spark's own Kafka source (spark-sql-kafka-0-10) is on the classpath."""
    try:
        spark._jvm.java.lang.Class.forName(  # type: ignore[union-attr]
            "org.apache.spark.sql.kafka010.KafkaSourceProvider")
        return True
    except Exception:  # no JVM gateway (Spark Connect) or class missing: use the Python source
        return False


def read_kafka(spark: SparkSession, bootstrap_servers: str, *, topics: Sequence[str] = (),
               topic_pattern: str | None = None, starting_offsets: str = "earliest",
               ending_offsets: str = "latest", max_offsets_per_trigger: int | None = None,
               kafka_options: Mapping[str, str] | None = None, streaming: bool = True,
               use_jvm: bool | None = None, split_values: ValueFormat | str | None = None,
               registry_options: Mapping[str, str] | None = None) -> DataFrame:
    """Raw Kafka rows (key, value, topic, partition, offset, timestamp, timestampType, headers).

    With `split_values` (the topics' value format), split rows (``SPLIT_SCHEMA``) instead, as
    ``split_records`` makes them: the Python source splits while reading (cheaper than any
    later pass: the JVM never sees the repeated schema text), the JVM source by expressions.
    Avro needs `registry_options` (``schema.registry.url`` and AvroConverter's other names)."""
    registry = dict(registry_options or {})
    options: dict[str, str] = {"kafka.bootstrap.servers": bootstrap_servers,
                               "kafka.isolation.level": "read_committed",
                               "startingOffsets": starting_offsets}
    if topics:
        options["subscribe"] = ",".join(topics)
    if topic_pattern:
        options["subscribePattern"] = topic_pattern
    if max_offsets_per_trigger and streaming:
        options["maxOffsetsPerTrigger"] = str(max_offsets_per_trigger)
    if not streaming:
        options["endingOffsets"] = ending_offsets
    options.update({f"kafka.{k}": v for k, v in (kafka_options or {}).items()})
    jvm = jvm_kafka_available(spark) if use_jvm is None else use_jvm
    if jvm:
        options["includeHeaders"] = "true"
        fmt = "kafka"
    else:
        spark.dataSource.register(KafkaDataSource)
        fmt = SOURCE_NAME
        if split_values:
            options["splitValues"] = ValueFormat(split_values).value
            if ValueFormat(split_values) is ValueFormat.AVRO:
                options.update(registry)
    reader = spark.readStream if streaming else spark.read
    df = reader.format(fmt).options(**options).load()
    # Spark's Kafka source names its pattern option "subscribePattern" too but has no
    # read_committed default; both give the same columns.
    if split_values and jvm:
        return split_records(df, DecodeOptions(value_format=ValueFormat(split_values), registry_options=registry))
    return df


def _split_fn(fmt: ValueFormat, registry: SchemaRegistry | None):
    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        split = ValueSplitter(fmt, registry)  # schema text on a version's first record per task only
        for batch in batches:
            keys, schemas, bodies = [], [], []
            for value, topic in zip(batch.column("value").to_pylist(), batch.column("topic").to_pylist()):
                key, text, body = split(topic, value) if value is not None else (None, None, None)
                keys.append(key), schemas.append(text), bodies.append(body)
            yield pa.RecordBatch.from_arrays(
                [batch.column("key"), batch.column("topic"), batch.column("partition"), batch.column("offset"),
                 batch.column("timestamp"), pa.array(keys, pa.binary()), pa.array(schemas, pa.binary()),
                 pa.array(bodies, pa.binary())], names=SPLIT_SCHEMA.names)
    return run


def split_records(df: DataFrame, decode: DecodeOptions = DecodeOptions()) -> DataFrame:
    """Raw Kafka rows → (key, topic, partition, offset, timestamp, schema_key, schema, body):
    the value split into its schema version and body, one pass, no decoding yet. Rows the
    Python source already split (``read_kafka(split_values=...)``) pass through. Avro bodies
    come out as JSON payloads (``wire.ValueSplitter``), so ``decode_json`` decodes every format."""
    if "body" in df.columns and "schema_key" in df.columns:
        return df.select(*SPLIT_SCHEMA.names)
    raw = df.select("key", "value", "topic", "partition", "offset", "timestamp")
    fmt = ValueFormat(decode.value_format)
    if fmt is not ValueFormat.AVRO:  # JSON splits with Spark expressions, no Python worker
        return split_json(raw, with_schema=fmt is ValueFormat.JSON)
    registry = decode.schema_registry()
    if registry is None:
        raise ValueError("value_format='avro' needs schema_registry_url (or a SchemaRegistry)")
    return raw.mapInArrow(_split_fn(fmt, registry), SPLIT_SCHEMA)


def discover_versions(split: DataFrame, decode: DecodeOptions) -> dict[str, list[tuple[bytes, ConnectField]]]:
    """Schema versions per change topic in a batch of split rows, oldest first."""
    return discover_batch(split, decode).versions


@dataclass(frozen=True)
class Discovered:
    """What the applier needs to know of a batch before it can plan the decoding (``discover_batch``)."""

    versions: dict[str, list[tuple[bytes, ConnectField]]]
    """Schema versions per change topic, oldest first."""
    keys: dict[str, bytes]
    """Per change topic, the Kafka key of one of its records (its fields are the key columns); absent if
    none of the records that carry a schema text had a key."""


def discover_batch(split: DataFrame, decode: DecodeOptions) -> Discovered:
    """Schema versions per change topic, and a sample Kafka key per topic, in one job over split rows."""
    found = (split.filter(F.col("schema").isNotNull())
             .groupBy("topic", "schema_key")
             .agg(F.min(F.struct("offset", "partition")).alias("first"), F.first("schema").alias("schema"),
                  F.first("key", ignorenulls=True).alias("key"))
             .collect())
    wire = decode.wire()
    versions: dict[str, list[tuple[int, bytes, ConnectField]]] = {}
    keys: dict[str, bytes] = {}
    for row in found:
        key = bytes(row.schema_key)
        try:
            schema = wire.connect_schema(row.topic, key, bytes(row.schema) or None)
        except KeyError as missing:  # schemaless topic without a schema: not a table we mirror
            logger.warning("skipping topic %s: %s", row.topic, missing)
            continue
        if schema.child("op") is None and decode.value_format != ValueFormat.JSON_SCHEMALESS:
            continue  # transaction metadata, schema changes, heartbeats
        versions.setdefault(row.topic, []).append((row.first.offset, key, schema))
        if row.key is not None:
            keys.setdefault(row.topic, bytes(row.key))
    return Discovered({t: [(k, s) for _, k, s in sorted(v, key=lambda x: x[0])] for t, v in versions.items()}, keys)


def _timestamps(batch: pa.RecordBatch) -> list:
    return batch.column("timestamp").cast(pa.int64()).to_pylist()


def _decode_raw_fn(decode: DecodeOptions, layout: TableLayout, known: dict[bytes, ConnectField]):
    names = layout.spark_schema().names

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        decoder = RecordDecoder(decode.wire(), layout, decode.time_mode, known)
        for batch in batches:
            cols = [batch.column(n).to_pylist() for n in ("value", "topic", "partition", "offset")]
            yield decoder.to_arrow(decoder.decode_raw(zip(*cols, _timestamps(batch))), names)
    return run


def decode_split(split: DataFrame, decode: DecodeOptions = DecodeOptions(),
                 found: Mapping[str, list[tuple[bytes, ConnectField]]] | None = None) -> dict[str, DataFrame]:
    """One typed DataFrame per change topic from split rows (``split_records``); cache
    `split` first if it is used more than once, it is read once per topic. `found`: the
    batch's ``discover_versions`` if the caller has them already."""
    out = {}
    for topic, versions in (discover_versions(split, decode) if found is None else found).items():
        layout = TableLayout.of([s for _, s in versions], decode.time_mode)
        rows = split.filter(F.col("topic") == topic)
        out[topic] = decode_json(rows, versions, layout, decode.time_mode)
    return out


def decode_batch(df: DataFrame, decode: DecodeOptions = DecodeOptions()) -> dict[str, DataFrame]:
    """One typed DataFrame per change topic in a batch of raw Kafka rows, covering every
    schema version in the batch."""
    return decode_split(split_records(df, decode), decode)


def decode_with(df: DataFrame, layout: TableLayout, decode: DecodeOptions,
                known: dict[bytes, ConnectField] | None = None,
                versions: Sequence[ConnectField] = ()) -> DataFrame:
    """Decode raw rows into a fixed layout (columns a record lacks are null, columns the
    layout lacks are dropped)."""
    if versions:
        return decode_json(split_records(df, decode), [(None, union_row(versions))], layout, decode.time_mode)
    raw = df.select("value", "topic", "partition", "offset", "timestamp")
    return raw.mapInArrow(_decode_raw_fn(decode, layout, dict(known or {})), layout.spark_schema())


def read_changes(spark: SparkSession, bootstrap_servers: str, *, topics: Sequence[str] = (),
                 topic_pattern: str | None = None, decode: DecodeOptions = DecodeOptions(),
                 versions: Sequence[ConnectField] | None = None, **read_options: Any) -> DataFrame:
    """Streaming DataFrame of typed change rows.

    Its columns are the union of ``versions`` (Connect envelope or row schemas) or, when not
    given, of every schema version already in the topics (read once, in batch, at start).
    Columns added by a later ALTER are not in this fixed schema: restart the query to pick
    them up, or use ``apply_changes`` on raw micro-batches, which re-plans every batch.
    """
    if versions is None:
        existing = read_kafka(spark, bootstrap_servers, topics=topics, topic_pattern=topic_pattern,
                              streaming=False, kafka_options=read_options.get("kafka_options"))
        found = discover_versions(split_records(existing, decode), decode)
        versions = [v for vs in found.values() for _, v in vs] or list(decode.schemas.values())
        if not versions:
            raise ValueError("read_changes: no change records in the topics yet and no versions= "
                             "given; pass the table's schema or start after the first change")
    layout = TableLayout.of(list(versions), decode.time_mode)
    stream = read_kafka(spark, bootstrap_servers, topics=topics, topic_pattern=topic_pattern,
                        **read_options)
    return decode_with(stream, layout, decode, versions=list(versions))


def history_schemas(spark: SparkSession, bootstrap_servers: str, schema_change_topic: str,
                    topic_prefix: str | None = None, kafka_options: Mapping[str, str] | None = None
                    ) -> dict[str, ConnectField]:
    """Row schema per data topic, replayed from the schema-change topic (for ``json-schemaless``).

    The topic is small (one record per DDL) and is read whole; `topic_prefix` defaults to its
    name, as Debezium names it after ``topic.prefix``."""
    from spark_sink.ddl_schema import schema_change_payloads, schemas_from_history
    rows = (read_kafka(spark, bootstrap_servers, topics=[schema_change_topic], streaming=False,
                       kafka_options=kafka_options)
            .select("partition", "offset", "value").orderBy("partition", "offset").collect())
    payloads = schema_change_payloads(bytes(r.value) if r.value is not None else None for r in rows)
    return schemas_from_history(payloads, topic_prefix or schema_change_topic)
