"""No DDL becomes a traceback (issue 14): both DDL corpora, every statement streamed, through the CLI daemon.

`binlog-cdc run` starts on an empty database and then the long-tail corpus (tests/fixtures/ddl/
longtail_corpus.sql, one database plus its `_other`) and the real-world corpus (realworld_*.sql, a database of
its own; on MariaDB also realworld_mariadb_beyond.sql: CREATE OR REPLACE TABLE, then rows of the new shape, where
Debezium stops) run statement by statement on the server, including the statements the server refuses (they never
reach the binlog, which is the point of a server-side check). At the end the connector must have read
everything, still be running, and have logged no ERROR and no traceback: every DDL either applied or fell back
with a WARNING. The byte-level checks of the same statements are the goldens realworld / realworld-mysql.
"""
from __future__ import annotations

import pymysql
import pytest

from tests.integration.service.support import connector_config, new_prefix, start_connector
from tests.support.ddl_corpus import streaming_statements as realworld_statements
from tests.support.ddl_oracle import corpus_statements as longtail_statements

pytestmark = pytest.mark.timeout(300)


def _run_all(conn: pymysql.connections.Connection, database: str, statements: list[str]) -> tuple[int, int]:
    """Run `statements` in `database`; (accepted, refused) by the server."""
    accepted = refused = 0
    with conn.cursor() as cur:
        cur.execute(f"USE `{database}`")
        for statement in statements:
            try:
                cur.execute(statement)
                while cur.nextset():
                    pass
                accepted += 1
            except pymysql.err.MySQLError:
                refused += 1
    return accepted, refused


@pytest.mark.parametrize("flavour", ["mariadb", pytest.param("mysql", marks=pytest.mark.mysql)])
def test_every_corpus_statement_streamed_and_the_connector_still_runs(flavour, request, broker, unique_database,
                                                                      tmp_path):
    server = request.getfixturevalue(flavour)
    database = unique_database(server)
    realworld_db, other_db = f"{database}_rw", f"{database}_other"
    prefix = new_prefix("corpus")
    config = connector_config(tmp_path, server, broker, f"{database},{realworld_db},{other_db}", prefix)
    proc = start_connector(tmp_path, config)
    conn = server.connect(database)
    try:
        with conn.cursor() as cur:
            cur.execute(f"CREATE DATABASE `{realworld_db}`")
        longtail = _run_all(conn, database, longtail_statements(database))
        realworld = _run_all(conn, realworld_db, realworld_statements(flavour))
        conn.close()
        # raises if the connector exited on the way
        status = proc.wait_caught_up(server.binlog_position(), quiet_ms=500, timeout=180)
        assert status.get("phase") == "streaming", status
    finally:
        rc = proc.stop()
        for db in (realworld_db, other_db):
            server.query(f"DROP DATABASE IF EXISTS `{db}`")
    assert rc == 0, proc.log_tail(40)
    log = (tmp_path / "connector.log").read_text(encoding="utf-8")
    assert "Traceback" not in log and " ERROR " not in log, log[-4000:]
    # the corpora really ran: nearly all of each was accepted by the server, so nearly all was streamed
    assert longtail[0] >= 120 and realworld[0] >= 220 and realworld[1] == 0, (longtail, realworld)
