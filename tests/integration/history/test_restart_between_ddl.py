"""Stop the connector between every pair of DDL statements of ddl_heavy.sql (issue 4).

Each streaming statement is executed while the connector is down; the restarted connector must
recover the schema history up to its stored offset and then process the statement exactly as an
uninterrupted run does. The schema change events (ddl, tableChanges with the full table shape) and the
rows of `CREATE TABLE ... SELECT` are compared with what real Debezium 3.6 emitted for the same
workload without restarts (tests/fixtures/golden/ddl_heavy), so a schema recovered wrongly at any of
the 56 restarts shows up in the very next table change. A probe table altered every few statements
also carries rows whose shape must follow.

On MySQL the connector restarts after every fourth statement: the recovery is the same code on both servers
(MariaDB covers every statement); what MySQL adds is resuming by GTID set, which every restart exercises.
"""
from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from schema_history.ddl.tokens import split_statements
from tests.integration.history.support import connector, write_config
from tests.support.kafka_dump import consume_all
from tests.support.servers import MariaDBServer, MySQLServer, Profile
from tests.support.workload import Workload

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
WORKLOAD = FIXTURES / "workloads" / "ddl_heavy.sql"
GOLDENS = {"mariadb": FIXTURES / "golden" / "ddl_heavy", "mysql": FIXTURES / "golden" / "ddl_heavy-mysql"}
DATABASES = ("ddl1", "ddl2", "ddl3")

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


def _streamed_schema_changes(payloads: list[dict]) -> list[tuple]:
    return [(p["databaseName"], p["ddl"], json.dumps(p["tableChanges"], sort_keys=True)) for p in payloads
            if p["source"].get("snapshot") in (None, "false") and p["databaseName"] in DATABASES]


def _golden_payloads(golden: Path, topic: str) -> list[dict]:
    out = []
    for line in (golden / "events.jsonl").read_text().splitlines():
        r = json.loads(line)
        if r["topic"] == topic and r["value"] is not None:
            out.append(r["value"]["payload"])
    return out


def _server(flavour: str, request, tmp_path: Path):
    if flavour == "mariadb":
        return MariaDBServer(tmp_path / "maria", profile=Profile.REFERENCE)
    dist = request.getfixturevalue("mysql_distribution")
    golden_version = json.loads((GOLDENS["mysql"] / "run_info.json").read_text())["mysql"]
    if dist.version() != golden_version:
        pytest.skip(f"ddl_heavy-mysql was recorded with MySQL {golden_version}, not {dist.version()}")
    return MySQLServer(tmp_path / "mysql", profile=Profile.REFERENCE, dist=dist)


RESTART_EVERY = {"mariadb": 1, "mysql": 4}


@pytest.mark.parametrize("flavour", ["mariadb", pytest.param("mysql", marks=pytest.mark.mysql)])
def test_restart_between_every_ddl_statement(flavour, request, broker, tmp_path):
    golden = GOLDENS[flavour]
    statements = split_statements(Workload.load(WORKLOAD).sections[0])
    assert len(statements) > 50
    with _server(flavour, request, tmp_path) as server:
        server.run_sql(Workload.load(WORKLOAD).setup, what="ddl_heavy setup")
        server.run_sql("CREATE DATABASE ddlprobe; CREATE TABLE ddlprobe.p (id INT PRIMARY KEY);")
        prefix = f"rb{uuid.uuid4().hex[:8]}"
        topics = {prefix: 1, f"{prefix}.ddl1.s3": 1, f"{prefix}.ddlprobe.p": 1}
        broker.create_topics(list(topics))
        config = write_config(tmp_path, server, broker, ",".join(DATABASES + ("ddlprobe",)), prefix)
        session = server.connect()
        session.autocommit(True)
        probe_columns: list[str] = []
        proc = connector(tmp_path, config).start()
        proc.wait_streaming(120)
        try:
            with session.cursor() as cur:
                for n, statement in enumerate(statements, 1):
                    restart = n % RESTART_EVERY[flavour] == 0 or n == len(statements)
                    if restart:
                        assert proc.stop() == 0, proc.log_tail()
                    cur.execute(statement)
                    if n % 5 == 0:  # the probe changes shape while the connector is down, then gets a row
                        probe_columns.append(f"c{n}")
                        cur.execute(f"ALTER TABLE ddlprobe.p ADD COLUMN c{n} INT DEFAULT {n}")
                        cur.execute(f"INSERT INTO ddlprobe.p (id) VALUES ({n})")
                    if restart:
                        proc = connector(tmp_path, config).start()
                        proc.wait_streaming(120)
                    proc.wait_caught_up(server.binlog_position(), quiet_ms=300, timeout=120)
        finally:
            assert proc.stop() == 0, proc.log_tail()
            session.close()
        records = consume_all(broker.bootstrap_servers, topics)

    values = {t: [json.loads(r.value)["payload"] for r in records if r.topic == t and r.value is not None]
              for t in topics}
    ours = _streamed_schema_changes(values[prefix])
    expected = _streamed_schema_changes(_golden_payloads(golden, "dbserver1"))
    assert len(ours) == len(expected) > 40
    for i, (a, g) in enumerate(zip(ours, expected)):
        assert a == g, f"schema change {i} differs after a restart:\nours   {a}\ngolden {g}"
    rows = lambda ps: [(p["op"], p["before"], p["after"]) for p in ps]  # noqa: E731
    assert rows(values[f"{prefix}.ddl1.s3"]) == rows(_golden_payloads(golden, "dbserver1.ddl1.s3"))
    probe = [p["after"] for p in values[f"{prefix}.ddlprobe.p"]]
    assert len(probe) == len(probe_columns) > 10
    for k, after in enumerate(probe):
        n = int(probe_columns[k][1:])
        assert after == {"id": n, **{c: int(c[1:]) for c in probe_columns[:k + 1]}}, after
    restarts = sum(n % RESTART_EVERY[flavour] == 0 or n == len(statements) for n in range(1, len(statements) + 1))
    assert (tmp_path / "connector.log").read_text().count("schema history recovered") >= restarts
