"""What the start decision asks the server: can the stored position still be read, what is the oldest binlog,
did DDL run after an offset.

`ServerStart` is the coordinator's `StartEnvironment` over one control connection, the schema tracker and
the live server's view (connector/schema/live.py). It sits above binlog/ and schema/, which it both asks.
"""

from __future__ import annotations

from typing import Any

import pymysql

from connector.binlog import connection as dbconn
from connector.binlog.availability import mariadb_connect_state, tracks_mariadb_gtids
from connector.gtids.sets import GtidSourceFilter
from connector.offsets.position import SourceOffset
from connector.config.settings import Settings
from connector.config.table_filter import TableFilter
from connector.errors import ServerSetupError
from connector.schema.live import LiveSchema, changes_shape, shape_ddl_table

__all__ = ["ServerStart"]


class ServerStart:
    """`StartEnvironment` (connector/coordinator.py) over the source server and the schema tracker."""

    def __init__(self, settings: Settings, info: dbconn.ServerInfo, ctl: pymysql.connections.Connection,
                 schema: Any, live: LiveSchema, table_filter: TableFilter) -> None:
        self._settings, self._info, self._ctl = settings, info, ctl
        self._schema, self._live, self._filter = schema, live, table_filter

    def check_available(self, offset: SourceOffset) -> None:
        """A ServerSetupError naming what is missing when `offset` cannot be read again."""
        ignore = self._settings.gtid_ignore_on_recovery  # validate the file and position only, as Debezium
        if self._info.gtid_mode and offset.gtids and not ignore:
            dbconn.check_gtids_available(self._ctl, offset.gtids, GtidSourceFilter.from_settings(self._settings.gtid_source))
        elif tracks_mariadb_gtids(self._settings, self._info) and offset.gtids and not ignore:
            if mariadb_connect_state(self._ctl, offset.position(), offset.gtids) is not None:
                dbconn.check_mariadb_gtids_available(self._ctl, offset.gtids)
        else:
            dbconn.check_position_available(self._ctl, offset.position())

    def position_purged(self, offset: SourceOffset) -> str | None:
        try:
            self.check_available(offset)
        except ServerSetupError as exc:
            return str(exc)
        return None

    def history_exists(self) -> bool:
        return bool(self._schema.exists())

    def recover_history(self, offset: SourceOffset) -> None:
        self._schema.recover(offset.with_parts().to_map(include_transaction=False))

    def reset_history(self) -> None:
        self._schema.reset()

    def oldest_binlog(self) -> str:
        return dbconn.binary_logs(self._ctl)[0][0]

    def refuse_recovery_after_ddl(self, offset: SourceOffset) -> None:
        """snapshot.mode=recovery records the current tables at the stored offset: wrong if DDL of a captured
        database ran since then (rows before that DDL would be decoded with the newer shape)."""
        for query in self._live.queries_after(offset.file, offset.pos, include_start=True,
                                              gtids=offset.gtids or None, server_id=offset.server_id or None):
            if not changes_shape(query.statement):
                continue
            table_id = shape_ddl_table(query.statement, query.database)
            database = table_id.database if table_id is not None else query.database
            if database is None or self._filter.database_included(database):
                raise ServerSetupError(
                    f"snapshot.mode=recovery refused: DDL ran after the stored offset {offset.file}:{offset.pos} "
                    f"(at {query.file}:{query.pos}: {' '.join(query.statement.split())[:200]}), so the current "
                    f"tables are not the schema at that offset. Restore the lost history instead, or start over "
                    f"with new offsets and snapshot.mode=initial")
