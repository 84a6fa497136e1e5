"""The schema history as the dispatcher sees it: current tables, DDL in, schema change events out.

Builds the history store named by `schema.history.internal` and wraps `schema_history.SchemaHistory`
so that parse failures become connector errors naming the binlog position and the fix.
"""

from __future__ import annotations

import logging
from typing import Any, Callable

from connector.config.settings import HISTORY_FILE, HISTORY_KAFKA, Settings
from connector.errors import SchemaError, Where
from connector.config.table_filter import TableFilter
from connector.kafka.writer import build_producer_config, connection_config
from connector.schema.live import LiveSchema, shape_ddl_table
from schema_history.changes import SchemaChange
from schema_history.ddl.filters import DEFAULT_DDL_FILTER
from schema_history.errors import DdlParseError, SchemaHistoryError
from schema_history.history import SchemaHistory
from schema_history.model import Table, TableId, Tables
from schema_history.settings import SchemaHistorySettings
from schema_history.stores.base import SchemaHistoryStore
from schema_history.stores.file import FileHistoryStore
from schema_history.stores.kafka import KafkaHistoryStore
from schema_history.stores.memory import MemoryHistoryStore

log = logging.getLogger(__name__)


def make_history_store(settings: Settings) -> SchemaHistoryStore:
    h = settings.history
    if h.store == HISTORY_FILE:
        assert h.file_filename
        return FileHistoryStore(h.file_filename)
    if h.store == HISTORY_KAFKA:
        assert h.kafka_topic and h.kafka_bootstrap_servers
        # The translated config: Java security properties (JAAS, JKS stores) become librdkafka's.
        connection = connection_config(build_producer_config(settings.kafka.producer))
        connection.pop("bootstrap.servers", None)
        connection.pop("client.id", None)
        return KafkaHistoryStore.for_connector(
            h.kafka_bootstrap_servers, h.kafka_topic, settings.topics.prefix, name=h.client_name,
            producer_config={**connection, **h.producer_overrides},
            consumer_config={**connection, **h.consumer_overrides})
    return MemoryHistoryStore()


def _gtid_source_predicate(settings: Settings) -> Callable[[str], bool] | None:
    """`gtid.source.includes/excludes` for schema history recovery, or None when every source is followed."""
    from connector.gtids.sets import GtidSourceFilter

    gtid_filter = GtidSourceFilter.from_settings(settings.gtid_source)
    return gtid_filter.accepts if gtid_filter.active else None


class SchemaTracker:
    def __init__(self, settings: Settings, table_filter: TableFilter, store: SchemaHistoryStore) -> None:
        h = settings.history
        ddl_filter = DEFAULT_DDL_FILTER if h.ddl_filter is None else tuple(
            p.strip() for p in h.ddl_filter.split(",") if p.strip())
        self._history = SchemaHistory(store, settings.topics.prefix, SchemaHistorySettings(
            skip_unparseable_ddl=h.skip_unparseable_ddl,
            store_only_captured_tables_ddl=h.store_only_captured_tables_ddl,
            store_only_captured_databases_ddl=h.store_only_captured_databases_ddl,
            ddl_filter=ddl_filter,
            prefer_ddl=h.prefer_ddl,
            include_comments=settings.events.include_schema_comments,
            checkpoint_interval=h.checkpoint_interval,
            table_filter=table_filter.table_included,
            database_filter=table_filter.database_included,
            gtid_source_filter=_gtid_source_predicate(settings),
        ))
        self._store = store
        self._live: LiveSchema | None = None
        # DDL statements recorded some other way than as parsed (SHOW CREATE TABLE, default dropped): a metric
        self.ddl_fallbacks = 0
        try:
            self._history.initialize_storage()
        except SchemaHistoryError as exc:
            raise SchemaError(f"schema history store unusable: {exc.cause}", where=exc.where, statement=exc.statement,
                              fix=exc.fix) from None

    def table(self, table_id: TableId) -> Table | None:
        return self._history.tables.get(table_id)

    def current_tables(self) -> Tables:
        """The table definitions now: the same object with the same `changes` means no definition changed."""
        return self._history.tables

    def table_ids(self) -> list[TableId]:
        """Every table the history knows now (signals expand their regular expressions over these)."""
        return self._history.tables.ids()

    def attach_live(self, live: LiveSchema) -> None:
        """Allow the SHOW CREATE TABLE fallback for unparseable ALTER/CREATE TABLE (beyond Debezium)."""
        self._live = live
        self._history.on_unparseable = self._from_live_table

    def attach_table_check(self, check: Callable[[Table], str | None]) -> None:
        """After each parsed DDL, `check(table)` names what the converters cannot represent (None: fine); such a
        table falls back to its SHOW CREATE TABLE shape or keeps the column without its default, with a WARNING."""
        self._history.check_table = check
        self._history.on_unusable_table = self._on_unusable_table

    def _live_definition(self, table_id: TableId, position: Any, why: str) -> str | None:
        """The table's SHOW CREATE TABLE, when it can stand in for the statement at `position`: streaming, and
        no later statement in the binlog names the table (the live definition is then the one right after)."""
        live = self._live
        if live is None or position.get("snapshot"):
            return None
        file, pos = str(position.get("file")), int(position.get("pos") or 4)
        later = live.later_ddl_for(table_id, file, pos)
        if later is not None:
            log.info("%s; a later statement at %s:%s also names %s, so its current definition cannot stand in",
                     why, later.file, later.pos, table_id.dotted())
            return None
        return live.show_create(table_id)

    def _from_live_table(self, ddl: str, database: str | None, position: Any, exc: Exception
                         ) -> list[SchemaChange] | None:
        table_id = shape_ddl_table(ddl, database)
        where = f"DDL at binlog {position.get('file')}:{position.get('pos')}"
        create_sql = None if table_id is None else self._live_definition(table_id, position, f"{where} cannot be parsed")
        if table_id is None or create_sql is None:
            return None
        changes = self._history.apply_table_definition(ddl, table_id, create_sql, position)
        self.ddl_fallbacks += 1
        log.warning("%s cannot be parsed (%s); recorded the shape of %s from SHOW CREATE TABLE instead (no later "
                    "DDL touches it): %s", where, exc, table_id.dotted(), " ".join(create_sql.split()))
        return changes

    def _on_unusable_table(self, ddl: str, table_id: TableId, position: Any, problem: str
                           ) -> list[SchemaChange] | None:
        where = f"DDL at binlog {position.get('file')}:{position.get('pos')}"
        statement = " ".join(ddl.split())
        self.ddl_fallbacks += 1
        create_sql = self._live_definition(table_id, position, f"{where} leaves {table_id.dotted()} unusable")
        if create_sql is not None:
            try:
                changes = self._history.apply_table_definition(ddl, table_id, create_sql, position)
            except DdlParseError as exc:
                log.info("SHOW CREATE TABLE of %s cannot stand in: %s", table_id.dotted(), exc)
            else:
                log.warning("%s leaves table %s with %s; recorded its shape from SHOW CREATE TABLE instead (no later "
                            "DDL names it). Statement: %s", where, table_id.dotted(), problem, statement)
                return changes
        log.warning("%s leaves table %s with %s; kept the statement's shape, that column without its default. "
                    "Statement: %s", where, table_id.dotted(), problem, statement)
        return None

    def last_ddl(self, table_id: TableId) -> str | None:
        """The last statement applied to that table (recorded or recovered), for error messages."""
        return self._history.state.last_ddl.get(table_id)

    def exists(self) -> bool:
        return self._history.exists()

    def reset(self) -> None:
        """Before a new snapshot: start from an empty schema (the snapshot's DROP/CREATE records follow)."""
        self._history.reset()

    def recover(self, offset: dict[str, Any]) -> None:
        if not self._history.exists():
            raise SchemaError(
                "offsets exist but the schema history is empty or missing; the history topic/file was lost. "
                "Restore it, or run once with snapshot.mode=recovery to rebuild it from the current tables")
        self._history.recover(offset)
        log.info("schema history recovered: %d table(s)", len(self._history.tables))

    def apply(self, ddl: str, database: str, offset: dict[str, Any], snapshot: bool,
              event_at: tuple[str, int] | None = None) -> list[SchemaChange]:
        """`event_at`: binlog file and start position of the DDL's event, for errors (the offset's position is
        where a restart resumes, after it)."""
        try:
            return self._history.apply_ddl(ddl, database or None, offset)
        except DdlParseError as exc:
            table_id = shape_ddl_table(ddl, database or None)
            file, pos = event_at if event_at is not None else (offset.get("file"), offset.get("pos"))
            where = Where(file=file, pos=pos, table=table_id.dotted() if table_id is not None else None)
            raise SchemaError(f"cannot parse DDL ({exc.reason})", where=where, statement=ddl, fix=exc.fix) from None

    def close(self) -> None:
        self._store.close()


def build_schema_tracker(settings: Settings, table_filter: TableFilter) -> SchemaTracker:
    return SchemaTracker(settings, table_filter, make_history_store(settings))
