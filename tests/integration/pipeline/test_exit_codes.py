"""Every way `binlog-cdc run` ends, through the real CLI: the documented exit code (README "Running it",
connector/errors.py) and one log line naming cause, place and fix, never a traceback."""
from __future__ import annotations

import re
import subprocess
import uuid
from pathlib import Path

import pytest

from tests.conformance.config import write_properties
from tests.support.connector_process import ConnectorProcess
from tests.support.connector_process import default_connector_cmd
from tests.support.connector_config import connector_properties
from tests.support.servers import MariaDBServer, Profile

pytestmark = pytest.mark.timeout(240)

ERROR_LINE = re.compile(r"^\S+ \S+ ERROR binlog-cdc: (.*)$", re.MULTILINE)


def _run_once(config: Path) -> subprocess.CompletedProcess:
    return subprocess.run([*default_connector_cmd(), "run", str(config)], capture_output=True, text=True, timeout=180)


def _the_error(output: str) -> str:
    """The single ERROR line the CLI logs for a failure; no traceback anywhere."""
    assert "Traceback" not in output, output[-3000:]
    lines = ERROR_LINE.findall(output)
    assert len(lines) == 1, output[-3000:]
    return lines[0]


def _props(tmp_path: Path, server, broker, database: str, **extra: str) -> dict[str, str]:
    return connector_properties(tmp_path, server, broker, database, "x" + uuid.uuid4().hex[:8], **extra)


def test_invalid_configuration_lists_every_problem_and_exits_2(tmp_path):
    config = tmp_path / "c.properties"
    write_properties(config, {
        "debezium.sink.kafka.producer.bootstrap.servers": "127.0.0.1:9",
        "debezium.source.database.hostname": "127.0.0.1",
        "debezium.source.database.port": "not-a-port",
        "debezium.source.database.user": "u",
        "debezium.source.topic.prefix": "p",
        "debezium.source.snapshot.mode": "sometimes",
        "debezium.source.offset.storage.file.filename": str(tmp_path / "offsets.dat"),
        "debezium.source.schema.history.internal": "io.debezium.storage.file.history.FileSchemaHistory",
        "debezium.source.schema.history.internal.file.filename": str(tmp_path / "history.jsonl"),
    })
    result = _run_once(config)
    assert result.returncode == 2, result.stderr[-2000:]
    line = _the_error(result.stderr)
    assert line.startswith("invalid configuration (3 problems): ")
    for problem in ("database.port='not-a-port' must be a whole number", "snapshot.mode='sometimes' is not one of",
                    "database.server.id is required"):
        assert problem in line


def test_missing_privilege_is_refused_with_the_grant_and_exits_2(mariadb, broker, unique_database, tmp_path):
    database = unique_database(mariadb)
    user = "weak" + uuid.uuid4().hex[:8]
    # sql_log_bin=0: the shared server's binlog is streamed by other tests
    mariadb.run_sql(f"SET sql_log_bin = 0; CREATE USER '{user}'@'%' IDENTIFIED BY 'pw'; "
                    f"GRANT SELECT, RELOAD, SHOW DATABASES ON *.* TO '{user}'@'%';")
    try:
        props = _props(tmp_path, mariadb, broker, database)
        props.update({"debezium.source.database.user": user, "debezium.source.database.password": "pw"})
        write_properties(tmp_path / "c.properties", props)
        result = _run_once(tmp_path / "c.properties")
    finally:
        mariadb.run_sql(f"SET sql_log_bin = 0; DROP USER '{user}'@'%';")
    assert result.returncode == 2, result.stderr[-2000:]
    line = _the_error(result.stderr)
    assert "REPLICATION SLAVE" in line and "GRANT" in line, line


def test_bad_producer_property_is_a_kafka_configuration_error_exit_2(mariadb, broker, unique_database, tmp_path):
    props = _props(tmp_path, mariadb, broker, unique_database(mariadb))
    props["debezium.sink.kafka.producer.compression.type"] = "brotli"
    write_properties(tmp_path / "c.properties", props)
    result = _run_once(tmp_path / "c.properties")
    assert result.returncode == 2, result.stderr[-2000:]
    line = _the_error(result.stderr)
    assert line.startswith('invalid producer configuration: Invalid value "brotli" for configuration property '
                           '"compression.codec". Fix: correct the producer property named'), line


def test_unreadable_offsets_file_exits_2_naming_the_file(mariadb, broker, unique_database, tmp_path):
    props = _props(tmp_path, mariadb, broker, unique_database(mariadb))
    (tmp_path / "offsets.dat").write_bytes(b"these are not Java-serialised offsets")
    write_properties(tmp_path / "c.properties", props)
    result = _run_once(tmp_path / "c.properties")
    assert result.returncode == 2, result.stderr[-2000:]
    line = _the_error(result.stderr)
    assert f"offsets file {tmp_path / 'offsets.dat'} is not a Kafka Connect FileOffsetBackingStore file" in line
    assert ". Fix: " in line


def test_sigterm_stops_cleanly_with_exit_0(mariadb, broker, unique_database, tmp_path):
    props = _props(tmp_path, mariadb, broker, unique_database(mariadb))
    write_properties(tmp_path / "c.properties", props)
    proc = ConnectorProcess(list(default_connector_cmd()), tmp_path / "c.properties", tmp_path / "s.json",
                            tmp_path / "c.log").start()
    proc.wait_streaming(90)
    assert proc.stop() == 0
    log = (tmp_path / "c.log").read_text()
    assert "Traceback" not in log and " ERROR " not in log, log[-3000:]


def test_unparseable_streamed_ddl_names_table_position_statement_and_property(broker, tmp_path):
    # A private server: the unparseable DDL stays in its binlog and would stop any other connector reading it.
    with MariaDBServer(tmp_path / "maria", profile=Profile.DEFAULTS) as server:
        server.run_sql("CREATE DATABASE sdb; USE sdb; CREATE TABLE ok_t (id INT PRIMARY KEY);")
        props = _props(tmp_path, server, broker, "sdb")
        props["debezium.source.schema.history.internal.skip.unparseable.ddl"] = "false"
        write_properties(tmp_path / "c.properties", props)
        proc = ConnectorProcess(list(default_connector_cmd()), tmp_path / "c.properties", tmp_path / "s.json",
                                tmp_path / "c.log").start()
        try:
            proc.wait_streaming(90)
            # INET4 is MariaDB's, unknown to Debezium's grammar; SHOW CREATE TABLE has it too, so no fallback.
            server.run_sql("CREATE TABLE net_t (id INT PRIMARY KEY, ip INET4);", database="sdb")
            ddl_file, ddl_pos = _query_event(server, "CREATE TABLE net_t")
            rc = proc.wait_exit(90)
        finally:
            proc.stop()
    assert rc == 2, proc.log_tail(40)
    line = _the_error((tmp_path / "c.log").read_text())
    assert line.startswith("cannot parse DDL ("), line
    assert f" at {ddl_file}:{ddl_pos} table sdb.net_t: CREATE TABLE net_t (id INT PRIMARY KEY, ip INET4)" in line
    assert line.endswith(". Fix: set schema.history.internal.skip.unparseable.ddl=true to skip such statements "
                         "(the tables they change may then be decoded with a stale schema)"), line


def _query_event(server, text: str) -> tuple[str, int]:
    """Binlog file and position of the QUERY event whose statement contains `text`."""
    for (file, _size) in server.query("SHOW BINARY LOGS"):
        for row in server.query(f"SHOW BINLOG EVENTS IN '{file}'"):
            if row[2] == "Query" and text in row[5]:
                return file, int(row[1])
    raise AssertionError(f"no QUERY event with {text!r}")


@pytest.mark.parametrize("exactly_once", [False, True], ids=["at-least-once", "exactly-once"])
def test_record_kafka_refuses_stops_naming_table_and_topic(mariadb, broker, unique_database, tmp_path,
                                                            exactly_once):
    # A record Kafka refuses for good (here: over the producer's message.max.bytes; a topic name over 249
    # characters is cut as Debezium cuts it, so it no longer makes one): the connector must stop with a line
    # naming the table and the topic, not retry forever or die silently.
    database = unique_database(mariadb)
    prefix = "p" + uuid.uuid4().hex[:8]
    topic = f"{prefix}.{database}.wide"
    mariadb.run_sql("CREATE TABLE wide (id INT PRIMARY KEY, v TEXT); INSERT INTO wide VALUES (1, REPEAT('x', 30000));",
                    database=database)
    props = connector_properties(tmp_path, mariadb, broker, database, prefix, snapshot_mode="initial")
    props["debezium.sink.kafka.producer.message.max.bytes"] = "15000"
    if exactly_once:  # the refusal may reach the connector at the transaction's commit (aborted there)
        del props["debezium.source.offset.storage.file.filename"]
        props.update({"debezium.source.offset.storage": "org.apache.kafka.connect.storage.KafkaOffsetBackingStore",
                      "debezium.source.offset.storage.topic": f"o{uuid.uuid4().hex[:8]}-offsets",
                      "debezium.source.offset.storage.partitions": "1",
                      "debezium.source.offset.storage.replication.factor": "1",
                      "debezium.sink.kafka.producer.transactional.id": f"t{uuid.uuid4().hex[:8]}"})
    write_properties(tmp_path / "c.properties", props)
    result = _run_once(tmp_path / "c.properties")
    assert result.returncode == 2, result.stderr[-2000:]
    line = _the_error(result.stderr)
    assert f"delivery to {topic}" in line, line
    assert f"table {database}.wide" in line, line
    assert "Fix: fix the topic (name, ACLs, size limits) or route the table elsewhere, then restart" in line, line
