"""Debezium's ReselectColumnsPostProcessor: the columns of a create/update that arrive NULL (or holding the
unavailable-value placeholder) are queried again by key, and the record carries what the table holds now.

What Debezium 3.6.3's processor touches, and so this one: records with an `after` image (creates and updates;
never deletes) that are not snapshot reads (op=r: read by a SELECT already), that have a record key (a table
without a primary key or message.key.columns is skipped), and not of the signal table. The query is
`SELECT <columns> FROM <db>.<table> WHERE <key>=? AND ...` on a connection of its own, by the primary key
columns or, with `reselect.use.event.key=true`, by the record key's columns; values are converted as the
snapshot converts its rows (Debezium uses the JDBC value converters for both). A row that is gone or a failing
query logs a warning and leaves the record as it was, or stops the connector with
`reselect.error.handling.mode=fail`.

The key values bound are the row's binlog values, not Debezium's converted ones: Debezium binds the Connect
value (a DATETIME key as epoch milliseconds), which finds no row for temporal keys (docs/DIFFERENCES.md).

The query is a locking read (`LOCK IN SHARE MODE`, both servers): MySQL and MariaDB send a transaction's events
to binlog readers before its storage-engine commit is visible, so a plain read can still return the row as it
was before the very change being re-selected (seen on MySQL 9: the record of `SET name = NULL` carrying the old
name). The shared lock waits for that commit. A lock still held after `LOCK_WAIT_S` belongs to a later
transaction (the change's own transaction has released its locks by then), and the plain read that follows sees
the change or a newer committed version: re-select promises "what the table holds now", never an older row.
"""

from __future__ import annotations

import logging
from typing import Any, Callable, Sequence

import pymysql

from connector.binlog.connection import close_quietly
from connector.config.post_processors import ReselectSettings
from connector.errors import ReselectFailed, Where
from connector.events.table_schema import TableSchema
from connector.serde.connect_schema import Type

__all__ = ["Reselector", "UNAVAILABLE_VALUE"]

log = logging.getLogger(__name__)

# RelationalDatabaseConnectorConfig's unavailable.value.placeholder default; a MySQL connector never writes it,
# but Debezium re-selects a column that holds exactly it, so this one does too.
UNAVAILABLE_VALUE = "__debezium_unavailable_value"
_UNAVAILABLE_BYTES = UNAVAILABLE_VALUE.encode()
_UNAVAILABLE_JSON = '{"%s":"%s"}' % (UNAVAILABLE_VALUE, UNAVAILABLE_VALUE)
_JSON = "io.debezium.data.Json"
# innodb_lock_wait_timeout of the re-select session: the change's own commit takes microseconds to become visible
# (1 s is the smallest value MySQL accepts); longer means a later transaction holds the row.
LOCK_WAIT_S = 1
_LOCK_WAIT_TIMEOUT = 1205  # ER_LOCK_WAIT_TIMEOUT


def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _struct_text(names: Sequence[str], values: Sequence[Any]) -> str:
    """Kafka Connect's Struct.toString, as Debezium's log lines name a key: `Struct{id=4}`, nulls left out."""
    return "Struct{" + ",".join(f"{n}={v}" for n, v in zip(names, values) if v is not None) + "}"


class Reselector:
    """The configured ReselectColumnsPostProcessors, applied in `post.processors` order to a row's after image."""

    def __init__(self, processors: Sequence[ReselectSettings], connect: Callable[[], pymysql.connections.Connection],
                 signal_table: str | None = None) -> None:
        self._processors = tuple(processors)
        self._connect = connect
        self._signal_table = signal_table.lower() if signal_table else None
        self._conn: pymysql.connections.Connection | None = None
        self.queries = 0  # re-select statements run (tests, metrics)

    def apply(self, ts: TableSchema, raw_after: Sequence[Any], after: list, where: Where) -> list:
        """`after` (Connect values, table column order) with re-selected columns replaced; `raw_after`: the
        binlog image the key values are bound from."""
        if ts.key_schema is None:
            return after  # "Key is not a Struct, no re-selection possible."
        table_id = ts.table.id
        if self._signal_table is not None and table_id.dotted().lower() == self._signal_table:
            return after
        for processor in self._processors:
            after = self._apply_one(processor, ts, raw_after, after, where)
        return after

    def _required(self, p: ReselectSettings, ts: TableSchema, after: list) -> list[int]:
        qualified = ts.table.id.dotted()
        out = []
        for i in ts.value_column_indexes:
            value = after[i]
            wanted = ((p.unavailable_values and _unavailable(ts, i, value)) or (p.null_values and value is None))
            if wanted and p.selects(f"{qualified}:{ts.table.columns[i].name}"):
                out.append(i)
        return out

    def _apply_one(self, p: ReselectSettings, ts: TableSchema, raw_after: Sequence[Any], after: list,
                   where: Where) -> list:
        required = self._required(p, ts, after)
        if not required:
            return after
        table = ts.table
        if p.use_event_key:
            key_indexes: Sequence[int] = ts.key_indexes
        else:
            position = {c.name.lower(): i for i, c in enumerate(table.columns)}
            key_indexes = [position[n.lower()] for n in table.primary_key_column_names if n.lower() in position]
        key_text = _struct_text([table.columns[i].name for i in ts.key_indexes], [after[i] for i in ts.key_indexes])
        if not key_indexes:
            return self._failed(p, f"Failed to re-select columns for table {table.id.dotted()} and key [] (the "
                                   f"table has no primary key to select by)", where, after)
        sql = (f"SELECT {', '.join(_quote(table.columns[i].name) for i in required)} FROM {_quote(table.id.database)}"
               f".{_quote(table.id.table)} WHERE " + " AND ".join(f"{_quote(table.columns[i].name)}=%s"
                                                                for i in key_indexes))
        try:
            rows = self._query(sql, [raw_after[i] for i in key_indexes])
        except (pymysql.Error, OSError) as exc:
            return self._failed(p, f"Failed to re-select columns for table {table.id.dotted()} and key "
                                   f"{[raw_after[i] for i in key_indexes]}: {exc}", where, after)
        if not rows:
            return self._failed(p, f"Failed to find row in table {table.id.dotted()} with key {key_text}.", where,
                                after)
        if len(rows) > 1:
            log.warning("Re-selection detected multiple rows for the same key in table %s, using first.",
                        table.id.dotted())
        out = list(after)
        for i, value in zip(required, rows[0]):
            out[i] = ts.convert_snapshot_value(i, value)
        return out

    def _query(self, sql: str, args: list[Any]) -> tuple:
        fresh = self._conn is None
        if fresh:
            self._conn = self._connect()
        self.queries += 1
        try:
            with self._conn.cursor() as cur:
                if fresh:  # the fallback below relies on this bound, so the session gets it here, not from callers
                    cur.execute(f"SET SESSION innodb_lock_wait_timeout = {LOCK_WAIT_S}")
                try:
                    cur.execute(sql + " LOCK IN SHARE MODE", args)
                except pymysql.OperationalError as exc:
                    if exc.args[0] != _LOCK_WAIT_TIMEOUT:
                        raise
                    log.debug("re-select waited %s s for a row lock; reading without it: %s", LOCK_WAIT_S, sql)
                    cur.execute(sql, args)
                return cur.fetchall()
        except (pymysql.Error, OSError):
            self.close()  # the next re-select opens a new connection
            raise

    def _failed(self, p: ReselectSettings, message: str, where: Where, after: list) -> list:
        if p.fail_on_error:
            raise ReselectFailed(message, where=where,
                                 fix=f"check the row and the connector's SELECT privilege, or set "
                                     f"post.processors.{p.name}.reselect.error.handling.mode=warn")
        log.warning("%s", message)
        return after

    def close(self) -> None:
        close_quietly(self._conn)
        self._conn = None


def _unavailable(ts: TableSchema, index: int, value: Any) -> bool:
    if value is None:
        return False
    schema = ts.converters[index].schema
    if schema.type is Type.STRING:
        return value == UNAVAILABLE_VALUE or (schema.name == _JSON and value == _UNAVAILABLE_JSON)
    if schema.type is Type.BYTES:
        return value == _UNAVAILABLE_BYTES
    return False
