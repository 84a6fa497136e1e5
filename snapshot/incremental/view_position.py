"""Watermarks that write nothing, for MariaDB: the chunk query's own consistent view and its binlog position.

MariaDB reports, inside a transaction opened `WITH CONSISTENT SNAPSHOT`, the binlog position that view matches
exactly (`binlog_snapshot_file`/`binlog_snapshot_position`, https://mariadb.com/kb/en/enhancements-for-start-
transaction-with-consistent-snapshot/): every transaction before it is visible to the view, none after it. So the
chunk is read in such a transaction, and the view's position V is both watermarks at once:
* transactions that start before V are older than the chunk: they are streamed before the window goes out;
* the window goes out before the first change of a transaction that starts at V or later (or at the first commit
  or idle heartbeat that is past V), so every later change follows the chunk's row.
The window counts as open from the chunk read until then, so a streamed change of one of its keys drops the key
from the window: that is never wrong (the change carries the whole row, binlog_row_image=FULL) and spares a
comparison for changes between the streaming position and V. Binlog positions hold with or without GTIDs.

Why not `SHOW MASTER STATUS` around the query, as with GTID sets: MariaDB writes a transaction to the binlog
before InnoDB commits it, so a position read before the query may cover a change the query does not see yet.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

import pymysql

from connector.offsets.position import SourceOffset
from connector.events.changes import EventSource

__all__ = ["ViewPositionWatermarks", "binlog_order"]

log = logging.getLogger(__name__)

_SEQUENCE = re.compile(r"\.(\d+)$")


def binlog_order(file: str, pos: int) -> tuple[int, int]:
    """A binlog position as a comparable pair: the file's sequence number (`name.000042`), then the position."""
    match = _SEQUENCE.search(file)
    return (int(match.group(1)) if match else 0, pos)


@dataclass
class ViewPositionWatermarks:
    view: tuple[int, int] | None = None  # binlog_order() of the chunk query's view; None: no window
    window_opened: bool = False

    @property
    def active(self) -> bool:
        return self.view is not None

    def read_low(self, conn: pymysql.connections.Connection) -> None:
        self.close()  # the view is taken with the chunk query, after its table's maximum key is read

    def before_query(self, conn: pymysql.connections.Connection) -> None:
        conn.commit()
        with conn.cursor() as cur:
            # the view is the transaction's only under REPEATABLE READ (READ COMMITTED takes one per statement)
            cur.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            cur.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT")
            cur.execute("SHOW STATUS LIKE 'binlog_snapshot_%'")
            status = {str(k).lower(): str(v) for k, v in cur.fetchall()}
        file, pos = status.get("binlog_snapshot_file"), status.get("binlog_snapshot_position")
        if not file or not pos:
            raise pymysql.err.OperationalError(
                1227, "binlog_snapshot_file/position unavailable: the binlog is off or the server is not MariaDB")
        self.view = binlog_order(file, int(pos))
        self.window_opened = True
        log.debug("chunk view at binlog position %s:%s", file, pos)

    def read_high(self, conn: pymysql.connections.Connection) -> None:
        pass  # the view's position is exact: nothing to bound after the query

    def update_window_state(self, source: EventSource, offset: SourceOffset) -> bool:
        if self.view is None or binlog_order(offset.file, offset.pos) < self.view:
            return False
        self.close()
        return True

    def reached_high_watermark(self, source: EventSource, offset: SourceOffset) -> bool:
        return self.view is not None and binlog_order(source.file, source.pos) >= self.view

    def close(self) -> None:
        self.view = None
        self.window_opened = False
