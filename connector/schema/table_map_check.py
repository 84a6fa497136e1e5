"""Run-time check of each TABLE_MAP against the in-memory schema (issue 4, "verification at run time").

A TABLE_MAP lists the binlog type code of every column the following rows events carry. If the schema
history drifted from the server (a DDL parsed wrongly, skipped by `skip.unparseable.ddl`, filtered out,
or a history restored from the wrong point), rows would be decoded into the wrong columns. Comparing
the column count and each column's type family catches that before any row is emitted.

Type codes are MySQL's `enum_field_types`; ENUM/SET arrive as STRING with the real type in the
metadata, which pmr resolves, so both forms are accepted.
"""

from __future__ import annotations

from typing import Sequence

from connector.converters.base import base_type_name
from schema_history.model import Table

TINY, SHORT, LONG, FLOAT, DOUBLE, TIMESTAMP, LONGLONG, INT24 = 1, 2, 3, 4, 5, 7, 8, 9
DATE, TIME, DATETIME, YEAR, NEWDATE, VARCHAR, BIT = 10, 11, 12, 13, 14, 15, 16
TIMESTAMP2, DATETIME2, TIME2, VECTOR, JSON, NEWDECIMAL, ENUM, SET = 17, 18, 19, 242, 245, 246, 247, 248
TINY_BLOB, MEDIUM_BLOB, LONG_BLOB, BLOB, VAR_STRING, STRING, GEOMETRY = 249, 250, 251, 252, 253, 254, 255
DECIMAL_OLD = 0

_BLOBS = frozenset({TINY_BLOB, MEDIUM_BLOB, LONG_BLOB, BLOB})
_STRINGS = frozenset({STRING, VAR_STRING, VARCHAR})

# Column base type name (as the DDL parser records it) → binlog type codes it may arrive as.
EXPECTED: dict[str, frozenset[int]] = {
    **{t: frozenset({TINY}) for t in ("TINYINT", "INT1", "BOOL", "BOOLEAN")},
    **{t: frozenset({SHORT}) for t in ("SMALLINT", "INT2")},
    **{t: frozenset({INT24}) for t in ("MEDIUMINT", "INT3", "MIDDLEINT")},
    **{t: frozenset({LONG}) for t in ("INT", "INTEGER", "INT4")},
    **{t: frozenset({LONGLONG}) for t in ("BIGINT", "INT8", "SERIAL")},
    **{t: frozenset({FLOAT, DOUBLE}) for t in ("FLOAT", "FLOAT4", "REAL")},  # REAL_AS_FLOAT decides REAL
    **{t: frozenset({DOUBLE}) for t in ("DOUBLE", "DOUBLE PRECISION", "FLOAT8")},
    **{t: frozenset({NEWDECIMAL, DECIMAL_OLD}) for t in ("DECIMAL", "DEC", "NUMERIC", "FIXED")},
    "DATE": frozenset({DATE, NEWDATE}),
    "TIME": frozenset({TIME, TIME2}),
    "DATETIME": frozenset({DATETIME, DATETIME2}),
    "TIMESTAMP": frozenset({TIMESTAMP, TIMESTAMP2}),
    "YEAR": frozenset({YEAR}),
    "BIT": frozenset({BIT}),
    **{t: _STRINGS for t in ("CHAR", "VARCHAR", "BINARY", "VARBINARY", "NCHAR", "NVARCHAR", "CHARACTER",
                             "CHARACTER VARYING", "CHAR VARYING", "NATIONAL CHAR", "NATIONAL CHARACTER",
                             "NATIONAL VARCHAR", "NCHAR VARCHAR", "NATIONAL CHAR VARYING",
                             "NATIONAL CHARACTER VARYING", "NCHAR VARYING")},
    **{t: _BLOBS for t in ("TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT", "TINYBLOB", "BLOB", "MEDIUMBLOB",
                           "LONGBLOB", "LONG", "LONG VARCHAR", "LONG VARBINARY")},
    "ENUM": frozenset({ENUM, STRING}),
    "SET": frozenset({SET, STRING}),
    "JSON": frozenset({JSON}) | _BLOBS,  # MariaDB's JSON is LONGTEXT
    **{t: frozenset({GEOMETRY}) for t in ("GEOMETRY", "POINT", "LINESTRING", "POLYGON", "MULTIPOINT",
                                          "MULTILINESTRING", "MULTIPOLYGON", "GEOMETRYCOLLECTION",
                                          "GEOMCOLLECTION")},
    "VECTOR": frozenset({VECTOR}),
}


def mismatch(table: Table, binlog_types: Sequence[int]) -> str | None:
    """Why `binlog_types` (one TABLE_MAP) cannot belong to `table`, or None when they agree.
    Types the table above does not list (MariaDB's INET6/UUID, ...) are not checked."""
    if len(binlog_types) != len(table.columns):
        return (f"the binlog has {len(binlog_types)} columns, the schema {len(table.columns)} "
                f"({', '.join(c.name for c in table.columns)})")
    for column, code in zip(table.columns, binlog_types):
        allowed = EXPECTED.get(base_type_name(column))
        if allowed is not None and code not in allowed:
            return f"column {column.name!r} is {column.type_name} in the schema but has binlog type {code}"
    return None
