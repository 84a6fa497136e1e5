"""Kafka Connect's `Flatten$Key|$Value`: nested structs become top-level fields named by their path
joined with `delimiter` (`after.id`, `source.ts_ms`).

As Kafka's: the flat schema is `copySchemaBasics` of the outer one (required); a leaf keeps its schema's
basics and default and becomes optional when it or any struct above it is optional; a null struct leaves
its leaves null; a leaf is read with `Struct.get` (a null with a default reads as the default). The paths
are found once per input schema, so a record costs one walk of its leaves.
"""

from __future__ import annotations

from typing import Any

from connector.events.kinds import ConnectRecord
from connector.serde.connect_schema import NO_DEFAULT, ConnectSchema, Field, Type
from connector.transforms.fields import Side
from connector.transforms.structs import PerSchema, as_row

__all__ = ["Flatten"]

_LEAVES = (Type.INT8, Type.INT16, Type.INT32, Type.INT64, Type.FLOAT32, Type.FLOAT64, Type.BOOLEAN, Type.STRING,
           Type.BYTES)

# one leaf: the field indices from the outer struct down to it, and the default a null reads as
_Path = tuple[tuple[int, ...], Any]


class Flatten:
    def __init__(self, side: Side, delimiter: str) -> None:
        self._side, self._delimiter = side, delimiter
        self._plans = PerSchema(self._plan)

    def _plan(self, schema: ConnectSchema | None) -> tuple[ConnectSchema, tuple[_Path, ...]]:
        assert schema is not None
        fields: list[Field] = []
        paths: list[_Path] = []
        self._walk(schema, "", (), schema.optional, fields, paths)
        flat = ConnectSchema(Type.STRUCT, optional=False, name=schema.name, version=schema.version, doc=schema.doc,
                             parameters=schema.parameters, fields=tuple(fields))
        return flat, tuple(paths)

    def _walk(self, schema: ConnectSchema, prefix: str, at: tuple[int, ...], optional: bool, fields: list[Field],
              paths: list[_Path]) -> None:
        for i, field in enumerate(schema.fields):
            name = field.name if not prefix else prefix + self._delimiter + field.name
            leaf_optional = optional or field.schema.optional
            if field.schema.type is Type.STRUCT:
                self._walk(field.schema, name, (*at, i), leaf_optional, fields, paths)
            elif field.schema.type in _LEAVES:
                s = field.schema
                default = s.default if s.has_default else NO_DEFAULT
                fields.append(Field(name, ConnectSchema(s.type, optional=leaf_optional, name=s.name, version=s.version,
                                                        doc=s.doc, parameters=s.parameters, default=default)))
                paths.append(((*at, i), s.default if s.has_default else None))
            else:
                raise ValueError(f"Flatten transformation does not support {field.schema.type.value} for record "
                                 f"with schemas (for field {name}).")

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        schema, value = self._side.get(record)
        if value is None or schema is None or schema.type is not Type.STRUCT:
            raise ValueError(f"Flatten needs a struct {'key' if self._side.key else 'value'} with a schema on "
                             f"{record.topic}; guard it with a predicate (RecordIsTombstone, negate=true)")
        flat, paths = self._plans(schema)
        out = []
        for indices, default in paths:
            node: Any = value
            node_schema = schema
            for depth, i in enumerate(indices):
                if node is None:  # a null struct: Kafka puts nothing for its leaves
                    break
                node = as_row(node_schema, node)[i]
                node_schema = node_schema.fields[i].schema
                if depth == len(indices) - 1 and node is None and default is not None:
                    node = default  # Struct.get of the leaf
            out.append(node)
        return self._side.put(record, flat, out)
