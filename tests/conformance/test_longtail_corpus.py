"""Every statement of the long-tail corpus streamed through `binlog-cdc run`: the daemon must still be
running at the end (it exits 0 on the runner's SIGTERM), with no traceback and no ERROR in its log.

The corpus (tests/fixtures/ddl/longtail_corpus.sql) is first run on the session server to keep only the
statements this flavour accepts (the workload is fed by the command-line client, which stops at an error).
"""

from __future__ import annotations

import json

import pytest

from tests.conformance.run import RunOptions, run_workload
from tests.support.ddl_oracle import corpus_statements

ROWS = """INSERT INTO t1 (c1, c2) VALUES (1, 'a');
INSERT INTO test_defaults () VALUES ();
INSERT INTO bool_defaults (id) VALUES (1);
INSERT INTO time_defaults (id) VALUES (1);
INSERT INTO enum_special (id, e, s) VALUES (1, 'a,b', 'q r');
INSERT INTO `odd name` (`select`) VALUES (1);
INSERT INTO `quote"table` VALUES (1);
"""


def _accepted(server, db: str) -> list[str]:
    accepted = []
    with server.connect(db) as conn, conn.cursor() as cur:
        for statement in corpus_statements(db):
            try:
                cur.execute(statement)
                while cur.nextset():
                    pass
            except Exception:  # noqa: BLE001 - the server refusing a statement is what is being probed
                continue
            accepted.append(statement.replace(db, "corpus"))
    server.query(f"DROP DATABASE IF EXISTS `{db}_other`")
    return accepted


@pytest.mark.parametrize("flavour", ["mariadb", pytest.param("mysql", marks=pytest.mark.mysql)])
def test_every_corpus_statement_streamed_keeps_the_connector_running(flavour, request, unique_database, tmp_path):
    server = request.getfixturevalue(flavour)
    statements = _accepted(server, unique_database(server))
    workload = tmp_path / "longtail_corpus.sql"
    workload.write_text("CREATE DATABASE corpus CHARACTER SET utf8mb4;\nUSE corpus;\nCREATE TABLE seed (id INT PRIMARY KEY);\n"
                        "-- @@STREAM@@\nUSE corpus;\n" + "".join(s + ";\n" for s in statements) + ROWS, encoding="utf-8")
    result = run_workload(RunOptions(workload, tmp_path / "out", server="mysql" if flavour == "mysql" else "mariadb"))
    assert result.connector_rc == 0
    log = (tmp_path / "out" / "connector.log").read_text(encoding="utf-8")
    assert "Traceback" not in log and " ERROR " not in log, log[-3000:]
    records = [json.loads(line) for line in (tmp_path / "out" / "events.jsonl").read_text().splitlines()]
    ddl = [r for r in records if r["topic"] == "dbserver1" and r["value"]["payload"]["source"]["snapshot"] == "false"]
    assert len(ddl) >= len(statements) - 10  # every statement recorded (a few, e.g. OPTIMIZE, are not DDL)
    assert any(r["topic"] == "dbserver1.corpus.quote_table" for r in records)
