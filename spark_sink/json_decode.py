"""JsonConverter change records → typed rows, entirely in Spark's engine.

The value is split by expressions (no Python worker): ``{"schema":S,"payload":P}`` gives the
schema text S (its xxhash64 names the schema version) and the payload P. Each schema version
is turned once into a ``from_json`` schema plus one built-in expression per column
(``expressions.field_expr``), so a batch decodes at JVM speed; Avro values keep the Python
decoder (``decoder.RecordDecoder``), as Spark has no built-in Avro reader without its package.
The output matches ``RecordDecoder``'s: the layout's columns, then the meta and Kafka columns.
"""

from __future__ import annotations

from typing import Sequence

from pyspark.sql import Column as SparkColumn
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from spark_sink.connect_schema import ConnectField
from spark_sink.decoder import TableLayout, row_struct
from spark_sink.expressions import envelope_wire_type
from spark_sink.semantic_types import TimeMode

__all__ = ["split_json", "decode_json", "union_row"]

_SCHEMA_MARK, _PAYLOAD_MARK = '{"schema":', ',"payload":'
_SCHEMALESS_KEY = b"schemaless"  # one version per topic: its schema comes from the caller


def split_json(raw: DataFrame, with_schema: bool) -> DataFrame:
    """Raw Kafka rows → the split columns of ``reader.SPLIT_SCHEMA``, by expressions.

    With embedded schemas, the first ``,"payload":`` ends the schema: no key of a Connect
    schema object is named ``payload`` and inside JSON strings the quotes are escaped. The
    body keeps the envelope's closing brace, which ``from_json`` ignores after the payload."""
    text = F.col("value").cast("string")
    if with_schema:
        # substring_index searches bytes (locate/substr count characters, 3x slower on the
        # ~3 KB values): the schema ends at the first mark, the payload starts after the last
        # (the Python reader's rfind); the schema text keeps its '{"schema":' prefix here.
        head = F.substring_index(text, _PAYLOAD_MARK, 1)
        tail = F.substring_index(text, _PAYLOAD_MARK, -1)
        well_formed = text.startswith(_SCHEMA_MARK) & (F.length(head) < F.length(text))
        checked = F.when(text.isNull() | well_formed, head).otherwise(F.raise_error(F.concat(
            F.lit("topic "), F.col("topic"), F.lit(": value is not JSON with an embedded schema "
                                                  "(use value_format='json-schemaless' or 'avro')"))))
        columns = [F.xxhash64(checked).cast("string").cast("binary").alias("schema_key"),
                   checked.cast("binary").alias("schema"), tail.cast("binary").alias("body")]
    else:
        columns = [F.lit(_SCHEMALESS_KEY).alias("schema_key"),
                   F.lit(b"").alias("schema"), F.col("value").alias("body")]
    return raw.select("key", "topic", "partition", "offset", "timestamp", *columns)


def _version_rows(split: DataFrame, version: ConnectField, layout: TableLayout,
                  mode: TimeMode) -> DataFrame:
    wire, exprs = envelope_wire_type(row_struct(version), mode)
    e = F.col("e")
    image = F.when(e.op == "d", e.before).otherwise(e.after)
    types = {c.name: c.spark_type for c in layout.columns}
    table: list[SparkColumn] = []
    for name, spark_type in types.items():
        if name in exprs:
            value = exprs[name].convert(image.getField(name))
            if exprs[name].spark_type != spark_type:  # an older version's type: widen to the newest
                value = value.cast(spark_type)
        else:
            value = F.lit(None).cast(spark_type)
        table.append(value.alias(name))
    source = e.source
    meta = [e.op.alias("__op"), source.ts_ms.alias("__source_ts_ms"), source.file.alias("__source_file"),
            source.pos.alias("__source_pos"), source.row.alias("__source_row"),
            source.gtid.alias("__source_gtid"), (e.op == "d").alias("__deleted"),
            F.col("topic").alias("__topic"), F.col("partition").alias("__partition"),
            F.col("offset").alias("__offset"), F.col("timestamp").alias("__timestamp")]
    parsed = split.select(F.from_json(F.col("body").cast("string"), wire).alias("e"),
                          "topic", "partition", "offset", "timestamp")
    # Tombstones parse to null; transaction/heartbeat records have no op: neither is a change.
    return parsed.filter(e.op.isNotNull()).select(*table, *meta)


def decode_json(split: DataFrame, versions: Sequence[tuple[bytes | None, ConnectField]],
                layout: TableLayout, mode: TimeMode) -> DataFrame:
    """Typed rows of split records: each schema version parsed with its own schema, so a
    column whose wire spelling changed (INT → DECIMAL) still decodes. A version key of
    ``None`` parses every record with that version (a fixed-schema stream)."""
    parts = []
    for key, version in versions:
        rows = split if key is None else split.filter(F.col("schema_key") == F.lit(key))
        parts.append(_version_rows(rows, version, layout, mode))
    out = parts[0]
    for part in parts[1:]:
        out = out.unionByName(part)
    return out


def union_row(versions: Sequence[ConnectField]) -> ConnectField:
    """One row schema covering `versions` (oldest first) as ``TableLayout.of`` does: columns
    in order of first appearance, the newest version's type winning."""
    by_name: dict[str, ConnectField] = {}
    for version in versions:
        for f in row_struct(version).fields:
            by_name[f.name] = f
    return ConnectField("", "struct", fields=tuple(by_name.values()))
