"""`SchemaHistory`: the facade the connector uses for everything about schemas over time.

    history = SchemaHistory(store, topic_prefix="dbserver1", settings=SchemaHistorySettings())
    history.initialize_storage()
    history.recover(offset)                      # on restart
    changes = history.apply_ddl(ddl, db, offset)  # per DDL query event; emit `changes`

`apply_ddl` parses, applies, stores one history record per schema change (only then is the new
schema visible) and returns the changes for the schema change topic. Snapshot statements go
through the same path (`record_snapshot_statement`), as in Debezium's `parseSnapshotDdl`.
"""

from __future__ import annotations

import collections
import logging
import time
from typing import Any, Callable, Mapping

from schema_history.changes import SchemaChange, TableChange, TableChangeType
from schema_history.checkpoint import checkpoint_records
from schema_history.ddl.filters import DdlFilter
from schema_history.ddl.parser import apply_ddl
from schema_history.errors import DdlParseError
from schema_history.model import Table, TableId, Tables
from schema_history.record import HistoryRecord
from schema_history.recovery import recover
from schema_history.settings import SchemaHistorySettings
from schema_history.state import SchemaState
from schema_history.stores.base import SchemaHistoryStore

log = logging.getLogger(__name__)


def _replay_key(position: Mapping[str, Any]) -> tuple[Any, ...]:
    """Records carry the offset of their binlog event; the text may differ from the event's statement
    (`DROP TABLE a, b` is recorded per table, versioned comments unwrapped), so the position decides."""
    return tuple(sorted((str(k), str(v)) for k, v in position.items()))


# What a parser or model bug raises on an unforeseen statement: taken as "cannot parse" (typed, with the
# statement), so that it meets the same fallback and the same one-line stop as any unparseable DDL.
_PARSER_BUGS = (ValueError, KeyError, IndexError, TypeError, AttributeError, ArithmeticError, RecursionError)


def _apply_parsed(state: SchemaState, ddl: str, database: str | None) -> list[SchemaChange]:
    try:
        return apply_ddl(state, ddl, database)
    except DdlParseError:
        raise
    except _PARSER_BUGS as exc:
        log.debug("DDL parser failed on %r", ddl, exc_info=True)
        raise DdlParseError(f"internal parser error ({type(exc).__name__}: {exc})", ddl) from exc


def _hashmap(position: Mapping[str, Any]) -> dict[str, Any]:
    from connector.java.hashmap import as_hashmap

    return as_hashmap(position)


class SchemaHistory:
    def __init__(self, store: SchemaHistoryStore, topic_prefix: str,
                 settings: SchemaHistorySettings | None = None,
                 clock_ms: Callable[[], int] = lambda: int(time.time() * 1000)) -> None:
        self.store = store
        self.source = {"server": topic_prefix}
        self.settings = settings or SchemaHistorySettings()
        self._filter = DdlFilter(self.settings.ddl_filter)
        self._clock_ms = clock_ms
        self._state = SchemaState(include_comments=self.settings.include_comments)
        self._since_checkpoint = 0
        self._replayable: set[tuple[Any, ...]] = set()
        # Beyond Debezium: asked first when a statement cannot be parsed; returns the changes it recorded
        # instead (e.g. from SHOW CREATE TABLE, see apply_table_definition) or None to skip/fail as usual.
        self.on_unparseable: Callable[[str, str | None, Mapping[str, Any], DdlParseError],
                                      list[SchemaChange] | None] | None = None
        # Beyond Debezium: a parsed DDL can still leave a table the connector cannot represent (a default
        # its converters reject). `check_table` names the problem (None: fine); `on_unusable_table` then
        # records a replacement (SHOW CREATE TABLE) and returns its changes, or None to keep the parsed one.
        self.check_table: Callable[[Table], str | None] | None = None
        self.on_unusable_table: Callable[[str, TableId, Mapping[str, Any], str], list[SchemaChange] | None] | None = None

    @property
    def state(self) -> SchemaState:
        return self._state

    @property
    def tables(self) -> Tables:
        return self._state.tables

    def reset(self) -> None:
        """Forget the in-memory schema (a new snapshot rebuilds it; the store keeps its records)."""
        self._state = SchemaState(include_comments=self.settings.include_comments)

    def initialize_storage(self) -> None:
        self.store.check_and_initialize()

    def exists(self) -> bool:
        return self.store.exists()

    def recover(self, offset: Mapping[str, Any] | None) -> SchemaState:
        """Rebuild the schema from the store up to `offset` (the connector's committed offset)."""
        raw = getattr(self.store, "raw_records", None)  # JSON text: parsed lazily, after the last checkpoint
        tail: collections.deque[HistoryRecord] = collections.deque(maxlen=16)
        self._state = recover(raw() if raw is not None else self.store.records(), offset, tail=tail, prefer_ddl=self.settings.prefer_ddl,
                              ddl_filter=self._filter, skip_unparseable_ddl=self.settings.skip_unparseable_ddl,
                              state=SchemaState(include_comments=self.settings.include_comments),
                              gtid_source_filter=self.settings.gtid_source_filter)
        self._replayable = {_replay_key(r.position) for r in tail if not r.position.get("snapshot")}
        return self._state

    def apply_ddl(self, ddl: str, database: str | None, position: Mapping[str, Any],
                  source_ts_ms: int | None = None) -> list[SchemaChange]:
        """Apply one DDL query event; store and return the schema changes it produces.

        `database` is the query event's default database, `position` the offset map of the event,
        re-ordered here as Debezium's HashMap would iterate it; keys sharing a hash bucket keep the
        caller's order (e.g. `server_id` before `event`), so build it in Debezium's insertion order. `source_ts_ms` is accepted for symmetry
        with the event builder; the history record's `ts_ms` is processing time, as in Debezium.
        """
        if self._filter.skips(ddl):
            log.debug("DDL filtered out by schema.history.internal.ddl.filter: %s", ddl)
            return []
        if self._replayable and _replay_key(position) in self._replayable:
            # With GTIDs a standalone DDL leaves the restart GTID set before itself (Debezium's offset), so
            # the server sends it again after a restart; its record is already in the recovered schema and
            # applying it twice would fail (CHANGE COLUMN of a column that is gone) or duplicate records.
            log.info("DDL at %s:%s is already in the schema history (re-read after a restart): not applied again",
                     position.get("file"), position.get("pos"))
            return []
        self._replayable = set()  # past the resume point: nothing further can be a re-read
        working = self._state.copy()
        try:
            changes = _apply_parsed(working, ddl, database)
        except DdlParseError as exc:
            if self.on_unparseable is not None:
                replaced = self.on_unparseable(ddl, database, position, exc)
                if replaced is not None:
                    return replaced
            if not self.settings.skip_unparseable_ddl:
                raise
            log.warning("Ignoring unparseable DDL (schema.history.internal.skip.unparseable.ddl=true): %s", ddl)
            return []
        replaced = self._replace_unusable(changes, ddl, position)
        if replaced is not None:
            return replaced
        recorded = [c for c in changes if self._should_store(c, ddl)]
        ts_ms = self._clock_ms()
        ordered_position = _hashmap(position)
        for change in recorded:
            self.store.append(HistoryRecord.of(change, self.source, ordered_position, ts_ms))
        self._state = working
        self._since_checkpoint += len(recorded)
        self._maybe_checkpoint(ordered_position, ts_ms)
        return changes

    def _replace_unusable(self, changes: list[SchemaChange], ddl: str,
                          position: Mapping[str, Any]) -> list[SchemaChange] | None:
        check, replace = self.check_table, self.on_unusable_table
        if check is None or replace is None:
            return None
        for change in changes:
            for tc in change.table_changes:
                problem = None if tc.table is None or tc.type is TableChangeType.DROP else check(tc.table)
                if problem is not None:
                    return replace(ddl, tc.id, position, problem)
        return None

    def _maybe_checkpoint(self, position: Mapping[str, Any], ts_ms: int) -> None:
        """Every `checkpoint_interval` recorded statements (streaming only: a snapshot records the whole
        schema anyway), record the whole schema at this position (schema_history.checkpoint)."""
        interval = self.settings.checkpoint_interval
        if position.get("snapshot"):
            self._since_checkpoint = 0  # the snapshot's records are replayed in one go anyway: count from its end
            return
        if not interval or self._since_checkpoint < interval:
            return
        for record in checkpoint_records(self._state, self.source, position, ts_ms):
            self.store.append(record)
        self._since_checkpoint = 0
        log.info("schema history checkpoint: %d tables recorded at %s:%s", len(self._state.tables),
                 position.get("file"), position.get("pos"))

    def apply_table_definition(self, ddl: str, table_id: TableId, create_sql: str,
                               position: Mapping[str, Any]) -> list[SchemaChange]:
        """Record `ddl` (a statement that could not be parsed) as having left `table_id` as `create_sql`
        (its SHOW CREATE TABLE) describes: one CREATE or ALTER table change carrying the original text."""
        working = self._state.copy()
        existed = working.tables.get(table_id) is not None
        working.tables.remove(table_id)
        current = working.current_database
        apply_ddl(working, create_sql, table_id.database)  # SHOW CREATE TABLE output: always parseable
        working.current_database = current
        table = working.tables.get(table_id)
        if table is None:
            raise DdlParseError(f"SHOW CREATE TABLE of {table_id.dotted()} did not define it", create_sql)
        working.last_ddl[table_id] = ddl
        kind = TableChangeType.ALTER if existed else TableChangeType.CREATE
        change = SchemaChange(database_name=table_id.database, ddl=ddl,
                              table_changes=(TableChange(kind, table_id, table),))
        ordered_position = _hashmap(position)
        ts_ms = self._clock_ms()
        if self._should_store(change, ddl):
            self.store.append(HistoryRecord.of(change, self.source, ordered_position, ts_ms))
            self._since_checkpoint += 1
        self._state = working
        self._maybe_checkpoint(ordered_position, ts_ms)
        return [change]

    def record_snapshot_statement(self, ddl: str, database: str | None, position: Mapping[str, Any]) -> list[SchemaChange]:
        """A statement the snapshot synthesizes (SET character_set_server, DROP TABLE IF EXISTS,
        DROP/CREATE DATABASE, USE, SHOW CREATE TABLE output): same path as streaming DDL."""
        return self.apply_ddl(ddl, database, position)

    def _should_store(self, change: SchemaChange, ddl: str) -> bool:
        s = self.settings
        if change.table_changes:
            if s.store_only_captured_tables_ddl:
                return any(s.table_filter(c.id) for c in change.table_changes)
            if s.store_only_captured_databases_ddl:
                return any(s.database_filter(c.id.database) for c in change.table_changes)
            return True
        if ddl.lstrip()[:3].upper() == "SET":  # global SET statements are always kept
            return True
        if (s.store_only_captured_tables_ddl or s.store_only_captured_databases_ddl) and change.database_name:
            return s.database_filter(change.database_name)
        return True
