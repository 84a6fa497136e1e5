"""Debezium 3.6's `io.debezium.transforms.EnforceRecordSize`: a data record whose estimated size is over
`max.bytes` has its long string and bytes columns cut, in proportion to their sizes, by what it is over.

As Debezium's (debezium-connect-plugins, 3.6):
* the estimate is `ApproximateStructSizeCalculator.getApproximateRecordSize` (a Java heap estimate, not the
  serialised size): 100 bytes per entry of the source partition, the source offset and the headers, 8 for the
  timestamp, the key and value structs (56 per struct, 8 per field, 24 per primitive, 56 + UTF-8 length per string,
  24 + length per bytes value, 64/88 per array/map) and the topic name; times `compression.ratio`, rounded up;
* only the top-level string and bytes fields of `before` and `after` longer than `min.field.size` (Java string
  length: UTF-16 units; bytes: length) are cut; the excess is shared between before and after by their bytes
  (each share rounded up), then between their fields (each rounded up); a field is cut to what remains (at least
  nothing);
* records without a `before`/`after` struct (schema changes, transaction records, heartbeats, tombstones, values
  an earlier transform flattened) pass unchanged;
* a DECIMAL or BIT(n) column over `min.field.size` in a record over the limit: Debezium's cast of the value to a
  ByteBuffer fails (ClassCastException) and the task stops; here the record is refused the same way.

The source offset the estimate counts is the one the connector commits with the record, without binlog-cdc's own
resume keys (ConnectRecord.offset_entries, set where the dispatcher or an encode worker builds the record). A record
built without it is counted as Debezium's offsets have the usual record (a snapshot row: file, pos, ts_sec,
snapshot; a streamed row: file, pos, row, event, server_id, ts_sec, [gtids], transaction_id and its table's order).
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from connector.events.kinds import ConnectRecord
from connector.serde.connect_schema import DECIMAL_NAME, ConnectSchema, Type
from connector.serde.json_values import decimal_unscaled_bytes
from connector.transforms.structs import as_row, field_index, with_value

__all__ = ["EnforceRecordSize", "approximate_record_size"]

_STRUCT, _STRING, _BYTES, _ARRAY, _MAP, _PRIMITIVE, _REFERENCE = 56, 56, 24, 64, 88, 24, 8
_PRIMITIVES = {Type.BOOLEAN, Type.INT8, Type.INT16, Type.INT32, Type.INT64, Type.FLOAT32, Type.FLOAT64}
_NOT_BYTE_BUFFERS = (DECIMAL_NAME, "io.debezium.data.Bits")  # Debezium hands these over as BigDecimal, byte[]
_SNAPSHOT_MARKERS = ("true", "first", "first_in_data_collection", "last_in_data_collection")


def _utf16_length(text: str) -> int:
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)


def _value_size(schema: ConnectSchema, value: Any) -> int:
    kind = schema.type
    if kind in _PRIMITIVES:
        return _PRIMITIVE  # null or not
    if value is None:
        return 0
    if kind == Type.STRING:
        return _STRING + len(value.encode("utf-8", "surrogatepass"))
    if kind == Type.BYTES:
        if schema.name == DECIMAL_NAME:
            return _BYTES + len(decimal_unscaled_bytes(value, int(schema.parameter("scale") or 0)))
        return _BYTES + len(value)
    if kind == Type.STRUCT:
        return _struct_size(schema, value)
    if kind == Type.ARRAY:
        assert schema.items is not None
        return _ARRAY + sum(_REFERENCE + _value_size(schema.items, v) for v in value)
    if kind == Type.MAP:
        assert schema.keys is not None and schema.values is not None
        return _MAP + sum(2 * _REFERENCE + _value_size(schema.keys, k) + _value_size(schema.values, v)
                          for k, v in value.items())
    return 0


def _struct_size(schema: ConnectSchema, value: Any) -> int:
    if value is None:
        return 0
    row = as_row(schema, value)
    return _STRUCT + sum(_REFERENCE + _value_size(f.schema, v) for f, v in zip(schema.fields, row))


def _offset_entries(schema: ConnectSchema, row: Sequence[Any]) -> int:
    """How many entries Debezium's source offset of this data record has (see the module docstring)."""
    source_at, tx_at = field_index(schema, "source"), field_index(schema, "transaction")
    source = row[source_at] if source_at is not None else None
    if source is not None:
        source_schema = schema.fields[source_at].schema  # type: ignore[index]
        fields = dict(zip(source_schema.field_names(), as_row(source_schema, source)))
        if fields.get("snapshot") in _SNAPSHOT_MARKERS:
            return 4 + (fields.get("gtid") is not None)
        if fields.get("snapshot") == "last":
            return 3
        entries = 6 + (fields.get("gtid") is not None)
        tx = row[tx_at] if tx_at is not None else None
        if tx is not None:
            tx_schema = schema.fields[tx_at].schema  # type: ignore[index]
            entries += 1 + int(dict(zip(tx_schema.field_names(), as_row(tx_schema, tx))).get("data_collection_order")
                               is not None)
        return entries
    return 6


def approximate_record_size(record: ConnectRecord, offset_entries: int) -> int:
    """`ApproximateStructSizeCalculator.getApproximateRecordSize` (one source partition entry: the server)."""
    size = 100 + offset_entries * 100 + len(record.headers) * 100 + 8
    if record.key_schema is not None and record.key_schema.type == Type.STRUCT:
        size += _struct_size(record.key_schema, record.key)
    assert record.value_schema is not None
    return size + _struct_size(record.value_schema, record.value) + len(record.topic.encode("utf-8"))


class EnforceRecordSize:
    def __init__(self, max_bytes: int, compression_ratio: float, min_field_size: int) -> None:
        if max_bytes <= 0:
            raise ValueError(f"max.bytes={max_bytes}: Must be a positive integer")
        if compression_ratio <= 0:
            raise ValueError(f"compression.ratio={compression_ratio}: Must be a positive number")
        if min_field_size < 0:
            raise ValueError(f"min.field.size={min_field_size}: Must be non-negative")
        self._max, self._ratio, self._min = max_bytes, compression_ratio, min_field_size

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        schema = record.value_schema
        if record.value is None or schema is None or schema.type != Type.STRUCT:
            return record
        row = list(as_row(schema, record.value))
        entries = record.offset_entries if record.offset_entries is not None else _offset_entries(schema, row)
        size = math.ceil(approximate_record_size(record, entries) * self._ratio)
        if size <= self._max:
            return record
        excess = size - self._max
        sides = [(i, self._truncatable(schema.fields[i].schema, row[i]))
                 for i in (field_index(schema, "before"), field_index(schema, "after")) if i is not None]
        sides = [(i, fields) for i, fields in sides if fields is not None]
        total = sum(size for _, fields in sides for _, size in fields)
        if total <= 0:
            return record
        for i, fields in sides:
            side_bytes = sum(size for _, size in fields)
            side_excess = math.ceil(side_bytes / total * excess)
            if not fields or side_excess <= 0:
                continue
            side_schema = schema.fields[i].schema
            values = list(as_row(side_schema, row[i]))
            for at, field_size in fields:
                keep = max(0, field_size - math.ceil(field_size / side_bytes * side_excess))
                values[at] = _cut(values[at], keep)
            row[i] = values
        return with_value(record, schema, row)

    def _truncatable(self, side: ConnectSchema, value: Any) -> list[tuple[int, int]] | None:
        """(field index, size) of the fields to cut; None when `value` is not a struct."""
        if side.type != Type.STRUCT or value is None:
            return None
        found = []
        for at, (f, v) in enumerate(zip(side.fields, as_row(side, value))):
            if v is None or f.schema.type not in (Type.STRING, Type.BYTES):
                continue
            if f.schema.type == Type.BYTES and f.schema.name in _NOT_BYTE_BUFFERS:
                raise ValueError(f"field {f.name} ({f.schema.name}) of a record over max.bytes: Debezium's "
                                 f"EnforceRecordSize stops here (ClassCastException: not a ByteBuffer)")
            size = _utf16_length(v) if f.schema.type == Type.STRING else len(v)
            if size > self._min:
                found.append((at, size))
        return found


def _cut(value: Any, keep: int) -> Any:
    if isinstance(value, str):
        if _utf16_length(value) <= keep:
            return value
        units = value.encode("utf-16-le", "surrogatepass")[:2 * keep]
        return units.decode("utf-16-le", "ignore")  # a pair cut in two loses its first half too
    return bytes(value[:keep]) if len(value) > keep else value
