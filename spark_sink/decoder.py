"""Debezium change envelopes → typed Arrow batches with the sink's fixed output columns.

Output columns: the table's columns (from ``after``; from ``before`` for deletes), then
``META_COLUMNS``: the operation, source position (binlog file, pos, row, GTID), the
``__deleted`` flag and the Kafka coordinates. Tombstones and records that are not change
envelopes (transaction and schema-change topics) are skipped.

A ``TableLayout`` is the union of every schema version seen for one topic, in column order of
first appearance, the newest version's type winning; a record written with any version
decodes into it (columns it lacks are null). Resolution happens once per schema version.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Mapping, Sequence

import pyarrow as pa
from pyspark.sql import types as T

from spark_sink.connect_schema import ConnectField
from spark_sink.semantic_types import Column, TimeMode, resolve
from spark_sink.wire import WireReader

__all__ = ["META_COLUMNS", "KAFKA_COLUMNS", "TableLayout", "RecordDecoder", "row_struct"]

_TZ_TS = pa.timestamp("us", tz="UTC")
# name → (spark type, arrow type); order is the output order after the table's columns.
META_COLUMNS: dict[str, tuple[T.DataType, pa.DataType]] = {
    "__op": (T.StringType(), pa.string()),
    "__source_ts_ms": (T.LongType(), pa.int64()),
    "__source_file": (T.StringType(), pa.string()),
    "__source_pos": (T.LongType(), pa.int64()),
    "__source_row": (T.IntegerType(), pa.int32()),
    "__source_gtid": (T.StringType(), pa.string()),
    "__deleted": (T.BooleanType(), pa.bool_()),
}
KAFKA_COLUMNS: dict[str, tuple[T.DataType, pa.DataType]] = {
    "__topic": (T.StringType(), pa.string()),
    "__partition": (T.IntegerType(), pa.int32()),
    "__offset": (T.LongType(), pa.int64()),
    "__timestamp": (T.TimestampType(), _TZ_TS),
}


def row_struct(schema: ConnectField) -> ConnectField:
    """The row struct of an envelope schema (``after``/``before``), or the schema itself."""
    row = schema.child("after") or schema.child("before")
    return row if row is not None else schema


@dataclass(frozen=True)
class TableLayout:
    """Output columns for one topic: union of its schema versions plus the meta columns."""

    columns: tuple[Column, ...]

    @classmethod
    def of(cls, versions: Sequence[ConnectField], time_mode: TimeMode) -> "TableLayout":
        by_name: dict[str, Column] = {}
        for version in versions:  # oldest first; a later version's type replaces an older one
            for f in row_struct(version).fields:
                by_name[f.name] = resolve(f, time_mode)
        return cls(tuple(by_name.values()))

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.columns]

    def spark_schema(self) -> T.StructType:
        fields = [T.StructField(c.name, c.spark_type, True) for c in self.columns]
        fields += [T.StructField(n, s, True) for n, (s, _) in {**META_COLUMNS, **KAFKA_COLUMNS}.items()]
        return T.StructType(fields)

    def arrow_types(self) -> list[pa.DataType]:
        return [c.arrow_type for c in self.columns] + \
            [a for _, a in {**META_COLUMNS, **KAFKA_COLUMNS}.values()]


class RecordDecoder:
    """Decodes split change records of one or more topics into rows of a fixed ``TableLayout``.

    Rows are ``(topic, schema key, schema text or None, body, partition, offset, timestamp_us)``
    as produced by ``WireReader.split``; `known` maps schema keys to schemas found beforehand,
    so rows may omit the schema text (``None``) once their version is known."""

    def __init__(self, wire: WireReader, layout: TableLayout, time_mode: TimeMode,
                 known: Mapping[bytes, ConnectField] | None = None) -> None:
        self.wire = wire
        self.layout = layout
        self.time_mode = time_mode
        self.known = dict(known or {})
        self._versions: dict[bytes, tuple[list, list]] = {}

    def _plan(self, topic: str, key: bytes, schema_text: bytes | None) -> tuple[list, list]:
        # Per schema version: columns copied as they are, and columns with a decoder.
        plan = self._versions.get(key)
        if plan is None:
            schema = self.known.get(key) or self.wire.connect_schema(topic, key, schema_text)
            index = {name: i for i, name in enumerate(self.layout.names)}
            copy, convert = [], []
            for f in row_struct(schema).fields:
                if f.name in index:
                    column = resolve(f, self.time_mode)
                    if column.passthrough:
                        copy.append((index[f.name], f.name))
                    else:
                        convert.append((index[f.name], f.name, column.decode))
            plan = self._versions[key] = (copy, convert)
        return plan

    def decode(self, rows: Iterable[tuple]) -> Iterator[list[Any]]:
        width = len(self.layout.columns)
        payload = self.wire.payload
        for topic, key, schema_text, body, partition, offset, timestamp in rows:
            if body is None:  # tombstone: the delete before it already carried the change
                continue
            envelope = payload(key, body)
            op = envelope.get("op") if isinstance(envelope, dict) else None
            if op is None:
                continue
            image = envelope.get("before") if op == "d" else envelope.get("after")
            out: list[Any] = [None] * width
            if image is not None:
                copy, convert = self._plan(topic, key, schema_text)
                get = image.get
                for i, name in copy:
                    out[i] = get(name)
                for i, name, decode in convert:
                    out[i] = decode(get(name))
            source = envelope.get("source") or {}
            out += [op, source.get("ts_ms"), source.get("file"), source.get("pos"),
                    source.get("row"), source.get("gtid"), op == "d",
                    topic, partition, offset, timestamp]
            yield out

    def decode_raw(self, rows: Iterable[tuple]) -> Iterator[list[Any]]:
        """rows: (value, topic, partition, offset, timestamp_us), values as on Kafka."""
        split = self.wire.split
        return self.decode((topic, None, None, None, partition, offset, ts) if value is None else
                           (topic, *split(topic, value), partition, offset, ts)
                           for value, topic, partition, offset, ts in rows)

    def to_arrow(self, decoded: Iterable[list[Any]], names: Sequence[str]) -> pa.RecordBatch:
        columns = list(zip(*decoded)) or [()] * len(names)
        arrays = [pa.array(list(values), type=t) for values, t in zip(columns, self.layout.arrow_types())]
        return pa.RecordBatch.from_arrays(arrays, names=list(names))
