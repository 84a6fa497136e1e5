"""The schema history as the dispatcher sees it: current tables, DDL in, schema change events out.

Builds the history store named by `schema.history.internal` and wraps `schema_history.SchemaHistory`
so that parse failures become connector errors naming the binlog position and the fix.
"""

from __future__ import annotations

import logging
from typing import Any

from connector.config.settings import HISTORY_FILE, HISTORY_KAFKA, Settings
from connector.errors import SchemaError
from connector.filters import TableFilter
from connector.kafka_writer import connection_config
from schema_history.changes import SchemaChange
from schema_history.ddl.filters import DEFAULT_DDL_FILTER
from schema_history.errors import DdlParseError, SchemaHistoryError
from schema_history.history import SchemaHistory
from schema_history.model import Table, TableId
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
        connection = connection_config(settings.kafka.producer)
        connection.pop("bootstrap.servers", None)
        connection.pop("client.id", None)
        return KafkaHistoryStore.for_connector(
            h.kafka_bootstrap_servers, h.kafka_topic, settings.topics.prefix, name=h.client_name,
            producer_config={**connection, **h.producer_overrides},
            consumer_config={**connection, **h.consumer_overrides})
    return MemoryHistoryStore()


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
            table_filter=table_filter.table_included,
            database_filter=table_filter.database_included,
        ))
        self._store = store
        try:
            self._history.initialize_storage()
        except SchemaHistoryError as exc:
            raise SchemaError(f"schema history store unusable: {exc}") from None

    def table(self, table_id: TableId) -> Table | None:
        return self._history.tables.get(table_id)

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

    def apply(self, ddl: str, database: str, offset: dict[str, Any], snapshot: bool) -> list[SchemaChange]:
        try:
            return self._history.apply_ddl(ddl, database or None, offset)
        except DdlParseError as exc:
            raise SchemaError(
                f"cannot parse DDL at binlog {offset.get('file')}:{offset.get('pos')}: {exc}. Set "
                f"schema.history.internal.skip.unparseable.ddl=true to skip such statements (the tables they "
                f"change may then be decoded with a stale schema)") from None

    def close(self) -> None:
        close = getattr(self._store, "close", None)
        if close is not None:
            close()


def build_schema_tracker(settings: Settings, table_filter: TableFilter) -> SchemaTracker:
    return SchemaTracker(settings, table_filter, make_history_store(settings))
