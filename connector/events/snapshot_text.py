"""Snapshot rows from the server's text protocol straight to record bytes (the snapshot's fast path).

The general path decodes a row with PyMySQL (text → `int`/`Decimal`/`str`), converts it to Connect
values (`TableSchema.convert_snapshot_row`), then writes the key and envelope JSON from those values.
Here, once per table read, each column's three steps (PyMySQL's decoder for the column as the result
set describes it, the column's `from_snapshot`, the field's JSON writer) and its null rule (NOT NULL
fallback, then the schema default, `null` or an error, as `json_values._struct_writer`) are composed
into one function `raw bytes → JSON text`, and the envelope into one `%`-template. The bytes are the
general path's, by construction; two steps are skipped where they are the identity on the text:

* integers with no converter: MySQL's text *is* the JSON number (not for ZEROFILL columns);
* precise DECIMAL: the unscaled integer is read off the text when it has exactly `scale` decimals.

`TableSchema.snapshot_text_encoder(decoders)` builds the encoder; the dispatcher uses it when records
are JSON text and op=r is not skipped; snapshot/raw_rows.py reads the raw rows.
"""

from __future__ import annotations

import binascii
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Callable, Sequence

from connector.serde.connect_schema import DECIMAL_NAME, ConnectSchema, Type
from connector.java.text import jackson_string
from connector.serde.json_values import DataError, decimal_unscaled_bytes, value_writer

if TYPE_CHECKING:
    from connector.events.table_schema import TableSchema

__all__ = ["Decoder", "RawRow", "TextEncoder", "column_text", "compile_text_encoder", "decode"]

RawRow = list  # bytes | None per column, in SELECT order
Decoder = tuple[str | None, Callable[[Any], Any] | None]  # PyMySQL's (encoding, converter) of a result column
TextEncoder = Callable[[RawRow, str, int], tuple[bytes | None, bytes]]  # (raw row, source JSON, ts_ns) → key, value
ColumnText = Callable[[bytes | None], str]

_INTEGERS = (Type.INT8, Type.INT16, Type.INT32, Type.INT64)


def decode(raw: bytes | None, decoder: Decoder) -> Any:
    """One raw text-protocol value as PyMySQL would return it (for the few values looked at one by one:
    snapshot keys, and the column named in a row error)."""
    if raw is None:
        return None
    encoding, convert = decoder
    value: Any = raw if encoding is None else raw.decode(encoding)
    return value if convert is None else convert(value)


def _null_text(schema: ConnectSchema, write: Callable[[Any], str], fallback: Any) -> Callable[[], str]:
    """What a null becomes, in the general path's order: the column's NOT NULL fallback, the schema
    default, `null` when optional, else JsonConverter's error."""
    if fallback is not None:
        text = write(fallback)
    elif schema.has_default:
        text = write(schema.default)
    elif schema.optional:
        text = "null"
    else:
        def required() -> str:
            raise DataError(f"null value for a required field of type {schema.type.value} ({schema.name or ''})")
        return required
    return lambda: text


def column_text(decoder: Decoder, convert: Callable[[Any], Any] | None, schema: ConnectSchema, fallback: Any,
                zerofill: bool) -> ColumnText:
    """One column's raw text-protocol value (or None) → its JSON text in the record."""
    encoding, decode = decoder
    write = value_writer(schema)
    null = _null_text(schema, write, fallback)
    if convert is None and decode is int and encoding == "ascii" and schema.type in _INTEGERS \
            and schema.name is None and not zerofill:
        return lambda raw: null() if raw is None else raw.decode("ascii")
    if convert is None and decode is Decimal and encoding == "ascii" and schema.name == DECIMAL_NAME:
        return _decimal_text(int(schema.parameter("scale") or 0), null)

    if encoding is not None and decode is None and convert is not None:  # text, temporal, JSON, ENUM/SET
        def converted(raw: bytes | None) -> str:
            if raw is None:
                return null()
            value = convert(raw.decode(encoding))
            return null() if value is None else write(value)

        return converted

    def text(raw: bytes | None) -> str:
        if raw is None:
            return null()
        value: Any = raw if encoding is None else raw.decode(encoding)
        if decode is not None:
            value = decode(value)
        if convert is not None:
            value = convert(value)
        return null() if value is None else write(value)

    return text


def _decimal_text(scale: int, null: Callable[[], str]) -> ColumnText:
    def text(raw: bytes | None) -> str:
        if raw is None:
            return null()
        digits = raw.decode("ascii")
        whole, _, fraction = digits.partition(".")
        if len(fraction) == scale:  # MySQL prints a DECIMAL(p, s) with exactly s decimals
            unscaled = int(whole + fraction)
            bits = unscaled.bit_length() if unscaled >= 0 else (~unscaled).bit_length()
            data = unscaled.to_bytes(bits // 8 + 1, "big", signed=True)
        else:
            data = decimal_unscaled_bytes(Decimal(digits), scale)
        return '"' + binascii.b2a_base64(data, newline=False).decode("ascii") + '"'

    return text


def _struct_template(names: Sequence[str]) -> str:
    """`{"a":%s,"b":%s}` for the field names (JSON-escaped, `%` doubled for the template)."""
    if not names:
        return "{}"
    return "{" + ",".join(jackson_string(n).replace("%", "%%") + ":%s" for n in names) + "}"


def compile_text_encoder(ts: TableSchema, decoders: Sequence[Decoder]) -> TextEncoder | None:
    """The encoder for rows of `ts`'s table read with `decoders` (one per SELECT column), or None when
    the result's columns are not the table's (an overridden select statement)."""
    columns = ts.table.columns
    if len(decoders) != len(columns):
        return None
    fallbacks = dict(ts._fallbacks)
    zerofill = ["ZEROFILL" in c.type_name.upper() for c in columns]

    def fn(index: int, schema: ConnectSchema) -> ColumnText:
        return column_text(decoders[index], ts.converters[index].from_snapshot, schema, fallbacks.get(index),
                           zerofill[index])

    positions = range(len(columns)) if ts._value_indexes is None else ts._value_indexes
    value_fields = ts.value_schema.fields
    value_fns = [fn(i, f.schema) for i, f in zip(positions, value_fields)]
    value_template = (
        ts._value_prefix.replace("%", "%%") + '{"before":null,"after":'
        + _struct_template([f.name for f in value_fields])
        + ',"source":%s,"transaction":null,"op":"r","ts_ms":%d,"ts_us":%d,"ts_ns":%d'
        + ("}}" if ts.schemas_enable else "}")
    )
    key_template = ""
    key_plan: list[tuple[int, ColumnText]] = []
    if ts.key_schema is not None:
        key_template = (ts._key_prefix.replace("%", "%%") + _struct_template([f.name for f in ts.key_schema.fields])
                        + ts._key_suffix.replace("%", "%%"))
        key_plan = [(i, fn(i, f.schema)) for i, f in zip(ts.key_indexes, ts.key_schema.fields)]
    projected = ts._value_indexes is not None
    value_plan = list(zip(positions, value_fns))

    def encode(raw: RawRow, source_json: str, ts_ns: int) -> tuple[bytes | None, bytes]:
        if projected:
            texts = [f(raw[i]) for i, f in value_plan]
        else:
            texts = [f(v) for f, v in zip(value_fns, raw)]
        texts += (source_json, ts_ns // 1_000_000, ts_ns // 1_000, ts_ns)
        value = (value_template % tuple(texts)).encode("utf-8")
        if not key_plan:
            return None, value
        key = key_template % tuple([f(raw[i]) for i, f in key_plan])
        return key.encode("utf-8"), value

    return encode
