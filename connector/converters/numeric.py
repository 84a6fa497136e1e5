"""Integer, boolean and floating-point columns (Debezium `BinlogValueConverters` + `JdbcValueConverters`).

Connect types follow the MySQL connector: TINYINT (signed or not) and SMALLINT → int16, SMALLINT
UNSIGNED / MEDIUMINT / INT → int32, INT UNSIGNED / BIGINT → int64, BIGINT UNSIGNED → int64 in `long`
mode (values above 2^63-1 wrap to negative, as Java's `long` does) or Decimal(20,0) in `precise` mode.
FLOAT → float32 (printed with Float.toString), DOUBLE → float64. REAL as written in a DDL is JDBC REAL, a
float32 whatever its (M,D) (reference run longtail); the server's SHOW CREATE TABLE spells it `double`.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from connector.config.modes import BigIntUnsignedHandlingMode
from connector.converters.base import Kind, ValueSettings, base_type_name, numeric_default_text, unsigned
from connector.serde.connect_schema import DECIMAL_NAME, ConnectSchema, Type
from connector.java.text import to_float32
from schema_history.model import Column

_INT_TYPES: dict[tuple[str, bool], Type] = {
    ("TINYINT", False): Type.INT16,
    ("TINYINT", True): Type.INT16,
    ("INT1", False): Type.INT16,
    ("INT1", True): Type.INT16,
    ("SMALLINT", False): Type.INT16,
    ("INT2", False): Type.INT16,
    ("SMALLINT", True): Type.INT32,
    ("INT2", True): Type.INT32,
    ("MEDIUMINT", False): Type.INT32,
    ("MEDIUMINT", True): Type.INT32,
    ("MIDDLEINT", False): Type.INT32,
    ("MIDDLEINT", True): Type.INT32,
    ("INT3", False): Type.INT32,
    ("INT3", True): Type.INT32,
    ("INT", False): Type.INT32,
    ("INTEGER", False): Type.INT32,
    ("INT4", False): Type.INT32,
    ("INT", True): Type.INT64,
    ("INTEGER", True): Type.INT64,
    ("INT4", True): Type.INT64,
    ("BIGINT", False): Type.INT64,
    ("INT8", False): Type.INT64,
}

_TWO_64 = 1 << 64
_MAX_LONG = (1 << 63) - 1


def _wrap_long(value: int) -> int:
    return value - _TWO_64 if value > _MAX_LONG else value


def _int_default(expr: str, column: Column) -> Any:
    text = numeric_default_text(expr)
    return None if text is None else int(Decimal(text))


def integer(column: Column, settings: ValueSettings) -> Kind:
    base = base_type_name(column)
    is_unsigned = unsigned(column)
    if base in ("BIGINT", "INT8", "SERIAL") and (is_unsigned or base == "SERIAL"):
        if settings.bigint_unsigned_mode is BigIntUnsignedHandlingMode.PRECISE:
            schema = ConnectSchema(Type.BYTES, name=DECIMAL_NAME, version=1,
                                   parameters=(("scale", "0"), ("connect.decimal.precision", "20")))
            return Kind(schema, Decimal, Decimal, lambda e, c: _opt(Decimal, _int_default(e, c)))
        # values wrap like Java's long; a DDL default above Long.MAX_VALUE saturates instead (seen
        # in the reference run: DEFAULT 18446744073709551615 → 9223372036854775807)
        return Kind(ConnectSchema(Type.INT64), _wrap_long, _wrap_long,
                    lambda e, c: _opt(lambda v: min(v, _MAX_LONG), _int_default(e, c)))
    connect_type = _INT_TYPES.get((base, is_unsigned), Type.INT64 if is_unsigned else Type.INT32)
    return Kind(ConnectSchema(connect_type), None, None, _int_default)


def _opt(fn: Any, value: Any) -> Any:
    return None if value is None else fn(value)


def _to_bool(value: Any) -> bool:
    if isinstance(value, (bytes, bytearray)):
        return any(value)
    return bool(int(value)) if not isinstance(value, bool) else value


def _bool_default(expr: str, column: Column) -> Any:
    text = expr.strip().strip("'").upper()
    if text in ("", "NULL"):
        return None
    return text in ("1", "TRUE", "B'1'") or (text.isdigit() and int(text) != 0)


def boolean(column: Column, settings: ValueSettings) -> Kind:
    return Kind(ConnectSchema(Type.BOOLEAN), _to_bool, _to_bool, _bool_default)


def _float_default(expr: str, column: Column) -> Any:
    text = numeric_default_text(expr)
    return None if text is None else float(text)


def floating(column: Column, settings: ValueSettings) -> Kind:
    base = base_type_name(column)
    # Debezium: float32 only for a FLOAT without scale and length <= 24; FLOAT(p>24) and the
    # deprecated FLOAT(M,D) fall through to JDBC's FLOAT, a float64 (reference run types-extra).
    single = base == "REAL" or (
        base in ("FLOAT", "FLOAT4") and column.scale is None and (column.length is None or column.length <= 24))
    if single:
        return Kind(ConnectSchema(Type.FLOAT32), None, to_float32, _float_default)
    if base in ("FLOAT", "FLOAT4") and column.scale is not None:
        # FLOAT(M,D) is stored as a float32 but emitted as float64: JDBC's Float widened to double
        # (1234.567 → 1234.5670166015625); binlog values already are the widened float32
        return Kind(ConnectSchema(Type.FLOAT64), None, to_float32, _float_default)
    return Kind(ConnectSchema(Type.FLOAT64), None, None, _float_default)  # already floats
