"""Debezium's `partitions.PartitionRouting`: a change event's Kafka partition from a hash of payload fields.

`partition.payload.fields` are paths in the envelope (`source.table`, `after.name`, `change.name` where
`change` is `before` for a delete and `after` otherwise); a field that is missing or null is left out;
with none left the record keeps its partition. The partition is the sum of the values' Java `hashCode`s
(int arithmetic), sign bit cleared (Integer.MAX_VALUE counts as 0), modulo `partition.topic.num`.
Records that are not change events, truncates, tombstones pass unchanged. `partition.hash.function=murmur`
hashes each value with Debezium's MurmurHash3 instead (see murmur3.py) and sums those the same way. A value
whose Java hash is not a function of its content (bytes, structs) stops the run with either function.
"""

from __future__ import annotations

import math
import struct as binary
from decimal import Decimal
from typing import Any, Callable, Sequence

from connector.events.kinds import ConnectRecord
from connector.serde.connect_schema import DECIMAL_NAME, ConnectSchema, Type
from connector.transforms.murmur3 import murmur_int, murmur_string
from connector.transforms.structs import PerSchema, as_row

__all__ = ["HASH_FUNCTIONS", "PartitionRouting", "java_hash", "murmur_hash"]

_MASK = 0xFFFFFFFF


def _int32(n: int) -> int:
    n &= _MASK
    return n - (1 << 32) if n >= 1 << 31 else n


def _string_hash(text: str) -> int:
    h = 0
    for (unit,) in binary.iter_unpack(">H", text.encode("utf-16-be", "surrogatepass")):
        h = (31 * h + unit) & _MASK
    return _int32(h)


def _long_hash(n: int) -> int:
    n &= (1 << 64) - 1
    return _int32(n ^ (n >> 32))


def _big_integer_hash(n: int) -> int:
    # BigInteger.hashCode: 31-polynomial over the magnitude's big-endian ints, times the signum
    mag = abs(n)
    words = []
    while mag:
        words.append(mag & _MASK)
        mag >>= 32
    h = 0
    for w in reversed(words):
        h = (31 * h + w) & _MASK
    return _int32(h * (1 if n > 0 else -1 if n < 0 else 0))


def java_hash(schema: ConnectSchema, value: Any) -> int:
    """`value.hashCode()` of the Java object Connect holds for (schema, value)."""
    if schema.name == DECIMAL_NAME and isinstance(value, (Decimal, int)):
        scale = int(schema.parameter("scale") or 0)
        unscaled = int(Decimal(value).scaleb(scale))
        return _int32(31 * _big_integer_hash(unscaled) + scale)
    if schema.type is Type.STRING:
        return _string_hash(value)
    if schema.type is Type.BOOLEAN:
        return 1231 if value else 1237
    if schema.type is Type.INT64:
        return _long_hash(int(value))
    if schema.type in (Type.INT8, Type.INT16, Type.INT32):
        return _int32(int(value))
    if schema.type is Type.FLOAT64:
        bits = 0x7FF8000000000000 if math.isnan(value) else binary.unpack(">q", binary.pack(">d", value))[0]
        return _long_hash(bits)
    if schema.type is Type.FLOAT32:
        return 0x7FC00000 if math.isnan(value) else binary.unpack(">i", binary.pack(">f", value))[0]
    raise ValueError(f"PartitionRouting: a {schema.type.value} field has no content hash in Java (identity or "
                     "schema-dependent); route by a string, number or boolean field")


def murmur_hash(schema: ConnectSchema, value: Any) -> int:
    """`MurmurHash3.getInstance().hash(value)`: a String by its UTF-8 bytes, anything else by its `hashCode()`."""
    if schema.type is Type.STRING:
        return murmur_string(value)
    return murmur_int(java_hash(schema, value))


HashFunction = Callable[[ConnectSchema, Any], int]
# Debezium's HashFunction.parse: names are trimmed and case-insensitive
HASH_FUNCTIONS: dict[str, HashFunction] = {"java": java_hash, "murmur": murmur_hash}


class PartitionRouting:
    def __init__(self, paths: Sequence[str], partitions: int, hash_function: HashFunction = java_hash) -> None:
        self._paths = tuple(tuple(p.strip() for p in path.split(".")) for path in paths)
        self._partitions = partitions
        self._hash = hash_function
        self._plans = PerSchema(self._plan)

    @staticmethod
    def _plan(schema: ConnectSchema | None) -> dict[str, int] | None:
        if schema is None or not schema.name or not schema.name.endswith(".Envelope"):
            return None
        return {f.name: i for i, f in enumerate(schema.fields)}

    def _value(self, schema: ConnectSchema, envelope: Sequence[Any], index: dict[str, int], op: str,
               path: tuple[str, ...]) -> tuple[ConnectSchema, Any] | None:
        node_schema, node = schema, envelope
        for depth, name in enumerate(path):
            if depth < len(path) - 1 and name == "change":
                name = "before" if op == "d" else "after"
            i = next((k for k, f in enumerate(node_schema.fields) if f.name == name), None)
            if i is None:
                return None  # DataException: not a field, left out
            if node is None:
                raise ValueError(f"PartitionRouting: {'.'.join(path)} reads a field of a null struct (Debezium "
                                 "fails: Unprocessable message); use change.<field> for before/after")
            node = as_row(node_schema, node)[i]
            node_schema = node_schema.fields[i].schema
        return None if node is None else (node_schema, node)

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        if record.value is None:
            return record
        index = self._plans(record.value_schema)
        if index is None:
            return record
        schema = record.value_schema
        assert schema is not None
        envelope = as_row(schema, record.value)
        op = envelope[index["op"]]
        if op == "t":
            return record
        total = 0
        found = False
        for path in self._paths:
            hit = self._value(schema, envelope, index, op, path)
            if hit is not None:
                total = _int32(total + self._hash(*hit))
                found = True
        if not found:
            return record
        normalized = total & 0x7FFFFFFF
        if normalized == 0x7FFFFFFF:
            normalized = 0
        return ConnectRecord(record.topic, normalized % self._partitions, record.key_schema, record.key,
                             record.value_schema, record.value, record.headers, record.timestamp,
                             record.offset_entries)
