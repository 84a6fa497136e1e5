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
    schema object is named ``payload`` and inside JSON strings the quotes are escaped (a
    later one may be a column named ``payload``). The body keeps the envelope's closing
    brace, which ``from_json`` ignores after the payload."""
    text = F.col("value").cast("string")
    if with_schema:
        # substring_index searches bytes (locate/substr count characters, 3x slower on the
        # ~3 KB values): the schema ends at the first mark; the body is cut from the binary
        # value at that byte offset (octet_length is O(1), length() would count characters).
        # The schema text keeps its '{"schema":' prefix here.
        head = F.substring_index(text, _PAYLOAD_MARK, 1)
        cut = F.octet_length(head)
        well_formed = text.startswith(_SCHEMA_MARK) & (cut < F.octet_length(F.col("value")))
        checked = F.when(text.isNull() | well_formed, head).otherwise(F.raise_error(F.concat(
            F.lit("topic "), F.col("topic"), F.lit(": value is not JSON with an embedded schema "
                                                  "(use value_format='json-schemaless' or 'avro')"))))
        body = F.col("value").substr(cut + len(_PAYLOAD_MARK) + 1, F.lit(2 ** 31 - 1))
        columns = [F.xxhash64(checked).cast("string").cast("binary").alias("schema_key"),
                   checked.cast("binary").alias("schema"), body.alias("body")]
    else:
        columns = [F.lit(_SCHEMALESS_KEY).alias("schema_key"),
                   F.lit(b"").alias("schema"), F.col("value").alias("body")]
    return raw.select("key", "topic", "partition", "offset", "timestamp", *columns)


def _version_rows(split: DataFrame, version: ConnectField, layout: TableLayout,
                  mode: TimeMode, keyed: bool) -> DataFrame:
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
    if keyed:
        # Records of a discovered change version all have an op (the envelope requires it):
        # only tombstones (no body) are not changes. Any filter on the parsed envelope would be
        # pushed below the projection by the optimizer and parse every body a second time.
        split = split.filter(F.col("body").isNotNull())
    parsed = split.select(F.from_json(F.col("body").cast("string"), wire).alias("e"),
                          "topic", "partition", "offset", "timestamp")
    if keyed:
        return parsed.select(*table, *meta)
    # A fixed-schema stream may carry transaction/heartbeat records, which have no op.
    return parsed.filter(e.op.isNotNull()).select(*table, *meta)


def decode_json(split: DataFrame, versions: Sequence[tuple[bytes | None, ConnectField]],
                layout: TableLayout, mode: TimeMode) -> DataFrame:
    """Typed rows of split records: each schema version parsed with its own schema, so a
    column whose wire spelling changed (INT → DECIMAL) still decodes. A version key of
    ``None`` parses every record with that version (a fixed-schema stream)."""
    parts = []
    for key, version in versions:
        rows = split if key is None else split.filter(F.col("schema_key") == F.lit(key))
        parts.append(_version_rows(rows, version, layout, mode, keyed=key is not None))
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
