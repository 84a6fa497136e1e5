"""Spark 4 Python data source ``binlog_cdc_kafka``: Kafka records as Spark's Kafka source rows.

For machines without the JVM connector (``spark-sql-kafka-0-10``). Same output columns as
``format("kafka")`` with ``includeHeaders=true``: key, value, topic, partition, offset,
timestamp, timestampType, headers. Options use the JVM source's names: ``subscribe``,
``subscribePattern``, ``startingOffsets`` (earliest | latest | JSON
``{"topic":{"0":42}}``), ``endingOffsets`` (batch reads), ``maxOffsetsPerTrigger``, and
``kafka.<librdkafka property>``. Isolation defaults to ``read_committed``.

With ``splitValues`` (``json``, ``json-schemaless`` or ``avro``) the source yields split rows
(``SPLIT_SCHEMA``) instead: each value cut into schema version key, schema text (first record
of a version per input partition only) and body while it is read. Avro needs the registry
(``schema.registry.url`` and the other ``registry.REGISTRY_OPTION_NAMES``, AvroConverter's
names): its bodies are transcoded to JSON payloads while read (``wire.ValueSplitter``). The sink's decoder takes
those rows as it takes Spark's split of raw rows; the split costs the reader a ``memcmp`` per
record and ships a quarter of the bytes of a JsonConverter value to the JVM.

Offsets (the checkpointed resume contract) are ``{topic: {partition: next offset to read}}``.
The end of a partition is found by consuming to partition EOF rather than ListOffsets: that is
right on every broker (Tansu's ListOffsets is not) and in read_committed mode it stops at
the last stable offset, so a micro-batch never contains records of open transactions.
"""

from __future__ import annotations

import json
import logging
import re
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping, Sequence

import pyarrow as pa
from pyspark.sql import types as T
from pyspark.sql.datasource import (DataSource, DataSourceReader, DataSourceStreamReader,
                                    InputPartition)

from spark_sink.registry import REGISTRY_OPTION_NAMES, HttpSchemaRegistry, RegistryConfig
from spark_sink.wire import ValueFormat, ValueSplitter

__all__ = ["KafkaDataSource", "KafkaOptions", "KAFKA_SCHEMA", "SPLIT_SCHEMA", "SOURCE_NAME"]

logger = logging.getLogger(__name__)
SOURCE_NAME = "binlog_cdc_kafka"
KAFKA_SCHEMA = T.StructType([
    T.StructField("key", T.BinaryType()),
    T.StructField("value", T.BinaryType()),
    T.StructField("topic", T.StringType()),
    T.StructField("partition", T.IntegerType()),
    T.StructField("offset", T.LongType()),
    T.StructField("timestamp", T.TimestampType()),
    T.StructField("timestampType", T.IntegerType()),
    T.StructField("headers", T.ArrayType(T.StructType([
        T.StructField("key", T.StringType()), T.StructField("value", T.BinaryType())]))),
])
SPLIT_SCHEMA = T.StructType([
    T.StructField("key", T.BinaryType()), T.StructField("topic", T.StringType()),
    T.StructField("partition", T.IntegerType()), T.StructField("offset", T.LongType()),
    T.StructField("timestamp", T.TimestampType()), T.StructField("schema_key", T.BinaryType()),
    T.StructField("schema", T.BinaryType()), T.StructField("body", T.BinaryType()),
])
"""Raw rows with the value split: what the decoder reads (``reader.split_records``)."""
_ARROW_SCHEMA = pa.schema([
    ("key", pa.binary()), ("value", pa.binary()), ("topic", pa.string()), ("partition", pa.int32()),
    ("offset", pa.int64()), ("timestamp", pa.timestamp("us", tz="UTC")), ("timestampType", pa.int32()),
    ("headers", pa.list_(pa.struct([("key", pa.string()), ("value", pa.binary())]))),
])
_SPLIT_ARROW_SCHEMA = pa.schema([
    ("key", pa.binary()), ("topic", pa.string()), ("partition", pa.int32()), ("offset", pa.int64()),
    ("timestamp", pa.timestamp("us", tz="UTC")), ("schema_key", pa.binary()), ("schema", pa.binary()),
    ("body", pa.binary()),
])
_BATCH_ROWS = 10_000
_POLL_S = 1.0

Offsets = dict[str, dict[str, int]]


@dataclass(frozen=True)
class KafkaOptions:
    """The source options, parsed and checked once on the driver."""

    bootstrap_servers: str
    topics: tuple[str, ...] = ()
    pattern: str | None = None
    starting: str = "earliest"
    ending: str = "latest"
    max_offsets_per_trigger: int | None = None
    eof_timeout_s: float = 30.0
    split_values: ValueFormat | None = None
    client: Mapping[str, str] = field(default_factory=dict)
    registry: Mapping[str, str] = field(default_factory=dict)  # AvroConverter-named registry options

    @classmethod
    def parse(cls, options: Mapping[str, str]) -> "KafkaOptions":
        opts = {k: v for k, v in options.items()}
        lower = {k.lower(): v for k, v in opts.items()}
        client = {k[6:]: v for k, v in opts.items() if k.lower().startswith("kafka.")}
        servers = client.pop("bootstrap.servers", None)
        problems = []
        if not servers:
            problems.append("kafka.bootstrap.servers is required")
        topics = tuple(t.strip() for t in lower.get("subscribe", "").split(",") if t.strip())
        pattern = lower.get("subscribepattern")
        if bool(topics) == bool(pattern):
            problems.append("give exactly one of subscribe (comma list) or subscribePattern (regex)")
        known = {"subscribe", "subscribepattern", "startingoffsets", "endingoffsets",
                 "maxoffsetspertrigger", "eoftimeoutseconds", "path", "splitvalues", *REGISTRY_OPTION_NAMES}
        unknown = sorted(k for k in lower if not k.startswith("kafka.") and k not in known)
        if unknown:
            problems.append(f"unrecognized options: {', '.join(unknown)}")
        formats = [f.value for f in ValueFormat]
        if lower.get("splitvalues") not in (None, *formats):
            problems.append(f"splitValues must be one of {', '.join(formats)}")
        registry = {k: v for k, v in lower.items() if k in REGISTRY_OPTION_NAMES}
        if lower.get("splitvalues") == ValueFormat.AVRO.value:
            try:
                RegistryConfig.parse(registry)  # checked here, on the driver, before any task starts
            except ValueError as bad:
                problems.append(f"splitValues=avro: {bad}")
        if problems:
            raise ValueError(f"{SOURCE_NAME}: " + "; ".join(problems))
        limit = lower.get("maxoffsetspertrigger")
        split = lower.get("splitvalues")
        return cls(servers, topics, pattern, lower.get("startingoffsets", "earliest"),
                   lower.get("endingoffsets", "latest"), int(limit) if limit else None,
                   float(lower.get("eoftimeoutseconds", "30")), split_values=ValueFormat(split) if split else None,
                   client=client, registry=registry)

    def consumer_config(self) -> dict[str, Any]:
        return {
            "bootstrap.servers": self.bootstrap_servers,
            "group.id": f"binlog-cdc-spark-{uuid.uuid4()}",  # never joins: assign() only
            "enable.auto.commit": False,
            "enable.partition.eof": True,
            "auto.offset.reset": "earliest",
            "isolation.level": "read_committed",
            **self.client,
        }


def _consumer(options: KafkaOptions) -> Any:
    from confluent_kafka import Consumer  # imported on the worker that needs it
    return Consumer(options.consumer_config())


def _partitions(consumer: Any, options: KafkaOptions) -> list[tuple[str, int]]:
    """Every (topic, partition) the subscription covers now; new topics show up here."""
    metadata = consumer.list_topics(timeout=10)
    if options.pattern:
        regex = re.compile(options.pattern)
        names = [t for t in metadata.topics if regex.fullmatch(t) and not t.startswith("__")]
    else:
        names = [t for t in options.topics if t in metadata.topics]
    return sorted((t, p) for t in names for p in metadata.topics[t].partitions)


def _scan_to_eof(consumer: Any, starts: Mapping[tuple[str, int], int], limit: int | None,
                 timeout_s: float) -> dict[tuple[str, int], int]:
    """Next offset to read for each partition after consuming to EOF (or `limit` records).

    A partition written faster than it can be scanned may not reach EOF before `timeout_s`:
    it then ends where the scan got to (still an exact offset). Only a scan that received
    nothing at all before the deadline is an error (broker unreachable)."""
    from confluent_kafka import KafkaError, TopicPartition
    ends = dict(starts)
    if not starts:
        return ends
    consumer.assign([TopicPartition(t, p, o) for (t, p), o in starts.items()])
    pending, seen, heard = set(starts), 0, False
    deadline = time.monotonic() + timeout_s
    try:
        while pending and (limit is None or seen < limit):
            if time.monotonic() > deadline:
                if heard:
                    break
                raise TimeoutError(f"{SOURCE_NAME}: nothing from the broker within {timeout_s}s for "
                                   f"{sorted(pending)}; is it reachable?")
            for msg in consumer.consume(num_messages=5000, timeout=_POLL_S):
                heard = True
                tp = (msg.topic(), msg.partition())
                err = msg.error()
                if err is not None:
                    if err.code() == KafkaError._PARTITION_EOF:
                        ends[tp] = max(ends[tp], msg.offset())
                        pending.discard(tp)
                        continue
                    raise RuntimeError(f"{SOURCE_NAME}: {err}")
                if tp not in ends:
                    continue
                ends[tp] = msg.offset() + 1
                seen += 1
                if limit is not None and seen >= limit:
                    break
    finally:
        consumer.unassign()
    return ends


def _parse_offsets(spec: str, parts: Sequence[tuple[str, int]], consumer: Any) -> dict[tuple[str, int], int]:
    if spec in ("earliest", "latest"):
        out = {}
        from confluent_kafka import TopicPartition
        for t, p in parts:
            lo, _ = consumer.get_watermark_offsets(TopicPartition(t, p), timeout=10)
            out[(t, p)] = lo
        if spec == "latest":
            out = _scan_to_eof(consumer, out, None, 30.0)
        return out
    given = json.loads(spec)
    out = {}
    for t, p in parts:
        value = int(given.get(t, {}).get(str(p), -2))
        out[(t, p)] = value
    unresolved = {tp: 0 for tp, o in out.items() if o < 0}  # -2 earliest, -1 latest (as Spark)
    if unresolved:
        resolved = _parse_offsets("earliest", list(unresolved), consumer)
        latest = _scan_to_eof(consumer, {tp: resolved[tp] for tp in unresolved if out[tp] == -1},
                              None, 30.0)
        for tp in unresolved:
            out[tp] = latest.get(tp, resolved[tp])
    return out


def _to_json(offsets: Mapping[tuple[str, int], int]) -> Offsets:
    out: Offsets = {}
    for (t, p), o in sorted(offsets.items()):
        out.setdefault(t, {})[str(p)] = int(o)
    return out


def _from_json(offsets: Offsets) -> dict[tuple[str, int], int]:
    return {(t, int(p)): int(o) for t, parts in offsets.items() for p, o in parts.items()}


@dataclass(frozen=True)
class _Range(InputPartition):
    topic: str
    partition: int
    start: int
    end: int


def _ranges(start: Offsets, end: Offsets) -> list[_Range]:
    begin = _from_json(start)
    return [_Range(t, p, begin.get((t, p), 0), e) for (t, p), e in sorted(_from_json(end).items())
            if e > begin.get((t, p), 0)]


def _read_range(options: KafkaOptions, part: _Range) -> Iterator[pa.RecordBatch]:
    from confluent_kafka import KafkaError, TopicPartition
    consumer = _consumer(options)
    try:
        consumer.assign([TopicPartition(part.topic, part.partition, part.start)])
        schema = _SPLIT_ARROW_SCHEMA if options.split_values else _ARROW_SCHEMA
        registry = HttpSchemaRegistry.from_options(options.registry) \
            if options.split_values is ValueFormat.AVRO else None
        split = ValueSplitter(options.split_values, registry) if options.split_values else None
        cols: dict[str, list] = {n: [] for n in schema.names}
        position = part.start
        quiet_since = time.monotonic()
        while position < part.end:
            batch = consumer.consume(num_messages=5000, timeout=_POLL_S)
            if batch:
                quiet_since = time.monotonic()
            elif time.monotonic() - quiet_since > options.eof_timeout_s:
                raise TimeoutError(f"{SOURCE_NAME}: {part.topic}[{part.partition}] silent for "
                                   f"{options.eof_timeout_s}s at offset {position} (batch end {part.end})")
            for msg in batch:
                err = msg.error()
                if err is not None:
                    if err.code() == KafkaError._PARTITION_EOF:
                        # read_committed: aborted/control records leave offset gaps up to end.
                        # EOF before `end` means records are gone (retention): stop, as the
                        # JVM source does with failOnDataLoss=false, and say so.
                        if msg.offset() < part.end:
                            logger.warning("%s[%d]: partition ends at %d, batch expected %d; "
                                           "records lost (retention?)", part.topic, part.partition,
                                           msg.offset(), part.end)
                        position = part.end
                        continue
                    raise RuntimeError(f"{SOURCE_NAME}: {err}")
                if msg.offset() >= part.end:
                    position = part.end
                    break
                position = msg.offset() + 1
                kind, ts = msg.timestamp()
                cols["key"].append(msg.key())
                cols["topic"].append(part.topic)
                cols["partition"].append(part.partition)
                cols["offset"].append(msg.offset())
                cols["timestamp"].append(ts * 1000 if ts is not None and ts >= 0 else None)
                value = msg.value()
                if split is None:
                    cols["value"].append(value)
                    cols["timestampType"].append(max(kind - 1, 0))  # librdkafka 1/2 → Kafka 0/1
                    cols["headers"].append([{"key": k, "value": v} for k, v in (msg.headers() or [])])
                else:
                    version, text, body = split(part.topic, value) if value is not None else (None, None, None)
                    cols["schema_key"].append(version)
                    cols["schema"].append(text)
                    cols["body"].append(body)
            if len(cols["offset"]) >= _BATCH_ROWS:
                yield pa.RecordBatch.from_pydict(cols, schema=schema)
                cols = {n: [] for n in schema.names}
        if cols["offset"]:
            yield pa.RecordBatch.from_pydict(cols, schema=schema)
    finally:
        consumer.close()


class _StreamReader(DataSourceStreamReader):
    def __init__(self, options: KafkaOptions) -> None:
        self.options = options

    def initialOffset(self) -> Offsets:
        consumer = _consumer(self.options)
        try:
            return _to_json(_parse_offsets(self.options.starting,
                                           _partitions(consumer, self.options), consumer))
        finally:
            consumer.close()

    def latestOffset(self, start: Offsets, limit: Any = None) -> Offsets:
        from pyspark.sql.streaming.datasource import ReadMaxRows
        max_rows = limit.max_rows if isinstance(limit, ReadMaxRows) else None
        consumer = _consumer(self.options)
        try:
            begin = _from_json(start)
            for tp in _partitions(consumer, self.options):
                if tp not in begin:  # a topic that appeared after the query started: from the start
                    begin[tp] = _parse_offsets("earliest", [tp], consumer)[tp]
            return _to_json(_scan_to_eof(consumer, begin, max_rows, self.options.eof_timeout_s))
        finally:
            consumer.close()

    def getDefaultReadLimit(self) -> Any:
        from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadMaxRows
        limit = self.options.max_offsets_per_trigger
        return ReadMaxRows(limit) if limit else ReadAllAvailable()

    def partitions(self, start: Offsets, end: Offsets) -> Sequence[InputPartition]:
        return _ranges(start, end)

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        return _read_range(self.options, partition)  # type: ignore[arg-type]

    def commit(self, end: Offsets) -> None:
        """Nothing to do: Spark's checkpoint holds the offsets."""


class _BatchReader(DataSourceReader):
    def __init__(self, options: KafkaOptions) -> None:
        self.options = options

    def partitions(self) -> Sequence[InputPartition]:
        consumer = _consumer(self.options)
        try:
            parts = _partitions(consumer, self.options)
            start = _parse_offsets(self.options.starting, parts, consumer)
            end = _parse_offsets(self.options.ending, parts, consumer)
            return _ranges(_to_json(start), _to_json(end))
        finally:
            consumer.close()

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        return _read_range(self.options, partition)  # type: ignore[arg-type]


class KafkaDataSource(DataSource):
    """Register with ``spark.dataSource.register(KafkaDataSource)``; see the module doc."""

    @classmethod
    def name(cls) -> str:
        return SOURCE_NAME

    def schema(self) -> T.StructType:
        split = {k.lower(): v for k, v in self.options.items()}.get("splitvalues")
        return SPLIT_SCHEMA if split else KAFKA_SCHEMA

    def reader(self, schema: T.StructType) -> DataSourceReader:
        return _BatchReader(KafkaOptions.parse(self.options))

    def streamReader(self, schema: T.StructType) -> DataSourceStreamReader:
        return _StreamReader(KafkaOptions.parse(self.options))


def read_values(bootstrap_servers: str, topic: str, kafka_options: Mapping[str, str] | None = None
                ) -> list[bytes | None]:
    """Every value of a small topic, by partition and offset, read in this process without a Spark job (the
    mirror reads the schema-change topic, one record per DDL, for every micro-batch)."""
    options = KafkaOptions.parse({"kafka.bootstrap.servers": bootstrap_servers, "subscribe": topic,
                                  **{f"kafka.{k}": v for k, v in (kafka_options or {}).items()}})
    values: list[bytes | None] = []
    for part in _BatchReader(options).partitions():
        for batch in _read_range(options, part):  # type: ignore[arg-type]
            values.extend(batch.column("value").to_pylist())
    return values
