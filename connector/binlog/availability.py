"""Which GTIDs a MariaDB offset carries, and the GTID state a MariaDB reconnect sends
(the start decision's questions to the server are in connector/streaming/server_start.py)."""

from __future__ import annotations

import pymysql

from connector.binlog import connection as dbconn
from connector.gtids.sets import MariaGtidPosition
from connector.offsets.position import BinlogPosition
from connector.config.settings import Settings

__all__ = ["mariadb_connect_state", "tracks_mariadb_gtids"]


def tracks_mariadb_gtids(settings: Settings, info: dbconn.ServerInfo) -> bool:
    """Offsets carry MariaDB GTID positions (`gtids`, `d-s-n` per domain) as Debezium's MariaDB connector's do.
    Debezium's MySQL connector sees no GTIDs on MariaDB, so with it offsets stay file/pos only."""
    return info.is_mariadb and settings.mariadb_connector


def mariadb_connect_state(ctl: pymysql.connections.Connection, position: BinlogPosition, gtids: str) -> str | None:
    """None when `position` is the point of GTID position `gtids` on this server, else `gtids` (connect by GTID)."""
    here = dbconn.mariadb_gtid_pos_at(ctl, position)
    if here is not None and MariaGtidPosition.parse(here) == MariaGtidPosition.parse(gtids):
        return None
    return gtids
