"""Plain SQL connections to the source server: what it is, how its binlog is set up, where it is.

Every check that can stop the connector says which setting is wrong and how to fix it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

import pymysql
import pymysql.cursors

from connector.offsets.position import BinlogPosition
from connector.binlog.reader import ConnectionParams
from connector.errors import ServerSetupError, SourceConnectionError, Where

if TYPE_CHECKING:
    from connector.gtids.sets import GtidSourceFilter

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ServerInfo:
    version: str
    is_mariadb: bool
    gtid_mode: bool
    server_uuid: str | None
    binlog_format: str
    binlog_row_image: str
    binlog_row_metadata: str | None
    binlog_checksum: str
    log_bin: bool
    transaction_compression: bool
    # MariaDB log_bin_compress: its own compressed event types (QUERY_COMPRESSED, *_ROWS_COMPRESSED), not decoded.
    mariadb_binlog_compress: bool = False
    # Whether statements are written for include.query: MySQL binlog_rows_query_log_events (the global default;
    # sessions may differ), MariaDB binlog_annotate_row_events. None when the server does not say.
    query_events: bool | None = None

    @property
    def flavor(self) -> str:
        return "mariadb" if self.is_mariadb else "mysql"


@dataclass(frozen=True)
class BinlogStatus:
    position: BinlogPosition
    executed_gtid_set: str | None


def close_quietly(conn: pymysql.connections.Connection | None) -> None:
    """Close a side connection that may already be broken (the next use opens a new one)."""
    if conn is not None:
        try:
            conn.close()
        except (pymysql.Error, OSError):
            pass


def connect(params: ConnectionParams, database: str | None = None, autocommit: bool = True,
            cursorclass: type = pymysql.cursors.Cursor, **session: Any) -> pymysql.connections.Connection:
    """A connection with the connector's credentials and TLS; `session`: more PyMySQL arguments (conv, ...)."""
    kwargs = params.pymysql_kwargs()
    kwargs.update(autocommit=autocommit, cursorclass=cursorclass, **session)
    if database:
        kwargs["database"] = database
    try:
        return params.tls.connection_class()(**kwargs)
    except pymysql.err.OperationalError as exc:
        refused = params.refusal(exc)
        if refused is not None:
            raise refused from None
        raise SourceConnectionError(f"cannot connect to {params.host}:{params.port}: {exc.args[-1]}",
                                    fix="check database.hostname/database.port and that the server is running"
                                    ) from None


def _variables(conn: pymysql.connections.Connection, names: list[str]) -> dict[str, str]:
    with conn.cursor() as cur:
        placeholders = ",".join(["%s"] * len(names))
        cur.execute(f"SHOW GLOBAL VARIABLES WHERE Variable_name IN ({placeholders})", names)
        return {row[0].lower(): str(row[1]) for row in cur.fetchall()}


def server_info(conn: pymysql.connections.Connection) -> ServerInfo:
    names = ["version", "version_comment", "gtid_mode", "server_uuid", "binlog_format", "binlog_row_image",
             "binlog_row_metadata", "binlog_checksum", "log_bin", "binlog_transaction_compression",
             "log_bin_compress", "binlog_rows_query_log_events", "binlog_annotate_row_events"]
    v = _variables(conn, names)
    version = v.get("version", "")
    is_mariadb = "mariadb" in (version + v.get("version_comment", "")).lower()
    return ServerInfo(
        version=version,
        is_mariadb=is_mariadb,
        gtid_mode=(not is_mariadb) and v.get("gtid_mode", "OFF").upper() == "ON",
        server_uuid=v.get("server_uuid"),
        binlog_format=v.get("binlog_format", "").upper(),
        binlog_row_image=v.get("binlog_row_image", "").upper(),
        binlog_row_metadata=v.get("binlog_row_metadata"),
        binlog_checksum=v.get("binlog_checksum", "NONE").upper(),
        log_bin=v.get("log_bin", "OFF").upper() in ("ON", "1"),
        transaction_compression=v.get("binlog_transaction_compression", "OFF").upper() == "ON",
        mariadb_binlog_compress=is_mariadb and v.get("log_bin_compress", "OFF").upper() in ("ON", "1"),
        query_events=_on(v.get("binlog_annotate_row_events" if is_mariadb else "binlog_rows_query_log_events")),
    )


def _on(value: str | None) -> bool | None:
    return None if value is None else value.upper() in ("ON", "1")


def check_server(info: ServerInfo) -> None:
    """Refuse to start on a server whose binlog cannot give Debezium-equivalent events."""
    problems: list[tuple[str, str]] = []  # (what is wrong, how to fix it)
    if not info.log_bin:
        problems.append(("the binary log is off", "start the server with log_bin (e.g. --log-bin=mysql-bin)"))
    if info.binlog_format != "ROW":
        problems.append((f"binlog_format is {info.binlog_format or 'unknown'}, not ROW",
                         "SET GLOBAL binlog_format='ROW' (and in the server config)"))
    if info.binlog_row_image != "FULL":
        problems.append((f"binlog_row_image is {info.binlog_row_image or 'unknown'}, not FULL",
                         "SET GLOBAL binlog_row_image='FULL' (and in the server config)"))
    if info.mariadb_binlog_compress:
        # MySQL's binlog_transaction_compression is decoded (payload.py); MariaDB's compressed events would be
        # skipped silently by the binlog library, losing their changes.
        problems.append(("log_bin_compress=ON: MariaDB compressed binlog events are not decoded",
                         "SET GLOBAL log_bin_compress=OFF (and in the server config)"))
    if problems:
        raise ServerSetupError(
            "the source server is not set up for change data capture: " + "; ".join(p for p, _ in problems),
            fix="; ".join(f for _, f in problems))
    if (info.binlog_row_metadata or "").upper() != "FULL":
        log.warning("binlog_row_metadata=%s: FULL is recommended (SET GLOBAL binlog_row_metadata='FULL') so ENUM/SET "
                    "values and column charsets travel with the row events", info.binlog_row_metadata)


def check_privileges(conn: pymysql.connections.Connection, user: str) -> None:
    with conn.cursor() as cur:
        cur.execute("SHOW GRANTS FOR CURRENT_USER()")
        grants = " ".join(str(r[0]).upper() for r in cur.fetchall())
    if "ALL PRIVILEGES ON *.*" in grants:
        return
    needed = ["REPLICATION SLAVE", "REPLICATION CLIENT"]
    alternatives = {"REPLICATION SLAVE": ("REPLICATION SLAVE", "REPLICATION REPLICA"),
                    "REPLICATION CLIENT": ("REPLICATION CLIENT", "BINLOG MONITOR", "SLAVE MONITOR")}
    missing = [p for p in needed if not any(a in grants for a in alternatives[p])]
    if missing:
        raise ServerSetupError(
            f"user {user!r} lacks {', '.join(missing)}",
            fix=f"GRANT SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO {user!r}@'%'")


def binlog_status(conn: pymysql.connections.Connection) -> BinlogStatus:
    """Current write position: `SHOW BINARY LOG STATUS` (MySQL 8.2+), else `SHOW MASTER STATUS`."""
    with conn.cursor(pymysql.cursors.DictCursor) as cur:
        try:
            cur.execute("SHOW BINARY LOG STATUS")
        except pymysql.err.ProgrammingError:
            cur.execute("SHOW MASTER STATUS")
        row = cur.fetchone()
    if not row:
        raise ServerSetupError("SHOW MASTER STATUS returned nothing: the binary log is off; start the server with log_bin")
    gtids = row.get("Executed_Gtid_Set")
    return BinlogStatus(BinlogPosition(row["File"], int(row["Position"])),
                        gtids.replace("\n", "") if gtids else None)


def binary_logs(conn: pymysql.connections.Connection) -> list[tuple[str, int]]:
    with conn.cursor() as cur:
        cur.execute("SHOW BINARY LOGS")
        return [(r[0], int(r[1])) for r in cur.fetchall()]


def check_position_available(conn: pymysql.connections.Connection, position: BinlogPosition) -> None:
    files = [name for name, _ in binary_logs(conn)]
    if position.file not in files:
        first = files[0] if files else "none"
        raise ServerSetupError(
            f"the stored binlog position is no longer on the server (oldest binlog: {first}); the binlog was purged "
            f"while the connector was stopped", where=Where(position.file, position.pos),
            fix="set snapshot.mode=when_needed to take a new snapshot, or delete the stored offsets to start over")


def binlog_expire_seconds(conn: pymysql.connections.Connection) -> float:
    """Automatic binlog expiry in seconds (0: binlogs are never purged automatically).

    `binlog_expire_logs_seconds` wins when set (MySQL 8+, MariaDB 10.6+); else `expire_logs_days`
    (MariaDB; a fraction of a day allowed)."""
    v = _variables(conn, ["binlog_expire_logs_seconds", "expire_logs_days"])
    seconds = float(v.get("binlog_expire_logs_seconds") or 0)
    if seconds > 0:
        return seconds
    return float(v.get("expire_logs_days") or 0) * 86400


@dataclass(frozen=True)
class PurgeEstimate:
    """Where the stored position stands against binlog expiry. `seconds_left` is the earliest the server may
    purge its file (it purges at rotation or FLUSH, so often later); None when nothing expires binlogs."""

    file: str
    available: bool
    active: bool
    expire_seconds: float
    seconds_left: float | None
    oldest_file: str | None


def purge_estimate(conn: pymysql.connections.Connection, file: str, now_s: float,
                   closed_at: Callable[[str], float | None]) -> PurgeEstimate:
    """A binlog file is purged `expire` seconds after its last write, i.e. after the next file was started:
    `closed_at(next_file)` gives that file's start time (source clock, seconds)."""
    files = [name for name, _ in binary_logs(conn)]
    expire = binlog_expire_seconds(conn)
    oldest = files[0] if files else None
    if file not in files:
        return PurgeEstimate(file, False, False, expire, 0.0, oldest)
    index = files.index(file)
    active = index == len(files) - 1
    if expire <= 0:
        return PurgeEstimate(file, True, active, expire, None, oldest)
    if active:
        return PurgeEstimate(file, True, True, expire, expire, oldest)
    started = closed_at(files[index + 1])
    left = None if started is None else max(0.0, expire - (now_s - started))
    return PurgeEstimate(file, True, False, expire, left, oldest)


def replica_server_ids(conn: pymysql.connections.Connection) -> set[int] | None:
    """Server ids of the replicas registered with the server (`SHOW REPLICAS`, or `SHOW SLAVE HOSTS`);
    None when the user may not look (MariaDB wants REPLICATION MASTER ADMIN for it)."""
    with conn.cursor(pymysql.cursors.DictCursor) as cur:
        for sql in ("SHOW REPLICAS", "SHOW SLAVE HOSTS"):
            try:
                cur.execute(sql)
            except pymysql.err.ProgrammingError:
                continue
            except pymysql.err.OperationalError:
                return None
            return {int(r["Server_id"] if "Server_id" in r else r.get("Server_Id", 0)) for r in cur.fetchall()}
    return None


def check_server_id_unique(conn: pymysql.connections.Connection, server_id: int) -> None:
    """Refuse a `database.server.id` that a registered replica of this server already uses: the server keeps
    one binlog client per server id and drops the other at every reconnect, so both would stall in turn.
    (Only replicas that register are listed, as real replicas do; when the user may not list them, the
    check is skipped, and `binlog-cdc validate` says so.)"""
    replicas = replica_server_ids(conn)
    if replicas is None:
        log.info("cannot list this server's replicas (MariaDB needs REPLICATION MASTER ADMIN for SHOW SLAVE HOSTS): "
                 "database.server.id=%d not checked against them", server_id)
    elif server_id in replicas:
        raise ServerSetupError(
            f"database.server.id={server_id} is already used by a replica of this server (SHOW REPLICAS / SHOW "
            f"SLAVE HOSTS); the server would disconnect one of the two at every reconnect: set "
            f"database.server.id to an id no server or replica of the topology uses")


def gtid_purged(conn: pymysql.connections.Connection) -> str:
    with conn.cursor() as cur:
        cur.execute("SELECT @@GLOBAL.gtid_purged")
        row = cur.fetchone()
    return (row[0] or "").replace("\n", "") if row else ""


def check_gtids_available(conn: pymysql.connections.Connection, done: str,
                          source_filter: "GtidSourceFilter | None" = None) -> None:
    """A GTID resume needs every transaction not in `done` still in the server's binlogs: `gtid_purged` must
    be a subset of `done` (Debezium's check; the file name of the offset may not even exist on this server,
    e.g. after a failover)."""
    from connector.gtids.sets import GtidSet

    purged = GtidSet.parse(gtid_purged(conn))
    if source_filter is not None and source_filter.active:
        purged = source_filter.retain(purged)  # sources not followed are skipped on connect, never needed
    if not purged.is_subset_of(GtidSet.parse(done)):
        raise ServerSetupError(
            f"the stored position is no longer on the server: it has purged transactions the connector has not "
            f"seen yet (gtid_purged={purged}, offset "
            f"gtids={done}); the binlog was purged while the connector was stopped. Set snapshot.mode=when_needed "
            f"to take a new snapshot, or delete the stored offsets to start over")


def warn_include_query(info: ServerInfo, include_query: bool) -> None:
    """include.query needs the server to write each statement; say so when it does not by default."""
    if include_query and info.query_events is False:
        setting = "binlog_annotate_row_events" if info.is_mariadb else "binlog_rows_query_log_events"
        log.warning("include.query=true but %s=OFF: source.query stays null for changes made by sessions that do "
                    "not turn it on; SET GLOBAL %s=ON (and in the server config)", setting, setting)


def mariadb_gtid_pos_at(conn: pymysql.connections.Connection, position: BinlogPosition) -> str | None:
    """MariaDB: the GTID position (`d-s-n` per domain) at a binlog file/position of this server, or None when
    the file is not on this server or the position is not an event boundary (`BINLOG_GTID_POS`)."""
    with conn.cursor() as cur:
        try:
            cur.execute("SELECT BINLOG_GTID_POS(%s, %s)", (position.file, position.pos))
        except pymysql.err.MySQLError:
            return None
        row = cur.fetchone()
    return None if not row or row[0] is None else str(row[0])


def check_mariadb_gtids_available(conn: pymysql.connections.Connection, done: str) -> None:
    """A MariaDB GTID resume needs the binlogs from `done` on: the position at the start of the oldest binlog
    (what was purged before it) must be at or before `done` in every domain."""
    from connector.gtids.sets import MariaGtidPosition

    files = binary_logs(conn)
    oldest = mariadb_gtid_pos_at(conn, BinlogPosition(files[0][0], 4)) if files else None
    purged = MariaGtidPosition.parse(oldest)
    if oldest is None or not purged.is_subset_of(MariaGtidPosition.parse(done)):
        raise ServerSetupError(
            f"the stored position is no longer on the server: its oldest binlog {files[0][0] if files else 'none'} "
            f"starts after GTID position {oldest or '(unknown)'}, but the connector has only seen up to gtids={done}; "
            f"the binlog was purged while the connector was stopped. Set snapshot.mode=when_needed to take a new "
            f"snapshot, or delete the stored offsets to start over")
