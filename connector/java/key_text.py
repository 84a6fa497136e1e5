"""`String.valueOf` of the key objects Debezium's incremental snapshot holds, and `Arrays.toString` of a key.

Debezium reads a chunk's keys with its MySQL field reader over Connector/J's text protocol, so a key value is:
DATE a `java.time.LocalDate` (`2024-01-02`), DATETIME a `java.sql.Timestamp` (`2024-01-02 03:04:05.0`: at least
one fraction digit, trailing zeros dropped), TIME a `java.time.Duration` (`PT10H15M30S`, `PT0S`), DECIMAL a
`BigDecimal` (`toString`: scientific once the adjusted exponent is below -6), BINARY/VARBINARY/BIT a `byte[]`,
whose text is its class and identity hash (`[B@1b6d3586`, different in every JVM: here a stable stand-in of
the same shape), FLOAT/DOUBLE a `Float`/`Double`, TINYINT/SMALLINT an `Integer`, strings as they are.
The notifications' `maximum_key`/`last_processed_key` join these texts with "," (`Objects.toString(x,
"<null>")`); the ChunkFrom/ChunkTo/TableFrom/TableTo metrics are `Arrays.toString` (`[a, b]`, `null`).
"""

from __future__ import annotations

import datetime as dt
import zlib
from decimal import Decimal
from typing import Any, Sequence

from connector.java.text import java_double

__all__ = ["arrays_to_string", "big_decimal_text", "java_value_text"]


def big_decimal_text(value: Decimal) -> str:
    """`BigDecimal.toString()`: plain unless the exponent is positive or the adjusted exponent < -6."""
    sign, digits, exponent = value.as_tuple()
    assert isinstance(exponent, int), "NaN/Infinity are not DECIMAL values"
    coefficient = "".join(map(str, digits)) or "0"
    minus = "-" if sign else ""
    adjusted = exponent + len(coefficient) - 1
    if exponent <= 0 and adjusted >= -6:
        if exponent == 0:
            return minus + coefficient
        padded = coefficient.rjust(-exponent + 1, "0")
        return f"{minus}{padded[:exponent]}.{padded[exponent:]}"
    mantissa = coefficient[0] + ("." + coefficient[1:] if len(coefficient) > 1 else "")
    return f"{minus}{mantissa}E{'+' if adjusted > 0 else ''}{adjusted}"


def _timestamp(value: dt.datetime) -> str:
    """`java.sql.Timestamp.toString()`: nanos with trailing zeros dropped, `.0` when there are none."""
    fraction = f"{value.microsecond:06d}000".rstrip("0") or "0"
    return f"{value:%Y-%m-%d %H:%M:%S}.{fraction}"


def _jdiv(a: int, b: int) -> int:
    """Java's long division (truncates toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _duration(value: dt.timedelta) -> str:
    """`java.time.Duration.toString()`, step by step as the JDK writes it (seconds floor, nanos >= 0)."""
    micros = (value.days * 86_400 + value.seconds) * 1_000_000 + value.microseconds
    if micros == 0:
        return "PT0S"
    seconds, nanos = divmod(micros, 1_000_000)
    nanos *= 1000
    effective = seconds + 1 if seconds < 0 and nanos > 0 else seconds
    hours = _jdiv(effective, 3600)
    minutes = _jdiv(effective - hours * 3600, 60)
    secs = effective - hours * 3600 - minutes * 60
    out = "PT" + (f"{hours}H" if hours else "") + (f"{minutes}M" if minutes else "")
    if secs == 0 and nanos == 0 and len(out) > 2:
        return out
    out += ("-0" if secs == 0 else str(secs)) if seconds < 0 and nanos > 0 else str(secs)
    if nanos > 0:
        digits = str(2_000_000_000 - nanos if seconds < 0 else nanos + 1_000_000_000).rstrip("0")
        out += "." + digits[1:]
    return out + "S"


def java_value_text(value: Any, null: str = "null") -> str:
    """`String.valueOf` of the Java object Debezium holds for a key value read into Python."""
    if value is None:
        return null
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Decimal):
        return big_decimal_text(value)
    if isinstance(value, float):
        return java_double(value)
    if isinstance(value, dt.datetime):
        return _timestamp(value)
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return _duration(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return f"[B@{zlib.crc32(bytes(value)) & 0x7FFFFFFF:x}"
    return str(value)


def arrays_to_string(values: Sequence[Any] | None) -> str | None:
    """`Arrays.toString(Object[])`, or None for a null array (SnapshotMeter's arrayToString)."""
    if values is None:
        return None
    return "[" + ", ".join(java_value_text(v) for v in values) + "]"
