"""The binlog position a snapshot's records carry (snapshot step 4)."""

from __future__ import annotations

import logging
import time

import pymysql

from connector.binlog.connection import binlog_status
from connector.offsets.position import SNAPSHOT_INITIAL, SourceOffset

log = logging.getLogger(__name__)

__all__ = ["read_position", "view_position"]


def read_position(conn: pymysql.connections.Connection, use_gtids: bool) -> SourceOffset:
    """The server's current binlog position (+ executed GTID set): exact while writes are locked out."""
    log.info("Snapshot step 4 - Read binlog position")
    status = binlog_status(conn)
    offset = SourceOffset(file=status.position.file, pos=status.position.pos,
                          gtids=status.executed_gtid_set if use_gtids else None,
                          ts_sec=int(time.time()), snapshot=SNAPSHOT_INITIAL)
    log.info("Snapshot binlog position: %s gtids=%s", status.position, offset.gtids or "-")
    return offset


def view_position(cur: pymysql.cursors.Cursor, offset: SourceOffset, use_gtids: bool) -> SourceOffset:
    """MariaDB: the binlog position matching the open transaction's view, exact without any lock
    (`binlog_snapshot_file/position`); `offset` unchanged elsewhere and with GTIDs."""
    if use_gtids:
        return offset
    cur.execute("SHOW STATUS LIKE 'binlog_snapshot_%'")
    status = {str(k).lower(): str(v) for k, v in cur.fetchall()}
    file, pos = status.get("binlog_snapshot_file"), status.get("binlog_snapshot_position")
    if not file or not pos:
        return offset
    log.info("Lock-free snapshot: the consistent view starts at binlog position %s:%s", file, pos)
    return offset.with_(file=file, pos=int(pos))
