"""The record kinds besides data changes, as JsonConverter bytes: schema changes, transaction
BEGIN/END, heartbeats, and record headers (context headers and PK-change key headers).

Header values are serialised either with JsonConverter (`{"schema":…,"payload":…}`, Debezium Server's
default header format `json`, and what the reference harness records) or with Kafka Connect's
`SimpleHeaderConverter` (strings as raw UTF-8, structs as `{"id":1002}`), chosen by `HeaderFormat`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, Iterable, Mapping, Sequence

from connector.serde.connect_schema import ConnectSchema, Type, struct
from connector.java.hashmap import hashmap_order
from connector.java.text import jackson_string
from connector.events.source_info import SOURCE_SCHEMA, SourceInfo
from schema_history.model import Column, Table, TableId

__all__ = [
    "HeaderFormat",
    "Headers",
    "context_headers",
    "key_header",
    "record_headers",
    "SchemaChange",
    "TableChangeEntry",
    "schema_change_key_bytes",
    "schema_change_value_bytes",
    "transaction_key_bytes",
    "transaction_begin_bytes",
    "transaction_end_bytes",
    "heartbeat_key_bytes",
    "heartbeat_value_bytes",
    "SCHEMA_CHANGE_KEY_SCHEMA",
    "SCHEMA_CHANGE_VALUE_SCHEMA",
    "TX_KEY_SCHEMA",
    "TX_VALUE_SCHEMA",
]

_S = ConnectSchema
_STR = _S(Type.STRING)
_OPT_STR = _S(Type.STRING, optional=True)
_OPT_I32 = _S(Type.INT32, optional=True)
_OPT_BOOL = _S(Type.BOOLEAN, optional=True)
_STR_ARRAY = _S(Type.ARRAY, optional=True, items=_STR)

Headers = list[tuple[str, bytes]]


def _bytes(schema: ConnectSchema, value: Any, schemas_enable: bool) -> bytes:
    payload = schema.writer(value)
    text = '{"schema":' + schema.json + ',"payload":' + payload + "}" if schemas_enable else payload
    return text.encode("utf-8")


# ---------------------------------------------------------------- headers
class HeaderFormat(str, Enum):
    JSON = "json"  # JsonConverter with schemas (Debezium Server default, reference harness)
    SIMPLE = "simple"  # Kafka Connect SimpleHeaderConverter (Connect worker default)


_HEADER_STRING_JSON_PREFIX = '{"schema":{"type":"string","optional":false},"payload":'


def _string_header(value: str, fmt: HeaderFormat) -> bytes:
    if fmt is HeaderFormat.JSON:
        return (_HEADER_STRING_JSON_PREFIX + jackson_string(value) + "}").encode("utf-8")
    return value.encode("utf-8")


def context_headers(logical_name: str, run_id: str, fmt: HeaderFormat = HeaderFormat.JSON,
                    task_id: str = "0", connector_name: str = "mysql") -> Headers:
    """The four `__debezium.context.*` headers (extended.headers.enabled=true); constant per run."""
    return [
        ("__debezium.context.connectorLogicalName", _string_header(logical_name, fmt)),
        ("__debezium.context.taskId", _string_header(task_id, fmt)),
        ("__debezium.context.connectorName", _string_header(connector_name, fmt)),
        ("__debezium.context.runId", _string_header(run_id, fmt)),
    ]


def _simple_struct(schema: ConnectSchema, values: Sequence[Any]) -> str:
    # Kafka `Values.convertToString` for a Struct: {name:value,...} with strings quoted
    parts = []
    for f, v in zip(schema.fields, values):
        if isinstance(v, str):
            rendered = jackson_string(v)
        elif v is None:
            rendered = "null"
        elif isinstance(v, bool):
            rendered = "true" if v else "false"
        else:
            rendered = str(v)
        parts.append(f"{jackson_string(f.name)}:{rendered}")
    return "{" + ",".join(parts) + "}"


def key_header(name: str, key_schema: ConnectSchema, key: Sequence[Any], fmt: HeaderFormat = HeaderFormat.JSON) -> tuple[str, bytes]:
    """`__debezium.newkey` / `__debezium.oldkey`: the key struct as a header value."""
    if fmt is HeaderFormat.JSON:
        return (name, _bytes(key_schema, list(key), True))
    return (name, _simple_struct(key_schema, key).encode("utf-8"))


# ---------------------------------------------------------------- schema change events (§d6)
SCHEMA_CHANGE_KEY_SCHEMA = struct("io.debezium.connector.mysql.SchemaChangeKey", [("databaseName", _STR)], version=1)

_COLUMN_SCHEMA = struct("io.debezium.connector.schema.Column", [
    ("name", _STR),
    ("jdbcType", _S(Type.INT32)),
    ("nativeType", _OPT_I32),
    ("typeName", _STR),
    ("typeExpression", _OPT_STR),
    ("charsetName", _OPT_STR),
    ("length", _OPT_I32),
    ("scale", _OPT_I32),
    ("position", _S(Type.INT32)),
    ("optional", _OPT_BOOL),
    ("autoIncremented", _OPT_BOOL),
    ("generated", _OPT_BOOL),
    ("comment", _OPT_STR),
    ("defaultValueExpression", _OPT_STR),
    ("enumValues", _STR_ARRAY),
], version=1)

_TABLE_SCHEMA = struct("io.debezium.connector.schema.Table", [
    ("defaultCharsetName", _OPT_STR),
    ("primaryKeyColumnNames", _STR_ARRAY),
    ("columns", _S(Type.ARRAY, items=_COLUMN_SCHEMA)),
    ("comment", _OPT_STR),
], optional=True, version=1)

_CHANGE_SCHEMA = struct("io.debezium.connector.schema.Change", [
    ("type", _STR),
    ("id", _STR),
    ("table", _TABLE_SCHEMA),
], version=1)

SCHEMA_CHANGE_VALUE_SCHEMA = struct("io.debezium.connector.mysql.SchemaChangeValue", [
    ("source", SOURCE_SCHEMA),
    ("ts_ms", _S(Type.INT64)),
    ("databaseName", _OPT_STR),
    ("schemaName", _OPT_STR),
    ("ddl", _OPT_STR),
    ("tableChanges", _S(Type.ARRAY, items=_CHANGE_SCHEMA)),
], version=1)


@dataclass(frozen=True)
class TableChangeEntry:
    """One `tableChanges[]` element: CREATE/ALTER carry the table, DROP carries none."""

    type: str  # CREATE | ALTER | DROP
    id: TableId
    table: Table | None


@dataclass(frozen=True)
class SchemaChange:
    source: SourceInfo
    ts_ms: int  # processing time
    database_name: str
    ddl: str | None
    table_changes: tuple[TableChangeEntry, ...] = ()
    schema_name: str | None = None


def _column_values(col: Column) -> tuple:
    # ConnectTableChangeSerializer: nativeType/length/scale/defaultValueExpression only when known,
    # enumValues only when non-empty (null otherwise)
    return (
        col.name,
        col.jdbc_type,
        col.native_type,
        col.type_name,
        col.type_expression,
        col.charset_name,
        col.length,
        col.scale,
        col.position,
        col.optional,
        col.auto_incremented,
        col.generated,
        col.comment,
        col.default_value_expression,
        list(col.enum_values) if col.enum_values else None,
    )


def _change_values(change: TableChangeEntry) -> tuple:
    table = change.table
    table_values = None
    if table is not None:
        table_values = (
            table.default_charset_name,
            list(table.primary_key_column_names),
            [_column_values(c) for c in table.columns],
            table.comment,
        )
    return (change.type, change.id.identifier(), table_values)


def schema_change_key_bytes(database_name: str, schemas_enable: bool = True) -> bytes:
    return _bytes(SCHEMA_CHANGE_KEY_SCHEMA, (database_name,), schemas_enable)


def schema_change_value_bytes(change: SchemaChange, schemas_enable: bool = True) -> bytes:
    return _bytes(SCHEMA_CHANGE_VALUE_SCHEMA, schema_change_values(change), schemas_enable)


def schema_change_values(change: SchemaChange) -> tuple:
    """The schema change value as a Connect value (`SCHEMA_CHANGE_VALUE_SCHEMA` field order)."""
    return (
        change.source.values(),
        change.ts_ms,
        change.database_name,
        change.schema_name,
        change.ddl,
        [_change_values(c) for c in change.table_changes],
    )


# ---------------------------------------------------------------- transaction metadata (§d8)
TX_KEY_SCHEMA = struct("io.debezium.connector.common.TransactionMetadataKey", [("id", _STR)], version=1)
_COLLECTION_SCHEMA = struct("event.collection", [
    ("data_collection", _STR),
    ("event_count", _S(Type.INT64)),
], optional=True, version=1)
TX_VALUE_SCHEMA = struct("io.debezium.connector.common.TransactionMetadataValue", [
    ("status", _STR),
    ("id", _STR),
    ("event_count", _S(Type.INT64, optional=True)),
    ("data_collections", _S(Type.ARRAY, optional=True, items=_COLLECTION_SCHEMA)),
    ("ts_ms", _S(Type.INT64)),
], version=1)


def transaction_key_bytes(tx_id: str, schemas_enable: bool = True) -> bytes:
    return _bytes(TX_KEY_SCHEMA, (tx_id,), schemas_enable)


def transaction_begin_bytes(tx_id: str, ts_ms: int, schemas_enable: bool = True) -> bytes:
    return _bytes(TX_VALUE_SCHEMA, ("BEGIN", tx_id, None, None, ts_ms), schemas_enable)


def transaction_end_bytes(tx_id: str, ts_ms: int, per_collection: Mapping[str, int],
                          schemas_enable: bool = True) -> bytes:
    """END record; `per_collection` maps `db.table` → event count, in any order (Java HashMap order is applied)."""
    return _bytes(TX_VALUE_SCHEMA, transaction_end_values(tx_id, ts_ms, per_collection), schemas_enable)


def transaction_begin_values(tx_id: str, ts_ms: int) -> tuple:
    return ("BEGIN", tx_id, None, None, ts_ms)


def transaction_end_values(tx_id: str, ts_ms: int, per_collection: Mapping[str, int]) -> tuple:
    total = sum(per_collection.values())
    collections = [(name, per_collection[name]) for name in hashmap_order(per_collection.keys())]
    return ("END", tx_id, total, collections, ts_ms)


# ---------------------------------------------------------------- heartbeat (§d9)
HEARTBEAT_KEY_SCHEMA = struct("io.debezium.connector.common.ServerNameKey", [("serverName", _STR)], version=1)
HEARTBEAT_VALUE_SCHEMA = struct("io.debezium.connector.common.Heartbeat", [("ts_ms", _S(Type.INT64))], version=1)


def heartbeat_key_bytes(topic_prefix: str, schemas_enable: bool = True) -> bytes:
    return _bytes(HEARTBEAT_KEY_SCHEMA, (topic_prefix,), schemas_enable)


def heartbeat_value_bytes(ts_ms: int, schemas_enable: bool = True) -> bytes:
    return _bytes(HEARTBEAT_VALUE_SCHEMA, (ts_ms,), schemas_enable)


# ---------------------------------------------------------------- notifications (sink channel)
NOTIFICATION_KEY_SCHEMA = struct("io.debezium.connector.common.NotificationKey", [("id", _STR)], version=1)
NOTIFICATION_VALUE_SCHEMA = struct("io.debezium.connector.common.Notification", [
    ("id", _STR), ("type", _STR), ("aggregate_type", _STR),
    ("additional_data", _S(Type.MAP, optional=True, keys=_STR, values=_STR)),
    ("timestamp", _S(Type.INT64)),
], version=1)


def record_headers(context: Headers, key_headers: Iterable[tuple[str, bytes]] = ()) -> Headers:
    """A data record's headers in Debezium's order: `__debezium.newkey`/`oldkey` first (added by the
    emitter), then the context headers (added by the dispatcher). Transaction BEGIN/END records carry
    no headers at all; schema-change, data and tombstone records carry the context headers."""
    return [*key_headers, *context]


def notification_key_bytes(notification_id: str, schemas_enable: bool = True) -> bytes:
    return _bytes(NOTIFICATION_KEY_SCHEMA, (notification_id,), schemas_enable)


def notification_value_bytes(values: tuple, schemas_enable: bool = True) -> bytes:
    return _bytes(NOTIFICATION_VALUE_SCHEMA, values, schemas_enable)
