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
from pyspark.sql import types as T

from spark_sink.connect_schema import ConnectField
from spark_sink.decoder import RecordDecoder, TableLayout
from spark_sink.kafka_source import SOURCE_NAME, KafkaDataSource
from spark_sink.semantic_types import TimeMode
from spark_sink.wire import HttpSchemaRegistry, SchemaRegistry, ValueFormat, wire_reader

__all__ = ["DecodeOptions", "read_kafka", "decode_batch", "discover_versions", "read_changes",
           "jvm_kafka_available"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class DecodeOptions:
    """How change values are spelled and how TIME columns are typed."""

    value_format: ValueFormat = ValueFormat.JSON
    schema_registry_url: str | None = None
    """Confluent Schema Registry URL, required for ``avro``."""
    registry: SchemaRegistry | None = None
    """Alternative to the URL: any object with ``schema(id) -> str`` (picklable)."""
    time_mode: TimeMode = TimeMode.INTERVAL
    schemas: Mapping[str, ConnectField] = field(default_factory=dict)
    """Per topic: row schema for ``json-schemaless`` (see ``ddl_schema.schemas_from_history``)."""

    def wire(self) -> Any:
        registry = self.registry or (HttpSchemaRegistry(self.schema_registry_url)
                                     if self.schema_registry_url else None)
        return wire_reader(ValueFormat(self.value_format), registry, self.schemas)


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
               use_jvm: bool | None = None) -> DataFrame:
    """Raw Kafka rows (key, value, topic, partition, offset, timestamp, timestampType, headers)."""
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
    reader = spark.readStream if streaming else spark.read
    df = reader.format(fmt).options(**options).load()
    # Spark's Kafka source names its pattern option "subscribePattern" too but has no
    # read_committed default; both give the same columns.
    return df


def _schema_ids_fn(decode: DecodeOptions):
    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        wire = decode.wire()
        seen: dict[tuple[str, bytes], tuple[int, int]] = {}
        for batch in batches:
            cols = batch.to_pydict()
            for value, topic, partition, offset in zip(cols["value"], cols["topic"],
                                                       cols["partition"], cols["offset"]):
                if value is None:
                    continue
                key = (topic, wire.schema_id(topic, value))
                if key not in seen or (partition, offset) < seen[key]:
                    seen[key] = (partition, offset)
        rows = [(t, s, p, o) for (t, s), (p, o) in seen.items()]
        yield pa.RecordBatch.from_arrays(
            [pa.array([r[i] for r in rows], type=ty) for i, ty in
             enumerate([pa.string(), pa.binary(), pa.int32(), pa.int64()])],
            names=["topic", "schema_id", "partition", "offset"])
    return run


_IDS_SCHEMA = T.StructType([T.StructField("topic", T.StringType()), T.StructField("schema_id", T.BinaryType()),
                            T.StructField("partition", T.IntegerType()), T.StructField("offset", T.LongType())])


def discover_versions(df: DataFrame, decode: DecodeOptions) -> dict[str, list[ConnectField]]:
    """Schema versions per change topic in a batch of raw rows, oldest first."""
    ids = (df.select("value", "topic", "partition", "offset")
           .mapInArrow(_schema_ids_fn(decode), _IDS_SCHEMA)
           .groupBy("topic", "schema_id").agg(F.min(F.struct("partition", "offset")).alias("first"))
           .collect())
    wire = decode.wire()
    versions: dict[str, list[tuple[tuple[int, int], ConnectField]]] = {}
    for row in sorted(ids, key=lambda r: (r.topic, r.first.offset)):
        try:
            schema = wire.connect_schema(row.topic, bytes(row.schema_id))
        except KeyError as missing:  # schemaless topic without a schema: not a table we mirror
            logger.warning("skipping topic %s: %s", row.topic, missing)
            continue
        if schema.child("op") is None and decode.value_format != ValueFormat.JSON_SCHEMALESS:
            continue  # transaction metadata, schema changes, heartbeats
        versions.setdefault(row.topic, []).append(((row.first.partition, row.first.offset), schema))
    return {t: [s for _, s in sorted(v, key=lambda x: x[0][1])] for t, v in versions.items()}


def _decode_fn(decode: DecodeOptions, layout: TableLayout):
    names = layout.spark_schema().names

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        decoder = RecordDecoder(decode.wire(), layout, decode.time_mode)
        for batch in batches:
            ts = batch.column("timestamp").cast(pa.int64()).to_pylist()
            rows = zip(batch.column("value").to_pylist(), batch.column("topic").to_pylist(),
                       batch.column("partition").to_pylist(), batch.column("offset").to_pylist(), ts)
            yield decoder.to_arrow(rows, names)
    return run


def decode_with(df: DataFrame, layout: TableLayout, decode: DecodeOptions) -> DataFrame:
    """Decode raw rows into a fixed layout (columns a record lacks are null)."""
    raw = df.select("value", "topic", "partition", "offset", "timestamp")
    return raw.mapInArrow(_decode_fn(decode, layout), layout.spark_schema())


def decode_batch(df: DataFrame, decode: DecodeOptions = DecodeOptions()) -> dict[str, DataFrame]:
    """One typed DataFrame per change topic in a batch of raw Kafka rows."""
    out = {}
    for topic, versions in discover_versions(df, decode).items():
        layout = TableLayout.of(versions, decode.time_mode)
        out[topic] = decode_with(df.filter(F.col("topic") == topic), layout, decode)
    return out


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
        found = discover_versions(existing, decode)
        versions = [v for vs in found.values() for v in vs] or list(decode.schemas.values())
        if not versions:
            raise ValueError("read_changes: no change records in the topics yet and no versions= "
                             "given; pass the table's schema or start after the first change")
    layout = TableLayout.of(list(versions), decode.time_mode)
    stream = read_kafka(spark, bootstrap_servers, topics=topics, topic_pattern=topic_pattern,
                        **read_options)
    return decode_with(stream, layout, decode)
