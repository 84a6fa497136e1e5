"""Per table version: key and envelope schemas, their JSON, converters, and the per-row fast path.

`TableSchemaBuilder(topic_prefix, settings).build(table)` does all per-table work once (converter
resolution, schema construction, JSON rendering, field prefixes); the returned `TableSchema` only
runs the column converters and joins precomputed text per row (style.md §2.3).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from connector.config.modes import Operation
from connector.converters.base import ColumnConverter, ValueSettings
from connector.converters.registry import base_type_name, resolve
from connector.envelope import TX_BLOCK_SCHEMA, TxBlock
from connector.serde.connect_schema import ConnectSchema, Field, Type, struct
from connector.serde.java_text import jackson_string
from connector.source_info import SOURCE_SCHEMA, SourceInfo
from schema_history.model import Table

__all__ = ["TableSchemaBuilder", "TableSchema", "RowValues", "envelope_schema"]

RowValues = list  # Connect values in table column order

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
    table: Table
    key_schema: ConnectSchema | None
    value_schema: ConnectSchema
    envelope: ConnectSchema
    converters: tuple[ColumnConverter, ...]
    key_indexes: tuple[int, ...]
    schemas_enable: bool = True
    _set_columns: tuple[tuple[int, str], ...] = ()
    _binlog_fns: tuple = field(default=(), repr=False)
    _snapshot_fns: tuple = field(default=(), repr=False)
    _key_prefix: str = ""
    _value_prefix: str = ""

    # ------------------------------------------------------------ rows
    def convert_binlog_row(self, values: Sequence[Any], none_sources: Mapping[str, str] | None = None) -> RowValues:
        """python-mysql-replication values (table column order) → Connect values.

        `none_sources` is the library's per-row map; it tells an empty SET (None + 'empty set') from NULL.
        """
        out = [v if (v is None or fn is None) else fn(v) for fn, v in zip(self._binlog_fns, values)]
        if none_sources and self._set_columns:
            for index, name in self._set_columns:
                if out[index] is None and none_sources.get(name) == _EMPTY_SET:
                    out[index] = ""
        return out

    def convert_snapshot_row(self, values: Sequence[Any]) -> RowValues:
        """A PyMySQL row (with `pymysql_conversions()`, `SELECT *` column order) → Connect values."""
        return [v if (v is None or fn is None) else fn(v) for fn, v in zip(self._snapshot_fns, values)]

    def key_values(self, row: Sequence[Any]) -> tuple | None:
        if self.key_schema is None:
            return None
        return tuple(row[i] for i in self.key_indexes)

    # ------------------------------------------------------------ bytes
    def key_text(self, row: Sequence[Any]) -> str | None:
        if self.key_schema is None:
            return None
        payload = self.key_schema.writer([row[i] for i in self.key_indexes])
        return self._key_prefix + payload + ("}" if self.schemas_enable else "")

    def key_bytes(self, row: Sequence[Any]) -> bytes | None:
        text = self.key_text(row)
        return None if text is None else text.encode("utf-8")

    def key_bytes_from_key(self, key: tuple | None) -> bytes | None:
        """Key bytes from `key_values()` output (for tombstones and headers)."""
        if self.key_schema is None or key is None:
            return None
        payload = self.key_schema.writer(list(key))
        return (self._key_prefix + payload + ("}" if self.schemas_enable else "")).encode("utf-8")

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
        parts = [
            self._value_prefix,
            '{"before":',
            row_writer(before),
            ',"after":',
            row_writer(after),
            ',"source":',
            SOURCE_SCHEMA.writer(source.values()),
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
        return "".join(parts).encode("utf-8")


@dataclass(frozen=True)
class TableSchemaBuilder:
    topic_prefix: str
    settings: ValueSettings = ValueSettings()
    schemas_enable: bool = True
    # message.key.columns for this builder's tables: table id "db.table" → column names
    key_columns: Mapping[str, Sequence[str]] = field(default_factory=dict)

    def build(self, table: Table) -> TableSchema:
        name_base = f"{self.topic_prefix}.{table.id.database}.{table.id.table}"
        converters = tuple(resolve(c, self.settings) for c in table.columns)
        value_schema = ConnectSchema(
            Type.STRUCT,
            optional=True,
            name=f"{name_base}.Value",
            fields=tuple(Field(c.name, c.schema) for c in converters),
        )
        key_names = list(self.key_columns.get(table.id.dotted(), table.primary_key_column_names))
        index_of = {c.name.lower(): i for i, c in enumerate(table.columns)}
        key_indexes = tuple(index_of[n.lower()] for n in key_names if n.lower() in index_of)
        key_schema = None
        if key_indexes:
            key_schema = ConnectSchema(
                Type.STRUCT,
                name=f"{name_base}.Key",
                fields=tuple(Field(converters[i].name, converters[i].schema) for i in key_indexes),
            )
        envelope = envelope_schema(name_base, value_schema)
        set_columns = tuple(
            (i, c.name) for i, c in enumerate(table.columns) if base_type_name(c) == "SET"
        )
        enable = self.schemas_enable
        return TableSchema(
            table=table,
            key_schema=key_schema,
            value_schema=value_schema,
            envelope=envelope,
            converters=converters,
            key_indexes=key_indexes,
            schemas_enable=enable,
            _set_columns=set_columns,
            _binlog_fns=tuple(c.from_binlog for c in converters),
            _snapshot_fns=tuple(c.from_snapshot for c in converters),
            _key_prefix=('{"schema":' + key_schema.json + ',"payload":') if (enable and key_schema) else "",
            _value_prefix=('{"schema":' + envelope.json + ',"payload":') if enable else "",
        )


def quoted(text: str) -> str:
    return jackson_string(text)
