"""Per table version: key and envelope schemas, their JSON, converters, and the per-row fast path.

`TableSchemaBuilder(topic_prefix, settings).build(table)` does all per-table work once (converter
resolution, schema construction, JSON rendering, field prefixes); the returned `TableSchema` only
runs the column converters and joins precomputed text per row (style.md §2.3).
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping, Sequence

from connector.config.event_settings import TopicSettings
from connector.config.modes import FieldNameAdjustmentMode, Operation, SchemaNameAdjustmentMode
from connector.converters.base import ColumnConverter, ValueSettings
from connector.events.topic_names import data_topic_name, key_field_augment, sanitize_topic_name
from connector.converters.mappers import ColumnMapper
from connector.converters.registry import base_type_name, resolve
from connector.events.envelope import TX_BLOCK_SCHEMA, TxBlock
from connector.serde.big_bytes import BigBytesRows
from connector.serde.connect_schema import ConnectSchema, Field, Type, struct
from connector.serde.name_adjustment import adjust_field_name, adjust_schema_name
from connector.events.convert_compiler import RowConverter, compile_converter
from connector.events.snapshot_text import Decoder, TextEncoder, compile_text_encoder
from connector.events.source_info import SOURCE_SCHEMA, SourceInfo
from schema_history.model import Column, Table, TableId

__all__ = [
    "TableSchemaBuilder",
    "TableSchema",
    "RowValues",
    "envelope_schema",
    "message_key_columns",
    "source_type_propagation",
]

RowValues = list  # Connect values in table column order
_BEFORE, _AFTER = 2, 4  # where `TableSchema._envelope_parts` puts the row images' texts

_EMPTY_SET = "empty set"  # python-mysql-replication's none_sources marker (B10)


def envelope_schema(name_base: str, value_schema: ConnectSchema) -> ConnectSchema:
    """`<prefix>.<db>.<table>.Envelope` v2 (debezium-contract.md §d3)."""
    opt_i64 = ConnectSchema(Type.INT64, optional=True)
    return struct(
        f"{name_base}.Envelope",
        [
            ("before", value_schema),
            ("after", value_schema),
            ("source", SOURCE_SCHEMA),
            ("transaction", TX_BLOCK_SCHEMA),
            ("op", ConnectSchema(Type.STRING)),
            ("ts_ms", opt_i64),
            ("ts_us", opt_i64),
            ("ts_ns", opt_i64),
        ],
        version=2,
    )


@dataclass(frozen=True)
class TableSchema:
    """One table version's schemas and row functions (built by `TableSchemaBuilder`, never by hand).

    Row images are lists in table column order (all columns, also those column filters drop from
    the value): the key is taken from them, the value image is projected and mapped when written.
    """

    table: Table
    key_schema: ConnectSchema | None
    value_schema: ConnectSchema
    envelope: ConnectSchema
    converters: tuple[ColumnConverter, ...]
    key_indexes: tuple[int, ...]
    schemas_enable: bool = True
    _set_columns: tuple[tuple[int, str], ...] = ()
    # NOT NULL columns whose null (a zero date) becomes the default or the type's fallback
    _fallbacks: tuple[tuple[int, Any], ...] = ()
    _binlog_fns: tuple = field(default=(), repr=False)
    _binlog_convert: RowConverter = field(default=compile_converter(()), repr=False)  # compiled from _binlog_fns
    _snapshot_fns: tuple = field(default=(), repr=False)
    # indexes of the value columns when column filters drop some (None: all columns)
    _value_indexes: tuple[int, ...] | None = None
    # (index in the value image, transform, applies to nulls) for column mappers
    _value_mappers: tuple[tuple[int, Callable[[Any], Any], bool], ...] = ()
    # values appended to every key after its columns: the regex topic naming strategies' physical table field
    _key_extra: tuple[Any, ...] = ()
    _key_prefix: str = ""
    _key_suffix: str = "}"
    _value_prefix: str = ""
    # tables with BYTES value columns: writes rows holding BLOB-sized values straight into bytes
    _big_rows: BigBytesRows | None = field(default=None, repr=False, compare=False)

    # ------------------------------------------------------------ rows
    def convert_binlog_row(self, values: Sequence[Any], none_sources: Mapping[str, str] | None = None) -> RowValues:
        """python-mysql-replication values (table column order) → Connect values.

        `none_sources` is the library's per-row map; it tells an empty SET (None + 'empty set') from NULL.
        """
        out = self._binlog_convert(values)
        if none_sources and self._set_columns:
            for index, name in self._set_columns:
                if out[index] is None and none_sources.get(name) == _EMPTY_SET:
                    out[index] = ""
        for index, fallback in self._fallbacks:
            if out[index] is None:
                out[index] = fallback
        return out

    def convert_snapshot_row(self, values: Sequence[Any]) -> RowValues:
        """A PyMySQL row (with `pymysql_conversions()`, `SELECT *` column order) → Connect values."""
        out = [v if (v is None or fn is None) else fn(v) for fn, v in zip(self._snapshot_fns, values)]
        for index, fallback in self._fallbacks:
            if out[index] is None:
                out[index] = fallback
        return out

    def convert_snapshot_value(self, index: int, value: Any) -> Any:
        """One column's PyMySQL value (as `convert_snapshot_row` takes it) → its Connect value (a re-select)."""
        fn = self._snapshot_fns[index]
        return value if (value is None or fn is None) else fn(value)

    @property
    def value_column_indexes(self) -> Sequence[int]:
        """The table columns (indexes) the value's images carry: all unless column filters drop some."""
        return range(len(self.converters)) if self._value_indexes is None else self._value_indexes

    def snapshot_text_encoder(self, decoders: Sequence[Decoder]) -> TextEncoder | None:
        """The snapshot's fast path for JSON text records: `encode(raw_row, source_json, ts_ns) -> (key, value)`
        from PyMySQL's per-column `decoders` (connector/events/snapshot_text.py), equal to `key_bytes` + `value_bytes`
        of the converted row; None where it does not apply (column mappers, other result columns)."""
        if self._value_mappers or self._key_extra:
            return None
        return compile_text_encoder(self, decoders)

    @property
    def value_images_are_rows(self) -> bool:
        """Whether the value's before/after images are the row images unchanged (no column filter, no mapper)."""
        return self._value_indexes is None and not self._value_mappers

    @property
    def big_rows(self) -> BigBytesRows | None:
        """The writer of images holding BLOB-sized values, None when the value has no BYTES column."""
        return self._big_rows

    def key_values(self, row: Sequence[Any]) -> tuple | None:
        if self.key_schema is None:
            return None
        return tuple(row[i] for i in self.key_indexes) + self._key_extra

    @property
    def key_is_columns(self) -> bool:
        """Whether the key holds the key columns' values only (no field the topic naming strategy adds)."""
        return not self._key_extra

    def _map(self, row: Sequence[Any]) -> list:
        out = list(row)
        for index, apply, maps_null in self._value_mappers:
            value = out[index]
            if value is not None or maps_null:
                out[index] = apply(value)
        return out

    def _value_images(self, before: Sequence[Any] | None,
                      after: Sequence[Any] | None) -> tuple[Sequence[Any] | None, Sequence[Any] | None]:
        if self._value_indexes is not None:  # column.include/exclude.list: project the value images
            keep = self._value_indexes
            before = None if before is None else [before[i] for i in keep]
            after = None if after is None else [after[i] for i in keep]
        if self._value_mappers:  # truncate / mask columns of the value images (never the key)
            before = None if before is None else self._map(before)
            after = None if after is None else self._map(after)
        return before, after

    def envelope_values(self, op: Operation, before: Sequence[Any] | None, after: Sequence[Any] | None,
                        source: SourceInfo, transaction: TxBlock | None, ts_ns: int) -> list:
        """The envelope as a Connect value in `envelope` field order (for converters other than JSON text)."""
        before, after = self._value_images(before, after)
        return [before, after, source.values(), None if transaction is None else transaction.values(), op.value,
                ts_ns // 1_000_000, ts_ns // 1_000, ts_ns]

    # ------------------------------------------------------------ bytes
    def key_text(self, row: Sequence[Any]) -> str | None:
        if self.key_schema is None:
            return None
        payload = self.key_schema.writer([*(row[i] for i in self.key_indexes), *self._key_extra])
        return self._key_prefix + payload + self._key_suffix

    def key_bytes(self, row: Sequence[Any]) -> bytes | None:
        text = self.key_text(row)
        return None if text is None else text.encode("utf-8")

    def key_bytes_from_key(self, key: tuple | None) -> bytes | None:
        """Key bytes from `key_values()` output (for tombstones and headers)."""
        if self.key_schema is None or key is None:
            return None
        payload = self.key_schema.writer(list(key))
        return (self._key_prefix + payload + self._key_suffix).encode("utf-8")

    def value_bytes(
        self,
        op: Operation,
        before: Sequence[Any] | None,
        after: Sequence[Any] | None,
        source: SourceInfo,
        transaction: TxBlock | None,
        ts_ns: int,
    ) -> bytes:
        """The envelope value; envelope ts_ms/ts_us/ts_ns all derive from the one instant `ts_ns`."""
        row_writer = self.value_schema.writer
        before, after = self._value_images(before, after)
        big = self._big_rows
        if big is not None and (big.holds_big(before) or big.holds_big(after)):
            return self._big_value_bytes(big, op, before, after, source, transaction, ts_ns)
        tx_text = "null" if transaction is None else TX_BLOCK_SCHEMA.writer(transaction.values())
        return self.envelope_text(op.value, row_writer(before), row_writer(after), source.json(), tx_text,
                                  ts_ns).encode("utf-8")

    def envelope_text(self, op: str, before_text: str, after_text: str, source_json: str, tx_text: str,
                      ts_ns: int) -> str:
        """The envelope value's JSON text from the texts of its parts: every streamed change event's value is
        joined here (the general path and connector/events/row_renderer.py's alike)."""
        return (f'{self._value_prefix}{{"before":{before_text},"after":{after_text},"source":{source_json},'
                f'"transaction":{tx_text},"op":"{op}","ts_ms":{ts_ns // 1_000_000},"ts_us":{ts_ns // 1_000},'
                f'"ts_ns":{ts_ns}{"}}" if self.schemas_enable else "}"}')

    def _envelope_parts(self, op: Operation, before_text: str, after_text: str, source: SourceInfo,
                        transaction: TxBlock | None, ts_ns: int) -> list[str]:
        # The row images' texts are at _BEFORE and _AFTER (`_big_value_bytes` writes its own there).
        return [
            self._value_prefix,
            '{"before":',
            before_text,
            ',"after":',
            after_text,
            ',"source":',
            source.json(),
            ',"transaction":',
            "null" if transaction is None else TX_BLOCK_SCHEMA.writer(transaction.values()),
            ',"op":"',
            op.value,
            '","ts_ms":',
            str(ts_ns // 1_000_000),
            ',"ts_us":',
            str(ts_ns // 1_000),
            ',"ts_ns":',
            str(ts_ns),
            "}}" if self.schemas_enable else "}",
        ]

    def _big_value_bytes(self, big: BigBytesRows, op: Operation, before: Sequence[Any] | None,
                         after: Sequence[Any] | None, source: SourceInfo, transaction: TxBlock | None,
                         ts_ns: int) -> bytes:
        """`value_bytes` for images holding BLOB-sized values, written once into one buffer (serde/big_bytes.py)."""
        parts = self._envelope_parts(op, "", "", source, transaction, ts_ns)
        out = io.BytesIO()
        out.write("".join(parts[:_BEFORE]).encode("utf-8"))
        big.write(out, before)
        out.write("".join(parts[_BEFORE + 1:_AFTER]).encode("utf-8"))
        big.write(out, after)
        out.write("".join(parts[_AFTER + 1:]).encode("utf-8"))
        return out.getvalue()  # the buffer itself, not a copy: `out` is dropped here


@dataclass(frozen=True)
class TableSchemaBuilder:
    """Builds `TableSchema`s from `Table`s with the connector's value, key, name and column options."""

    topic_prefix: str
    settings: ValueSettings = ValueSettings()
    schemas_enable: bool = True
    key_schemas_enable: bool | None = None  # None: as schemas_enable
    # message.key.columns: "db.table" → column names, or a function (see `message_key_columns`)
    key_columns: Mapping[str, Sequence[str]] | Callable[[TableId], Sequence[str] | None] = field(default_factory=dict)
    # column.include.list / column.exclude.list as a predicate (table, column name) → keep. As in
    # Debezium's TableSchemaBuilder it filters the value columns only; key columns always stay.
    column_filter: Callable[[TableId, str], bool] | None = None
    # column.propagate.source.type / datatype.propagate.source.type (see `source_type_propagation`)
    propagate_source_type: Callable[[TableId, Column], bool] | None = None
    # column.truncate.to.N.chars / column.mask.* (see converters.mappers.mapper_lookup)
    column_mapper: Callable[[TableId, Column], ColumnMapper | None] | None = None
    schema_name_mode: SchemaNameAdjustmentMode = SchemaNameAdjustmentMode.NONE
    field_name_mode: FieldNameAdjustmentMode = FieldNameAdjustmentMode.NONE
    # topic.prefix/.delimiter/.naming.strategy: the schema names' base is the data topic (None: prefix.db.table)
    topics: TopicSettings | None = None

    def build(self, table: Table) -> TableSchema:
        # Debezium names the schemas after the (sanitized) data topic: recordSchemaPrefix = dataChangeTopic
        topic = (data_topic_name(self.topics, table.id) if self.topics is not None
                 else sanitize_topic_name(f"{self.topic_prefix}.{table.id.database}.{table.id.table}"))
        name_base = adjust_schema_name(topic, self.schema_name_mode)
        qualified = f"{table.id.database}.{table.id.table}"  # what converters' selectors match
        converters = tuple(resolve(c, self.settings, lenient_defaults=True, table=qualified) for c in table.columns)
        field_names = [adjust_field_name(c.name, self.field_name_mode) for c in table.columns]
        value_schemas = [
            _with_source_type(conv.schema, col)
            if self.propagate_source_type is not None and self.propagate_source_type(table.id, col) else conv.schema
            for conv, col in zip(converters, table.columns)
        ]
        value_indexes = None
        if self.column_filter is not None:
            kept = tuple(i for i, c in enumerate(table.columns) if self.column_filter(table.id, c.name))
            value_indexes = kept if len(kept) != len(converters) else None
        mappers: dict[int, ColumnMapper] = {}
        if self.column_mapper is not None:
            for i, (conv, col) in enumerate(zip(converters, table.columns)):
                if conv.schema.type is Type.STRING and (mapper := self.column_mapper(table.id, col)) is not None:
                    mappers[i] = mapper
                    value_schemas[i] = replace(value_schemas[i],
                                               parameters=value_schemas[i].parameters + mapper.parameters)
        value_positions = range(len(converters)) if value_indexes is None else value_indexes
        value_schema = ConnectSchema(
            Type.STRUCT,
            optional=True,
            name=f"{name_base}.Value",
            fields=tuple(Field(field_names[i], value_schemas[i]) for i in value_positions),
        )
        custom = self.key_columns(table.id) if callable(self.key_columns) else self.key_columns.get(table.id.dotted())
        key_names = list(custom if custom else table.primary_key_column_names)
        index_of = {c.name.lower(): i for i, c in enumerate(table.columns)}
        key_indexes = tuple(index_of[n.lower()] for n in key_names if n.lower() in index_of)
        key_schema = None
        # the regex strategies' physical table field, after the key columns; a table without them gets a key too
        augment = key_field_augment(self.topics, table.id) if self.topics is not None else None
        extra_fields = () if augment is None else (Field(augment[0], ConnectSchema(Type.STRING)),)
        if key_indexes or extra_fields:
            key_schema = ConnectSchema(
                Type.STRUCT,
                name=f"{name_base}.Key",
                # key fields never carry the source-type parameters (Debezium adds them with no mapper)
                fields=tuple(Field(field_names[i], converters[i].schema) for i in key_indexes) + extra_fields,
            )
        envelope = envelope_schema(name_base, value_schema)
        set_columns = tuple(
            (i, c.name) for i, c in enumerate(table.columns) if base_type_name(c) == "SET"
        )
        enable = self.schemas_enable
        key_enable = enable if self.key_schemas_enable is None else self.key_schemas_enable
        return TableSchema(
            table=table,
            key_schema=key_schema,
            value_schema=value_schema,
            envelope=envelope,
            converters=converters,
            key_indexes=key_indexes,
            schemas_enable=enable,
            _key_extra=() if augment is None else (augment[1],),
            _set_columns=set_columns,
            _value_indexes=value_indexes,
            _value_mappers=tuple((j, mappers[i].apply, mappers[i].maps_null)
                                 for j, i in enumerate(value_positions) if i in mappers),
            _fallbacks=tuple((i, c.fallback) for i, c in enumerate(converters) if c.fallback is not None),
            _binlog_fns=tuple(c.from_binlog for c in converters),
            _binlog_convert=compile_converter([c.from_binlog for c in converters]),
            _snapshot_fns=tuple(c.from_snapshot for c in converters),
            _key_prefix=('{"schema":' + key_schema.json + ',"payload":') if (key_enable and key_schema) else "",
            _key_suffix="}" if key_enable else "",
            _value_prefix=('{"schema":' + envelope.json + ',"payload":') if enable else "",
            _big_rows=BigBytesRows.for_schema(value_schema),
        )


def message_key_columns(spec: str | None) -> Callable[[TableId], Sequence[str] | None]:
    """Debezium's `message.key.columns` (`db.tbl:c1,c2;regex:c3`): the first entry whose table regex
    matches `db.table` in full gives the key columns; None (use the primary key) when none matches."""
    entries: list[tuple[re.Pattern[str], list[str]]] = []
    for part in (spec or "").split(";"):
        if not part.strip():
            continue
        table_regex, _, columns = part.strip().rpartition(":")
        entries.append((re.compile(table_regex.strip()), [c.strip() for c in columns.split(",") if c.strip()]))

    def lookup(table_id: TableId) -> Sequence[str] | None:
        name = table_id.dotted()
        for pattern, columns in entries:
            if pattern.fullmatch(name):
                return columns
        return None

    return lookup


def _with_source_type(schema: ConnectSchema, column: Column) -> ConnectSchema:
    params = [("__debezium.source.column.type", column.type_name)]
    if column.length is not None:
        params.append(("__debezium.source.column.length", str(column.length)))
    if column.scale is not None:
        params.append(("__debezium.source.column.scale", str(column.scale)))
    # Debezium knows a column comment only with include.schema.comments=true, which makes it the schema doc
    if column.comment and schema.doc == column.comment:
        params.append(("__debezium.source.column.comment", column.comment))
    params.append(("__debezium.source.column.name", column.name))
    return replace(schema, parameters=schema.parameters + tuple(params))


def source_type_propagation(column_regexes: Sequence[str] = (),
                            datatype_regexes: Sequence[str] = ()) -> Callable[[TableId, Column], bool] | None:
    """Predicate for `column.propagate.source.type` (regexes on `db.table.column`) and
    `datatype.propagate.source.type` (regexes on `db.table.TYPE`); None when both are empty."""
    columns = [re.compile(r) for r in column_regexes]
    types = [re.compile(r) for r in datatype_regexes]
    if not columns and not types:
        return None

    def matches(table_id: TableId, column: Column) -> bool:
        base = table_id.dotted()
        name = f"{base}.{column.name}"
        type_name = f"{base}.{column.type_name}"
        return any(p.fullmatch(name) for p in columns) or any(p.fullmatch(type_name) for p in types)

    return matches
