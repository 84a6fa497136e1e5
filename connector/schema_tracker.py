"""The schema history as the dispatcher sees it: current tables, DDL in, schema change events out.

Interim composition over `schema_history` pieces (state + DDL parser + history records + a store);
the history package owns parsing, recording and recovery.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

from connector.config.settings import HISTORY_FILE, Settings
from connector.errors import SchemaError
from connector.filters import TableFilter
from schema_history.changes import SchemaChange
from schema_history.ddl.filters import DdlFilter
from schema_history.ddl.parser import apply_ddl
from schema_history.errors import DdlParseError
from schema_history.model import Table, TableId
from schema_history.record import HistoryRecord
from schema_history.state import SchemaState

log = logging.getLogger(__name__)


class SchemaTracker:
    def __init__(self, settings: Settings, table_filter: TableFilter) -> None:
        self._settings = settings
        self._filter = table_filter
        self._ddl_filter = DdlFilter.from_config(settings.history.ddl_filter)
        self._state = SchemaState()
        self._source = {"server": settings.topics.prefix}
        self._path = Path(settings.history.file_filename) if settings.history.store == HISTORY_FILE else None

    def table(self, table_id: TableId) -> Table | None:
        return self._state.tables.get(table_id)

    def reset(self) -> None:
        self._state = SchemaState()
        if self._path is not None:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            self._path.write_text("", encoding="utf-8")

    def recover(self, offset: dict[str, Any]) -> None:
        if self._path is None or not self._path.exists():
            return
        for line in self._path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            record = HistoryRecord.from_json(line)
            if record.ddl is not None:
                apply_ddl(self._state, record.ddl, record.database_name or None)

    def apply(self, ddl: str, database: str, offset: dict[str, Any], snapshot: bool) -> list[SchemaChange]:
        if self._ddl_filter.skips(ddl):
            return []
        try:
            changes = apply_ddl(self._state, ddl, database or None)
        except DdlParseError as exc:
            if self._settings.history.skip_unparseable_ddl:
                log.warning("skipping unparseable DDL (schema.history.internal.skip.unparseable.ddl=true): %s", exc)
                return []
            raise SchemaError(f"cannot parse DDL at {offset.get('file')}:{offset.get('pos')}: {exc}; set "
                              f"schema.history.internal.skip.unparseable.ddl=true to skip it") from None
        ts_ms = int(time.time() * 1000)
        if self._path is not None:
            with self._path.open("a", encoding="utf-8") as fh:
                for change in changes:
                    fh.write(HistoryRecord.of(change, self._source, offset, ts_ms).to_compact_json() + "\n")
        return changes

    def close(self) -> None:
        pass


def build_schema_tracker(settings: Settings, table_filter: TableFilter) -> SchemaTracker:
    return SchemaTracker(settings, table_filter)
