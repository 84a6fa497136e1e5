"""BIT(1) → boolean; BIT(n>1) → `io.debezium.data.Bits` bytes, little-endian, (n+7)//8 bytes long.

python-mysql-replication gives a string of '0'/'1' digits (B10); PyMySQL gives the big-endian bytes.
"""

from __future__ import annotations

from typing import Any

from connector.converters.base import Kind, ValueSettings
from connector.serde.connect_schema import ConnectSchema, Type
from schema_history.model import Column


def _bits_int(value: Any) -> int:
    if isinstance(value, str):
        return int(value, 2) if value else 0
    if isinstance(value, (bytes, bytearray)):
        return int.from_bytes(value, "big")
    return int(value)


def _parse_default(expr: str) -> int | None:
    # the history keeps BIT defaults as the binary digits (b'10101' → "10101"), as Debezium's
    # BinlogDefaultValueConverter.convertToBits expects
    text = expr.strip()
    if text.upper() == "NULL":
        return None
    if text[:2].lower() == "b'" and text.endswith("'"):
        text = text[2:-1]
    elif text[:2] == "0x":
        return int(text[2:], 16)
    text = text.strip("'")
    if text.lower() in ("true", "false"):
        return 1 if text.lower() == "true" else 0
    return int(text or "0", 2)


def bit(column: Column, settings: ValueSettings) -> Kind:
    length = column.length or 1
    if length == 1:
        to_bool = lambda v: _bits_int(v) != 0  # noqa: E731
        return Kind(ConnectSchema(Type.BOOLEAN), to_bool, to_bool,
                    lambda e, c: None if (n := _parse_default(e)) is None else n != 0)
    width = (length + 7) // 8
    schema = ConnectSchema(Type.BYTES, name="io.debezium.data.Bits", version=1, parameters=(("length", str(length)),))

    def to_bytes(value: Any) -> bytes:
        return _bits_int(value).to_bytes(width, "little")

    return Kind(schema, to_bytes, to_bytes, lambda e, c: None if (n := _parse_default(e)) is None else to_bytes(n))
