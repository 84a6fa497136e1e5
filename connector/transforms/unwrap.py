"""`io.debezium.transforms.ExtractNewRecordState` ("unwrap"): a change event's envelope → the row state.

Follows Debezium 3.6 `ExtractNewRecordState` + `DefaultDeleteHandlingStrategy` step for step:

* records whose value schema is not a `*.Envelope` (schema changes, transactions, heartbeats) pass unchanged;
* `add.headers` are added first (to tombstones too: only `op`, as the string "d");
* tombstones: kept only by `rewrite-with-tombstone`; `op=t` (no before, no after): dropped;
* deletes per `delete.tombstone.handling.mode`: drop → none; tombstone → value schema = `after`'s, value null;
  delete-to-tombstone → a true tombstone; rewrite(-with-tombstone) → the `before` row + `__deleted="true"`;
* creates/updates → the `after` row (+ `__deleted="false"` in the rewrite modes);
* `route.by.field` sets the topic from the row; `add.fields` appends envelope/source/transaction fields
  (schema: Kafka's copySchemaBasics, so the row struct becomes required); `drop.fields.header.name` drops the
  header-listed fields (only optional ones unless `drop.fields.keep.schema.compatible=false`), from the key
  too with `drop.fields.from.key`.

Every schema it builds is built once per (input schema, operation) and reused.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, Sequence

from connector.events.kinds import ConnectRecord
from connector.serde.connect_schema import ConnectSchema, Field, Type
from connector.transforms.headers import HeaderCodec, find_header
from connector.transforms.structs import (PerSchema, as_row, copy_basics, field_index, optional_copy,
                                          with_default_for_null, with_key, with_topic, with_value)

__all__ = ["DeleteHandling", "ExtractNewRecordState", "FieldReference"]

_OPTIONAL_STRING = ConnectSchema(Type.STRING, optional=True)
_STRING = ConnectSchema(Type.STRING)
_TRANSACTION_FIELDS = ("id", "data_collection_order", "total_order")
_TOP_LEVEL_FIELDS = ("op", "ts_ms", "ts_us", "ts_ns")


class DeleteHandling(str, Enum):
    DROP = "drop"
    TOMBSTONE = "tombstone"
    REWRITE = "rewrite"
    REWRITE_WITH_TOMBSTONE = "rewrite-with-tombstone"
    DELETE_TO_TOMBSTONE = "delete-to-tombstone"


@dataclass(frozen=True)
class FieldReference:
    """One entry of `add.fields`/`add.headers`: `[struct.]field[:newName]`, named `<prefix>[struct_]field`."""

    struct: str | None
    field: str
    new_field: str

    @classmethod
    def parse(cls, prefix: str, spec: str) -> "FieldReference":
        parts = spec.split(":")
        if len(parts) > 2:
            raise ValueError(f"unexpected field name {spec!r}")
        splits = parts[0].split(".")
        field = splits[0] if len(splits) == 1 else splits[1]
        if len(splits) == 1:
            struct = (None if field in _TOP_LEVEL_FIELDS else "transaction" if field in _TRANSACTION_FIELDS
                      else "source")
        else:
            struct = splits[0]
        new = prefix + (parts[1] if len(parts) == 2 else field if len(splits) == 1 else f"{struct}_{field}")
        return cls(struct, field, new)

    def locate(self, envelope: ConnectSchema) -> tuple[int | None, int, ConnectSchema] | None:
        """(index of the hosting struct or None for the envelope itself, index in it, field schema), or None
        when the envelope has no such field (Debezium then skips it)."""
        parent_index = None if self.struct is None else field_index(envelope, self.struct)
        if self.struct is not None and parent_index is None:
            return None
        parent = envelope if parent_index is None else envelope.fields[parent_index].schema
        i = field_index(parent, self.field)
        if i is not None:
            return parent_index, i, parent.fields[i].schema
        top = field_index(envelope, self.field)  # a field another SMT added to the envelope itself
        return (None, top, envelope.fields[top].schema) if top is not None else None


@dataclass(frozen=True)
class _Plan:
    """What one envelope schema needs, found once."""

    before: int
    after: int
    op: int
    row_schema: ConnectSchema  # `after`'s schema
    extras: tuple[tuple[FieldReference, int | None, int, ConnectSchema], ...]  # add.fields found
    headers: tuple[tuple[FieldReference, int | None, int, ConnectSchema], ...]  # add.headers found


class ExtractNewRecordState:
    def __init__(self, *, mode: DeleteHandling, add_fields: Sequence[FieldReference] = (),
                 add_headers: Sequence[FieldReference] = (), route_by_field: str | None = None,
                 drop_fields_header: str | None = None, drop_fields_from_key: bool = False,
                 drop_fields_keep_schema_compatible: bool = True, replace_null_with_default: bool = True,
                 header_codec: HeaderCodec) -> None:
        self._mode = mode
        self._add_fields = tuple(add_fields)
        self._add_headers = tuple(add_headers)
        self._route = route_by_field
        self._drop_header = drop_fields_header
        self._drop_from_key = drop_fields_from_key
        self._drop_compatible = drop_fields_keep_schema_compatible
        self._replace_null = replace_null_with_default
        self._codec = header_codec
        self._plans = PerSchema(self._plan)
        self._rewritten: dict[tuple[int, str], tuple[ConnectSchema, ConnectSchema]] = {}
        self._added: dict[tuple[int, str], tuple[ConnectSchema, ConnectSchema]] = {}
        self._dropped: dict[tuple[int, tuple[str, ...]], tuple[ConnectSchema, ConnectSchema, tuple[int, ...]]] = {}

    # ---------------------------------------------------------------- compiled once per envelope schema
    def _plan(self, schema: ConnectSchema | None) -> _Plan | None:
        if schema is None or not schema.name or not schema.name.endswith(".Envelope"):
            return None
        index = {f.name: i for i, f in enumerate(schema.fields)}

        def found(refs: tuple[FieldReference, ...]) -> tuple[tuple[FieldReference, int | None, int, ConnectSchema], ...]:
            return tuple((r, *loc[:2], optional_copy(loc[2])) for r in refs if (loc := r.locate(schema)) is not None)

        return _Plan(index["before"], index["after"], index["op"], schema.fields[index["after"]].schema,
                     found(self._add_fields), found(self._add_headers))

    def _with_deleted(self, schema: ConnectSchema, flag: str) -> ConnectSchema:
        # InsertField$Value(static.field=__deleted): copySchemaBasics + fields + an optional string
        key = (id(schema), flag)
        hit = self._rewritten.get(key)
        if hit is None or hit[0] is not schema:
            hit = (schema, copy_basics(schema, (*schema.fields, Field("__deleted", _OPTIONAL_STRING))))
            self._rewritten[key] = hit
        return hit[1]

    def _with_extras(self, schema: ConnectSchema, op: str, plan: _Plan) -> ConnectSchema:
        key = (id(schema), op)  # Debezium caches by (row schema, op)
        hit = self._added.get(key)
        if hit is None or hit[0] is not schema:
            extra = tuple(Field(ref.new_field, s) for ref, _, _, s in plan.extras)
            hit = (schema, copy_basics(schema, (*schema.fields, *extra)))
            self._added[key] = hit
        return hit[1]

    # ---------------------------------------------------------------- per record
    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        tombstone = record.value is None
        plan = self._plans(record.value_schema)
        if (plan is not None or tombstone) and self._add_headers:
            # Appended to the record's own header list, as Debezium adds them to `record.headers()`: a delete
            # and its tombstone share one list (connector/dispatch), so the tombstone carries the delete's too.
            record.headers.extend(self._headers(plan, record.value))
        if tombstone:
            return record if self._mode is DeleteHandling.REWRITE_WITH_TOMBSTONE else None
        if plan is None:
            return record
        envelope = as_row(record.value_schema, record.value)  # type: ignore[arg-type]
        after, before, op = envelope[plan.after], envelope[plan.before], envelope[plan.op]
        if after is None and before is None:
            return None  # truncate
        rewrite = self._mode in (DeleteHandling.REWRITE, DeleteHandling.REWRITE_WITH_TOMBSTONE)
        if after is None:
            if self._mode is DeleteHandling.DROP:
                return None
            if self._mode is DeleteHandling.DELETE_TO_TOMBSTONE:
                out = with_value(record, None, None)
            elif self._mode is DeleteHandling.TOMBSTONE:
                out = with_value(record, plan.row_schema, None)
            else:
                out = self._rewritten_row(record, before, "true")
            out = self._routed(out, before, plan)
            out = self._drop_fields(out)
            if out.value is not None:
                out = self._add(out, envelope, op, plan)
            return out
        out = self._rewritten_row(record, after, "false") if rewrite else with_value(record, plan.row_schema, after)
        out = self._routed(out, after, plan)
        out = self._add(out, envelope, op, plan)
        return self._drop_fields(out)

    def _rewritten_row(self, record: ConnectRecord, row: Any, flag: str) -> ConnectRecord:
        plan = self._plans(record.value_schema)
        assert plan is not None
        schema = plan.row_schema
        values = as_row(schema, row)
        if self._replace_null:
            values = with_default_for_null(schema, values)
        return with_value(record, self._with_deleted(schema, flag), [*values, flag])

    def _routed(self, record: ConnectRecord, row: Any, plan: _Plan) -> ConnectRecord:
        # before/after share the row schema; a blank or non-string value leaves the topic as it is
        if self._route is None or row is None:
            return record
        index = field_index(plan.row_schema, self._route)
        topic = as_row(plan.row_schema, row)[index] if index is not None else None
        return with_topic(record, topic) if isinstance(topic, str) and topic.strip() else record

    def _add(self, record: ConnectRecord, envelope: Sequence[Any], op: str, plan: _Plan) -> ConnectRecord:
        schema = record.value_schema
        assert schema is not None
        row = list(as_row(schema, record.value))
        for _, parent, i, _ in plan.extras:
            host = envelope if parent is None else envelope[parent]
            row.append(None if host is None else as_row_at(host, i))
        return with_value(record, self._with_extras(schema, op, plan), row)

    def _headers(self, plan: _Plan | None, value: Any) -> list[tuple[str, bytes | None]]:
        if plan is None:  # a tombstone: only `op`, as "d" (ConnectHeaders.addString: a required string)
            return [(ref.new_field, self._codec.encode(_STRING, "d"))
                    for ref in self._add_headers if ref.field == "op"]
        out = []
        for ref, parent, i, schema in plan.headers:
            host = value if parent is None else value[parent]
            out.append((ref.new_field, self._codec.encode(schema, None if host is None else as_row_at(host, i))))
        return out

    def _drop_fields(self, record: ConnectRecord) -> ConnectRecord:
        if not self._drop_header:
            return record
        present, raw = find_header(record.headers, self._drop_header)
        names = self._codec.decode_string_list(raw) if present else None
        if not names:
            return record
        if self._drop_from_key and record.key is not None and record.key_schema is not None:
            schema, key = self._without(record.key_schema, record.key, names)
            record = with_key(record, schema, key)
        if record.value_schema is not None and record.value is not None:
            schema, value = self._without(record.value_schema, record.value, names)
            record = with_value(record, schema, value)
        return record

    def _without(self, schema: ConnectSchema, value: Any, names: list[str]) -> tuple[ConnectSchema, Any]:
        # ReplaceField(exclude=...) with the fields to drop (only optional ones when keeping schemas compatible)
        drop = tuple(f.name for f in schema.fields if f.name in names and (f.schema.optional or not self._drop_compatible))
        if not drop:
            return schema, value
        key = (id(schema), drop)
        hit = self._dropped.get(key)
        if hit is None or hit[0] is not schema:
            keep = tuple(i for i, f in enumerate(schema.fields) if f.name not in drop)
            hit = (schema, copy_basics(schema, [schema.fields[i] for i in keep]), keep)
            self._dropped[key] = hit
        row = with_default_for_null(schema, as_row(schema, value))
        return hit[1], [row[i] for i in hit[2]]


def as_row_at(host: Any, i: int) -> Any:
    return host[i] if not isinstance(host, dict) else list(host.values())[i]
