"""Canary secrets (database password, truststore password, SASL password in sasl.jaas.config) go through a
whole run and its error paths; none may appear in any output: logs, status file, metrics, offsets file,
`offsets show`, schema history, every topic, `validate`, and the refusals of a bad configuration."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conformance.config import write_properties
from tests.support.connector_process import run_cli
from tests.integration.security.conftest import serve
from tests.integration.service.support import metrics_port, new_prefix, scrape, start_connector
from tests.support.connector_config import connector_properties
from tests.support.kafka_dump import consume_all

pytestmark = pytest.mark.timeout(300)

DB_PW = "canary-db-pw-5b1e"
JAAS_PW = "canary-jaas-pw-c42d"
CANARIES = (DB_PW, JAAS_PW, "canary-store-pw-7f3a")


def cli(*args: str) -> subprocess.CompletedProcess:
    return run_cli(*args)


def assert_clean(where: str, text: str) -> None:
    for canary in CANARIES:
        assert canary not in text, f"{canary!r} leaked into {where}"


def test_no_secret_reaches_any_output(tls_server, pki, broker, tmp_path: Path):
    if pki.jks_truststore is None:
        pytest.skip("no keytool on PATH to write a JKS truststore")
    serve(tls_server, pki, "good")
    tls_server.run_sql(f"CREATE USER 'canary'@'127.0.0.1' IDENTIFIED BY '{DB_PW}';"
                       "GRANT SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE, REPLICATION CLIENT ON *.* "
                       "TO 'canary'@'127.0.0.1';")
    prefix = new_prefix("canary")
    topics = [f"{prefix}.tls.t", prefix]
    broker.create_topics(topics)
    port = metrics_port()
    props = connector_properties(tmp_path, tls_server, broker, "tls", prefix,
                                 database_ssl_mode="verify_identity", metrics_port=str(port),
                                 metrics_host="127.0.0.1",
                                 **{"database_ssl_truststore": str(pki.jks_truststore),
                                    "database_ssl_truststore.password": pki.store_password})
    props["debezium.source.database.user"] = "canary"
    props["debezium.source.database.password"] = DB_PW
    # A SASL login that a plaintext listener never uses: it must still be translated and never shown.
    props["debezium.sink.kafka.producer.sasl.jaas.config"] = (
        f'org.apache.kafka.common.security.plain.PlainLoginModule required username="app" password="{JAAS_PW}";')
    config = tmp_path / "application.properties"
    write_properties(config, props)

    report = cli("validate", str(config))
    assert report.returncode == 0, report.stderr
    assert_clean("validate", report.stdout + report.stderr)

    proc = start_connector(tmp_path, config, timeout=120)
    try:
        tls_server.run_sql("INSERT INTO tls.t VALUES (300, 'canary row'); ALTER TABLE tls.t ADD COLUMN c INT;")
        proc.wait_caught_up(tls_server.binlog_position(), quiet_ms=300, timeout=120)
        status, metrics = scrape(port)
        assert status == 200
        assert_clean("metrics", metrics)
        assert_clean("health", scrape(port, "/health")[1])
    finally:
        assert proc.stop() == 0, proc.log_tail()
    assert_clean("status file", proc.status_file.read_text())
    assert_clean("connector log", (tmp_path / "connector.log").read_text(errors="replace"))
    assert_clean("offsets file", (tmp_path / "offsets.dat").read_bytes().decode("latin-1"))
    assert_clean("schema history", (tmp_path / "history.jsonl").read_text())
    shown = cli("offsets", "show", str(config))
    assert shown.returncode == 0, shown.stderr
    assert_clean("offsets show", shown.stdout + shown.stderr)
    records = consume_all(broker.bootstrap_servers, {t: 1 for t in topics})
    assert records
    for r in records:
        assert_clean(f"topic {r.topic}", repr((r.key, r.value, r.headers)))

    # Error paths: a refused certificate, a wrong store password, a foreign login module.
    errors = []
    props["debezium.source.database.ssl.truststore"] = str(pki.dir / "truststore.p12")
    props["debezium.source.database.ssl.truststore.password"] = "canary-store-pw-7f3a-wrong"
    write_properties(config, props)
    errors.append(cli("run", str(config)))
    props["debezium.source.database.ssl.truststore.password"] = pki.store_password
    props["debezium.sink.kafka.producer.sasl.jaas.config"] = (
        f'com.example.Login required username="app" password="{JAAS_PW}";')
    write_properties(config, props)
    errors += [cli("validate", str(config)), cli("run", str(config))]
    for result in errors:
        assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
        assert_clean("error output", result.stdout + result.stderr)
    assert "sasl.jaas.config" in errors[-1].stderr
