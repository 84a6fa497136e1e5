"""MySQL 9 `VECTOR(n)` → `io.debezium.data.FloatVector` v1: an array of float32 (verified against a
reference run on MySQL 9.7). The server's value is n little-endian IEEE float32s, which is what both
the binlog and the snapshot deliver as bytes (the snapshot needs `snapshot_conv.allow_binary_vectors()`).
"""

from __future__ import annotations

import struct
from typing import Any

from connector.converters.base import Kind, ValueSettings
from connector.serde.connect_schema import ConnectSchema, Type
from schema_history.model import Column

FLOAT_VECTOR = ConnectSchema(Type.ARRAY, name="io.debezium.data.FloatVector", version=1,
                             items=ConnectSchema(Type.FLOAT32))


def _floats(value: Any) -> list[float]:
    if isinstance(value, (list, tuple)):
        return [float(v) for v in value]
    raw = bytes(value) if not isinstance(value, bytes) else value
    return list(struct.unpack(f"<{len(raw) // 4}f", raw))


def vector(column: Column, settings: ValueSettings) -> Kind:
    # DEFAULT (TO_VECTOR(...)) is an expression default: Debezium records none
    return Kind(FLOAT_VECTOR, _floats, _floats, None)
