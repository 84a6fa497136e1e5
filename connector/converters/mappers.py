"""Column mappers: `column.truncate.to.N.chars`, `column.mask.with.N.chars`, `column.mask.hash[.v2]`.

They change the *value* image of matching string columns (never the key) and add a schema parameter,
as Debezium's `TruncateStrings` / `MaskStrings` do; the reference run `types-mappers` shows:

* truncate: at most N UTF-16 units (Java `substring`), parameter `truncateLength=N`; nulls stay null;
* mask with N chars: every value, null included, becomes N `*`; parameter `masked=true`;
* hash: lower-case hex digest of salt + value, cut to the column length when it has one; v1 hashes
  the Java-serialised String (`ObjectOutputStream.writeObject`, modified UTF-8), v2 its UTF-8 bytes;
  nulls stay null; parameter `masked=true`.

Patterns match `db.table.column` in full (case-insensitive, like Debezium's column selectors).
"""

from __future__ import annotations

import hashlib
import re
import struct
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from connector.config.families import ColumnMapperSettings
from connector.errors import ConfigError
from schema_history.model import Column, TableId

__all__ = ["ColumnMapper", "MapperRule", "column_mapper_rules", "mapper_lookup"]


@dataclass(frozen=True)
class ColumnMapper:
    """A value transform plus the parameters it adds to the field schema."""

    parameters: tuple[tuple[str, str], ...]
    apply: Callable[[Any], Any]
    maps_null: bool = False  # masking with stars also replaces nulls


@dataclass(frozen=True)
class MapperRule:
    patterns: tuple[re.Pattern[str], ...]
    build: Callable[[Column], ColumnMapper]

    def matches(self, qualified: str) -> bool:
        return any(p.fullmatch(qualified) for p in self.patterns)


def _utf16_truncate(text: str, units: int) -> str:
    if len(text) <= units // 2:  # fast path: cannot exceed the limit even if all are surrogate pairs
        return text
    encoded = text.encode("utf-16-be", "surrogatepass")
    if len(encoded) <= units * 2:
        return text
    return encoded[: units * 2].decode("utf-16-be", "surrogatepass")


def _truncate(length: int) -> Callable[[Column], ColumnMapper]:
    return lambda column: ColumnMapper((("truncateLength", str(length)),),
                                       lambda v: _utf16_truncate(v, length) if isinstance(v, str) else v)


def _mask(length: int) -> Callable[[Column], ColumnMapper]:
    stars = "*" * length
    return lambda column: ColumnMapper((("masked", "true"),), lambda v: stars, maps_null=True)


def _modified_utf8(text: str) -> bytes:
    out = bytearray()
    raw = text.encode("utf-16-be", "surrogatepass")
    for (unit,) in struct.iter_unpack(">H", raw):
        if 0 < unit < 0x80:
            out.append(unit)
        elif unit < 0x800:  # includes NUL as C0 80
            out += bytes((0xC0 | unit >> 6, 0x80 | unit & 0x3F))
        else:
            out += bytes((0xE0 | unit >> 12, 0x80 | unit >> 6 & 0x3F, 0x80 | unit & 0x3F))
    return bytes(out)


def _java_serialized_string(text: str) -> bytes:
    body = _modified_utf8(text)
    if len(body) <= 0xFFFF:
        return b"\xac\xed\x00\x05\x74" + struct.pack(">H", len(body)) + body
    return b"\xac\xed\x00\x05\x7c" + struct.pack(">Q", len(body)) + body


def _hashlib_name(java_algorithm: str) -> str:
    name = java_algorithm.lower()
    return name.replace("sha3-", "sha3_") if name.startswith("sha3-") else name.replace("-", "")


def _hash(algorithm: str, salt: str, v2: bool) -> Callable[[Column], ColumnMapper]:
    hname = _hashlib_name(algorithm)
    try:
        hashlib.new(hname)  # fail at start-up on an unknown algorithm
    except ValueError:
        raise ConfigError([f"column.mask.hash.{algorithm}.with.salt.<salt>: {algorithm!r} is not a hash algorithm "
                           f"this Python knows (e.g. SHA-256, SHA-512, MD5)"]) from None
    salt_bytes = salt.encode("utf-8")

    def build(column: Column) -> ColumnMapper:
        limit = column.length

        def apply(value: Any) -> Any:
            if not isinstance(value, str):
                return value
            data = value.encode("utf-8") if v2 else _java_serialized_string(value)
            digest = hashlib.new(hname, salt_bytes + data).hexdigest()
            return digest[:limit] if limit else digest

        return ColumnMapper((("masked", "true"),), apply)

    return build


def column_mapper_rules(mappers: Sequence[ColumnMapperSettings]) -> list[MapperRule]:
    """Rules from the column mapper settings, in property order."""
    rules = []
    for mapper in mappers:
        patterns = tuple(re.compile(p, re.IGNORECASE) for p in mapper.columns)
        if mapper.kind == "truncate":
            build = _truncate(mapper.length)
        elif mapper.kind == "mask":
            build = _mask(mapper.length)
        else:
            build = _hash(mapper.algorithm, mapper.salt, mapper.hash_v2)
        rules.append(MapperRule(patterns, build))
    return rules


def mapper_lookup(rules: Sequence[MapperRule]) -> Callable[[TableId, Column], ColumnMapper | None] | None:
    """For TableSchemaBuilder: the first matching rule's mapper for a column (None: unchanged)."""
    if not rules:
        return None

    def lookup(table_id: TableId, column: Column) -> ColumnMapper | None:
        qualified = f"{table_id.dotted()}.{column.name}"
        for rule in rules:
            if rule.matches(qualified):
                return rule.build(column)
        return None

    return lookup
