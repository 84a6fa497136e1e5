"""Kafka Connect's header transforms: `InsertHeader`, `DropHeaders`, `HeaderFrom$Key|$Value`.

Headers are appended after the record's own (Connect's `Headers.add`), written by the run's header
converter (`HeaderCodec`). `InsertHeader`'s literal is typed as Kafka's `Values.parseString` types it;
binlog-cdc takes the literals whose type is unambiguous (true/false, integers, plain words) and refuses
the rest at start.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, Sequence

from connector.events.kinds import ConnectRecord
from connector.serde.connect_schema import ConnectSchema, Type
from connector.transforms.fields import Side
from connector.transforms.headers import HeaderCodec
from connector.transforms.structs import PerSchema, as_row, copy_basics, with_default_for_null

__all__ = ["DropHeaders", "HeaderFrom", "InsertHeader", "parse_literal"]

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
_INTEGER = re.compile(r"[+-]?[0-9]+")
_INT_TYPES = ((Type.INT8, 2**7), (Type.INT16, 2**15), (Type.INT32, 2**31), (Type.INT64, 2**63))


def parse_literal(text: str) -> tuple[ConnectSchema, Any]:
    """`Values.parseString` for booleans, integers (the narrowest int type that holds them) and words."""
    if text.lower() in ("true", "false"):
        return ConnectSchema(Type.BOOLEAN), text.lower() == "true"
    if _INTEGER.fullmatch(text):
        value = int(text)
        for kind, bound in _INT_TYPES:
            if -bound <= value < bound:
                return ConnectSchema(kind), value
    if _WORD.fullmatch(text) and text.lower() != "null":
        return ConnectSchema(Type.STRING), text
    raise ValueError(f"value.literal={text!r}: binlog-cdc takes true/false, an integer, or a word (letters, digits, "
                     "_ . -, starting with a letter), whose Kafka type is unambiguous; Kafka would parse this one "
                     "as a number, date, array or map")


@dataclass(frozen=True)
class InsertHeader:
    name: str
    value: bytes | None  # encoded once

    @classmethod
    def build(cls, name: str, literal: str, codec: HeaderCodec) -> "InsertHeader":
        schema, value = parse_literal(literal)
        return cls(name, codec.encode(schema, value))

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        return replace(record, headers=[*record.headers, (self.name, self.value)])


@dataclass(frozen=True)
class DropHeaders:
    names: frozenset[str]

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        kept = [h for h in record.headers if h[0] not in self.names]
        return record if len(kept) == len(record.headers) else replace(record, headers=kept)


class HeaderFrom:
    """`fields` copied (or moved: removed from the struct) into headers named by `headers`."""

    def __init__(self, side: Side, fields: Sequence[str], headers: Sequence[str], move: bool,
                 codec: HeaderCodec, replace_null_with_default: bool = True) -> None:
        if len(fields) != len(headers):
            raise ValueError("'fields' config must have the same number of elements as 'headers' config.")
        self._side, self._fields, self._headers, self._move, self._codec = side, tuple(fields), tuple(headers), move, codec
        self._replace_null = replace_null_with_default
        self._plans = PerSchema(self._plan)

    def _plan(self, schema: ConnectSchema | None) -> tuple[ConnectSchema, tuple[int, ...], tuple[int, ...]]:
        assert schema is not None
        index = {f.name: i for i, f in enumerate(schema.fields)}
        missing = [f for f in self._fields if f not in index]
        if missing:
            raise ValueError(f"HeaderFrom: {schema.name} has no field {', '.join(missing)}")
        kept = tuple(i for i, f in enumerate(schema.fields) if f.name not in self._fields)
        moved = copy_basics(schema, [schema.fields[i] for i in kept]) if self._move else schema
        return moved, kept, tuple(index[f] for f in self._fields)

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        schema, value = self._side.get(record)
        if value is None or schema is None or schema.type is not Type.STRUCT:
            raise ValueError(f"HeaderFrom needs a struct {'key' if self._side.key else 'value'} with a schema on "
                             f"{record.topic}; guard it with a predicate (RecordIsTombstone, negate=true)")
        new_schema, kept, sources = self._plans(schema)
        row = as_row(schema, value)
        row = with_default_for_null(schema, row) if self._replace_null else row  # Struct.get or getWithoutDefault
        headers = list(record.headers)
        for name, i in zip(self._headers, sources):
            headers.append((name, self._codec.encode(schema.fields[i].schema, row[i])))
        if self._move:
            record = self._side.put(record, new_schema, [row[i] for i in kept])
        return replace(record, headers=headers)
