"""Replays a reference workload on a private server and rebuilds every data record from real values.

`Replay` loads the workload's setup, reads each captured table with PyMySQL (the snapshot path), runs
the streaming sections, and reads their row events with python-mysql-replication (the binlog path).
Tests then turn those values into bytes with `TableSchema` and compare them with the golden records.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterator

import pymysql
import pymysql.cursors
from pymysqlreplication import BinLogStreamReader
from pymysqlreplication.row_event import DeleteRowsEvent, UpdateRowsEvent, WriteRowsEvent

from connector.binlog.rows_decoder import RowsDecoder
from connector.config.modes import Operation
from connector.converters.base import ValueSettings
from connector.converters.snapshot_conv import pymysql_conversions
from connector.events.envelope import PlannedEvent, plan_row
from connector.events.table_schema import TableSchema
from schema_history.model import TableId
from snapshot.raw_rows import column_decoders, fetch_raw
from tests.integration.events.servers import Server
from tests.unit.events.golden import GoldenRecord, load_records, schema_builder, table_versions, version_with_columns

_OPS = {WriteRowsEvent: Operation.CREATE, UpdateRowsEvent: Operation.UPDATE, DeleteRowsEvent: Operation.DELETE}


def patch_mariadb_dump_length() -> None:
    """python-mysql-replication.md B1: the MariaDB COM_BINLOG_DUMP length is one byte short."""
    name = "_BinLogStreamReader__set_mariadb_settings"
    orig = getattr(BinLogStreamReader, name)
    if getattr(orig, "_length_fixed", False):
        return

    def fixed(self: Any) -> bytes:
        packet = orig(self)
        return struct.pack("<i", len(packet) - 4) + packet[4:]

    fixed._length_fixed = True  # type: ignore[attr-defined]
    setattr(BinLogStreamReader, name, fixed)


def workload_sections(path: Path) -> tuple[str, list[str]]:
    text = path.read_text(encoding="utf-8")
    setup, stream = re.split(r"^-- @@STREAM@@\s*$", text, flags=re.M)
    return setup, re.split(r"^-- @@WAIT@@\s*$", stream, flags=re.M)


@dataclass(frozen=True)
class Produced:
    schema: TableSchema
    event: PlannedEvent


class Replay:
    def __init__(self, golden_dir: Path, workload: Path, server: Server, settings: ValueSettings,
                 replication_server_id: int, read_binlog: bool = True) -> None:
        self.server = server
        self.records = load_records(golden_dir)
        self.versions = table_versions(golden_dir)
        self.builder = schema_builder(golden_dir, settings)
        self._schemas: dict[int, TableSchema] = {}
        self.databases = sorted({r.topic.split(".")[1] for r in self.records
                                 if r.topic.count(".") >= 2 and not r.topic.endswith(".transaction")})
        setup, stream = workload_sections(workload)
        server.sql("".join(f"DROP DATABASE IF EXISTS `{db}`;\n" for db in self.databases) + setup)
        self.snapshot_rows = self._read_snapshot()
        self.snapshot_raw_rows = self._read_snapshot_raw()
        start = self._binlog_start()
        for section in stream:
            server.sql(section)
        self.binlog_rows = list(self._read_binlog(start, replication_server_id)) if read_binlog else []

    # ------------------------------------------------------------ schemas
    def own_builder_schema(self, table_id: TableId, columns: list[str]) -> TableSchema:
        """Like `schema_for`, with settings for the connector's decoder (negative TIME already right)."""
        table = version_with_columns(self.versions, table_id, columns)
        key = -id(table)
        if key not in self._schemas:
            settings = replace(self.builder.settings, binlog_negative_time_fraction_complemented=False)
            self._schemas[key] = replace(self.builder, settings=settings).build(table)
        return self._schemas[key]

    def schema_for(self, table_id: TableId, columns: list[str]) -> TableSchema:
        table = version_with_columns(self.versions, table_id, columns)
        key = id(table)
        if key not in self._schemas:
            self._schemas[key] = self.builder.build(table)
        return self._schemas[key]

    # ------------------------------------------------------------ golden selections
    def golden_data(self, snapshot: bool) -> list[GoldenRecord]:
        out = []
        for r in self.records:
            if r.topic.count(".") == 2 and not r.topic.endswith(".transaction") and r.value is not None:
                if (r.value["payload"]["op"] == "r") == snapshot:
                    out.append(r)
        return out

    # ------------------------------------------------------------ server reads
    def _connect(self) -> pymysql.Connection:
        conn = pymysql.connect(unix_socket=self.server.sock, user="root", password="", charset="utf8mb4",
                               conv=pymysql_conversions(), ssl_disabled=True)
        with conn.cursor() as cur:
            cur.execute("SET time_zone = '+00:00'")
        return conn

    def _read_snapshot(self) -> dict[TableId, tuple[list[str], list[tuple]]]:
        conn = self._connect()
        out = {}
        try:
            with conn.cursor() as cur:
                for db in self.databases:
                    cur.execute(f"SHOW FULL TABLES FROM `{db}` WHERE Table_type = 'BASE TABLE'")
                    for (name, _) in cur.fetchall():
                        cur.execute(f"SELECT * FROM `{db}`.`{name}`")
                        columns = [d[0] for d in cur.description]
                        out[TableId(db, name)] = (columns, list(cur.fetchall()))
        finally:
            conn.close()
        return out

    def _read_snapshot_raw(self) -> dict[TableId, tuple[list[str], list, list[list]]]:
        """The same tables as the snapshot's fast path reads them: (columns, PyMySQL decoders, raw rows)."""
        conn = self._connect()
        out = {}
        try:
            for db_id in self.snapshot_rows:
                with conn.cursor(pymysql.cursors.SSCursor) as cur:
                    cur.execute(f"SELECT * FROM `{db_id.database}`.`{db_id.table}`")
                    columns, decoders = [d[0] for d in cur.description], column_decoders(cur)
                    rows = []
                    while batch := fetch_raw(cur, 100):
                        rows += batch
                out[db_id] = (columns, decoders, rows)
        finally:
            conn.close()
        return out

    def _binlog_start(self) -> dict:
        conn = self._connect()
        try:
            with conn.cursor() as cur:
                if self.server.flavour == "mariadb":
                    cur.execute("SELECT @@gtid_binlog_pos")
                    return {"auto_position": cur.fetchone()[0]}
                cur.execute("SHOW BINARY LOG STATUS")
                row = cur.fetchone()
                return {"log_file": row[0], "log_pos": int(row[1]), "resume_stream": True}
        finally:
            conn.close()

    def _read_binlog(self, start: dict, server_id: int) -> Iterator[tuple[type, TableId, dict, tuple]]:
        """(event type, table, python-mysql-replication's row dict, the connector decoder's (before, after))."""
        is_mariadb = self.server.flavour == "mariadb"
        if is_mariadb:
            patch_mariadb_dump_length()
        stream = BinLogStreamReader(
            connection_settings=self.server.connection_settings(),
            server_id=server_id,
            blocking=False,
            is_mariadb=is_mariadb,
            only_events=[WriteRowsEvent, UpdateRowsEvent, DeleteRowsEvent],
            only_schemas=self.databases,
            **start,
        )
        try:
            own = RowsDecoder()
            for event in stream:
                pairs = own(event)  # reads the raw bytes first; pmr's event.rows still works after
                for row, pair in zip(event.rows, pairs, strict=True):
                    yield type(event), TableId(event.schema, event.table), row, pair
        finally:
            stream.close()

    # ------------------------------------------------------------ conversion
    def streamed_events(self, connector_decoder: bool = False) -> list[Produced]:
        """Planned events from the binlog rows, decoded by python-mysql-replication (default) or by
        the connector's own `RowsDecoder` (whose values go through converters without the B6 undo)."""
        produced = []
        for event_type, table_id, row, (own_before, own_after) in self.binlog_rows:
            op = _OPS[event_type]
            if connector_decoder:
                names = list(row["after_values"] if op is Operation.UPDATE else row["values"])
                ts = self.own_builder_schema(table_id, names)
                before = ts.convert_binlog_row(own_before) if own_before is not None else None
                after = ts.convert_binlog_row(own_after) if own_after is not None else None
            elif op is Operation.UPDATE:
                ts = self.schema_for(table_id, list(row["after_values"]))
                before = ts.convert_binlog_row(list(row["before_values"].values()), row.get("before_none_sources"))
                after = ts.convert_binlog_row(list(row["after_values"].values()), row.get("after_none_sources"))
            else:
                ts = self.schema_for(table_id, list(row["values"]))
                image = ts.convert_binlog_row(list(row["values"].values()), row.get("none_sources"))
                before, after = (image, None) if op is Operation.DELETE else (None, image)
            planned = plan_row(op, before, after,
                               ts.key_values(before) if before is not None else None,
                               ts.key_values(after) if after is not None else None)
            produced.extend(Produced(ts, p) for p in planned)
        return produced
