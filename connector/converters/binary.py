"""BINARY/VARBINARY/BLOB columns under `binary.handling.mode` (bytes, base64, base64-url-safe, hex).

python-mysql-replication (B7) strips BINARY(N)'s trailing 0x00 padding and returns `''` (a str) for an
empty or all-zero value; Debezium (like the server's SELECT) keeps the full N bytes, so BINARY values
are re-padded to the column length.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any, Callable

from connector.config.modes import BinaryHandlingMode
from connector.converters.base import Kind, ValueSettings, base_type_name
from connector.serde.connect_schema import ConnectSchema, Type
from schema_history.model import Column


def _as_bytes(value: Any) -> bytes:
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):  # the library's '' for empty values, or text it decoded
        return value.encode("utf-8")
    return bytes(value)


_ENCODINGS: dict[BinaryHandlingMode, tuple[ConnectSchema, Callable[[bytes], Any]]] = {
    BinaryHandlingMode.BYTES: (ConnectSchema(Type.BYTES), lambda b: b),
    BinaryHandlingMode.BASE64: (ConnectSchema(Type.STRING), lambda b: base64.b64encode(b).decode("ascii")),
    BinaryHandlingMode.BASE64_URL_SAFE: (ConnectSchema(Type.STRING),
                                         lambda b: base64.urlsafe_b64encode(b).decode("ascii")),
    BinaryHandlingMode.HEX: (ConnectSchema(Type.STRING), lambda b: binascii.hexlify(b).decode("ascii")),
}


def _parse_default(expr: str) -> bytes | None:
    if expr.upper() == "NULL":
        return None
    return expr.encode("utf-8")


def binary(column: Column, settings: ValueSettings) -> Kind:
    schema, encode = _ENCODINGS[settings.binary_mode]
    if base_type_name(column) == "BINARY" and column.length:
        width = column.length

        def from_binlog(value: Any) -> Any:
            return encode(_as_bytes(value).ljust(width, b"\x00"))
    else:

        def from_binlog(value: Any) -> Any:
            return encode(_as_bytes(value))

    def from_snapshot(value: Any) -> Any:
        return encode(_as_bytes(value))

    def default(expr: str, col: Column) -> Any:
        # Debezium converts the default's String as is: its UTF-8 bytes, never padded
        raw = _parse_default(expr)
        return None if raw is None else encode(raw)

    return Kind(schema, from_binlog, from_snapshot, default)
