"""Spatial columns → `io.debezium.data.geometry.Geometry` / `.Point` structs (version 1, as in 3.6).

Both python-mysql-replication and PyMySQL return MySQL's internal form: 4-byte little-endian SRID
followed by WKB. Debezium splits it into `wkb` + `srid` (and `x`/`y` for POINT).
SRID 0 is written as null (verified against reference runs on MariaDB and MySQL 9).
"""

from __future__ import annotations

import struct
from typing import Any

from connector.converters.base import Kind, ValueSettings
from connector.serde.connect_schema import ConnectSchema, Type, struct as make_struct
from schema_history.model import Column

GEOMETRY = make_struct("io.debezium.data.geometry.Geometry", [
    ("wkb", ConnectSchema(Type.BYTES)),
    ("srid", ConnectSchema(Type.INT32, optional=True)),
], version=1, doc="Geometry")

POINT = make_struct("io.debezium.data.geometry.Point", [
    ("x", ConnectSchema(Type.FLOAT64)),
    ("y", ConnectSchema(Type.FLOAT64)),
    ("wkb", ConnectSchema(Type.BYTES, optional=True)),
    ("srid", ConnectSchema(Type.INT32, optional=True)),
], version=1, doc="Geometry (POINT)")


def _split(value: Any) -> tuple[int, bytes]:
    raw = bytes(value)
    return struct.unpack_from("<I", raw)[0], raw[4:]


def _geometry(value: Any) -> tuple[bytes, int | None]:
    srid, wkb = _split(value)
    return (wkb, srid or None)  # SRID 0 (none) is written as null


def _point(value: Any) -> tuple[float, float, bytes, int | None]:
    srid, wkb = _split(value)
    order = "<" if wkb[0] == 1 else ">"
    x, y = struct.unpack_from(order + "dd", wkb, 5)
    return (x, y, wkb, srid or None)


def geometry(column: Column, settings: ValueSettings) -> Kind:
    return Kind(GEOMETRY, _geometry, _geometry, None, always_optional=True)


def point(column: Column, settings: ValueSettings) -> Kind:
    return Kind(POINT, _point, _point, None)
