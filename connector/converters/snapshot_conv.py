"""The PyMySQL `conv` mapping the snapshot must use so that `from_snapshot` converters see exact values.

PyMySQL's `conv` holds both encoders (keyed by Python type, kept as is) and decoders (keyed by
FIELD_TYPE). Integers, floats and DECIMAL keep PyMySQL's decoders (int/float/Decimal are exact for
them); DATE/TIME/DATETIME/TIMESTAMP decoders are removed so the server's text arrives unchanged
(exact, no Python datetime range limits or zero-date surprises, and cheaper than building objects);
strings, BIT, BLOB and JSON stay as PyMySQL decodes them (str for character data, bytes for binary).
"""

from __future__ import annotations

from typing import Any

from pymysql import converters
from pymysql.constants import FIELD_TYPE

__all__ = ["pymysql_conversions", "allow_binary_vectors", "FIELD_TYPE_VECTOR"]

FIELD_TYPE_VECTOR = 242  # MySQL 9; unknown to PyMySQL 1.2

_RAW_TEXT = (FIELD_TYPE.DATE, FIELD_TYPE.NEWDATE, FIELD_TYPE.TIME, FIELD_TYPE.DATETIME, FIELD_TYPE.TIMESTAMP)


def pymysql_conversions() -> dict[Any, Any]:
    """A fresh dict for `pymysql.connect(conv=...)`; the session must also `SET time_zone='+00:00'`."""
    conv = dict(converters.conversions)
    for field_type in _RAW_TEXT:
        conv.pop(field_type, None)
    return conv


def allow_binary_vectors() -> None:
    """Let PyMySQL return MySQL 9 VECTOR values as bytes.

    PyMySQL decodes every column type it does not list as text with the `ascii` codec, so a
    `SELECT *` over a VECTOR column fails (UnicodeDecodeError, then a broken connection). Listing the
    type among PyMySQL's text types makes it honour the binary charset and return bytes. This changes
    PyMySQL's module-level set, once, for the whole process (idempotent).
    """
    from pymysql import connections

    connections.TEXT_TYPES.add(FIELD_TYPE_VECTOR)
