"""`database.ssl.mode` against MariaDB 10.11 and MySQL 9 started with certificates made here and
`require_secure_transport=ON`: every mode accepts what it must and refuses what it must, for the control
connection (`binlog-cdc validate`), the binlog stream (BinlogReader with the connector's params) and a whole
`binlog-cdc run` (snapshot + streaming). The served certificate is swapped at run time (FLUSH SSL / ALTER
INSTANCE RELOAD TLS) to test a certificate for another host."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from connector.offsets.position import BinlogPosition
from connector.binlog.reader import BinlogReader
from connector.config.loaders import load_config
from connector.daemon import connection_params
from connector.errors import ServerSetupError
from tests.conformance.config import write_properties
from tests.support.connector_process import run_cli
from tests.integration.service.support import new_prefix, start_connector
from tests.support.certs import TestPki
from tests.support.connector_config import connector_properties
from tests.support.kafka_dump import consume_all
from tests.integration.security.conftest import NoBroker, serve
from tests.support.servers import DatabaseServer, MariaDBServer
from connector.transforms.config import transform_settings

pytestmark = pytest.mark.timeout(300)


def write_config(tmp_path: Path, server: DatabaseServer, broker=None, **ssl: str) -> Path:
    props = connector_properties(tmp_path, server, broker or NoBroker(), "tls", new_prefix("tls"),
                                 **{f"database_ssl_{k}": v for k, v in ssl.items()})
    path = tmp_path / "application.properties"
    write_properties(path, props)
    return path


def validate(config: Path) -> subprocess.CompletedProcess:
    return run_cli("validate", str(config))


def assert_refused(result: subprocess.CompletedProcess, *needles: str) -> None:
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    lines = [line for line in result.stderr.splitlines() if "ERROR" in line]
    assert len(lines) == 1, result.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


# (served certificate, mode, CA given, accepted?)
CASES = [
    ("good", "disabled", None, False),
    ("good", "preferred", None, True),
    ("good", "required", None, True),
    ("good", "required", "other", True),       # required never checks the certificate
    ("good", "verify_ca", "ca", True),
    ("good", "verify_ca", "other", False),
    ("good", "verify_identity", "ca", True),
    ("good", "verify_identity", "other", False),
    ("wronghost", "verify_ca", "ca", True),    # verify_ca does not check the host
    ("wronghost", "verify_identity", "ca", False),
    ("wronghost", "required", None, True),
]


def _ssl_props(pki: TestPki, mode: str, ca: str | None) -> dict[str, str]:
    props = {"mode": mode}
    if ca is not None:
        props["ca"] = str(pki.ca if ca == "ca" else pki.other_ca)
    return props


def test_modes_on_the_control_and_binlog_connections(tls_server, pki, tmp_path):
    for served, mode, ca, accepted in CASES:
        serve(tls_server, pki, served)
        config = write_config(tmp_path, tls_server, **_ssl_props(pki, mode, ca))
        result = validate(config)
        case = f"{served} cert, mode={mode}, ca={ca}"
        if accepted:
            assert result.returncode == 0, f"{case}: {result.stdout}{result.stderr}"
        else:
            assert_refused(result, f"database.ssl.mode={mode}", f"127.0.0.1:{tls_server.port}")
        # The binlog stream (and the library's control connection) must behave the same.
        params = connection_params(load_config(str(config)).settings(transform_settings))
        file, pos = tls_server.binlog_position()
        reader = BinlogReader(params, 9000 + CASES.index((served, mode, ca, accepted)), BinlogPosition(file, pos))
        try:
            if accepted:
                assert next(iter(reader.events())) is not None, case
            else:
                with pytest.raises(ServerSetupError, match=f"database.ssl.mode={mode}"):
                    next(iter(reader.events()))
        finally:
            reader.close()
    serve(tls_server, pki, "good")


def test_java_stores_and_client_certificates(tls_server, pki, tmp_path):
    if pki.jks_truststore is None:
        pytest.skip("no keytool on PATH to write JKS stores")
    serve(tls_server, pki, "good")
    pw = pki.store_password
    ok = [
        {"mode": "verify_identity", "truststore": str(pki.jks_truststore), "truststore.password": pw},
        {"mode": "verify_identity", "truststore": str(pki.jks_truststore)},  # JKS readable without its password
        {"mode": "verify_ca", "truststore": str(pki.dir / "truststore.p12"), "truststore.password": pw},
    ]
    for ssl in ok:
        result = validate(write_config(tmp_path, tls_server, **ssl))
        assert result.returncode == 0, f"{ssl}: {result.stderr}"
    # A user that must present a client certificate (REQUIRE X509).
    x509 = {"user": "x509", "password": "x509pw"}
    for identity in ({"keystore": str(pki.jks_keystore), "keystore.password": pw},
                     {"keystore": str(pki.dir / "client.p12"), "keystore.password": pw},
                     {"cert": str(pki.dir / "client.pem"), "key": str(pki.dir / "client-key.pem")}):
        result = validate(_x509_config(tmp_path, tls_server, pki, identity, x509))
        assert result.returncode == 0, f"{identity}: {result.stderr}"
    refused = validate(_x509_config(tmp_path, tls_server, pki, {}, x509))
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    wrong_pw = validate(write_config(tmp_path, tls_server, mode="verify_ca", truststore=str(pki.jks_truststore),
                                     **{"truststore.password": "not-it"}))
    assert wrong_pw.returncode == 2 and "Traceback" not in wrong_pw.stderr, wrong_pw.stderr
    assert "database.ssl.truststore" in wrong_pw.stderr and "wrong password" in wrong_pw.stderr, wrong_pw.stderr
    assert "not-it" not in wrong_pw.stderr + wrong_pw.stdout


def _x509_config(tmp_path: Path, server: DatabaseServer, pki: TestPki, identity: dict[str, str],
                 login: dict[str, str]) -> Path:
    props = connector_properties(tmp_path, server, NoBroker(), "tls", new_prefix("tls"),
                                 database_ssl_mode="verify_ca", database_ssl_ca=str(pki.ca),
                                 **{f"database_ssl_{k}": v for k, v in identity.items()})
    props["debezium.source.database.user"] = login["user"]
    props["debezium.source.database.password"] = login["password"]
    path = tmp_path / "x509.properties"
    write_properties(path, props)
    return path


def test_verify_without_a_ca_is_refused_at_start(tmp_path):
    server = MariaDBServer(tmp_path / "never-started")  # only its address is used: nothing may connect
    for mode in ("verify_ca", "verify_identity"):
        result = validate(write_config(tmp_path, server, mode=mode))
        assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
        assert f"database.ssl.mode={mode} needs the CA" in result.stderr


def test_run_snapshots_and_streams_over_verified_tls(tls_server, pki, broker, tmp_path):
    serve(tls_server, pki, "good")
    prefix = new_prefix("tlsrun")
    topic = f"{prefix}.tls.t"
    broker.create_topics([topic, prefix])
    props = connector_properties(tmp_path, tls_server, broker, "tls", prefix,
                                 database_ssl_mode="verify_identity", database_ssl_ca=str(pki.ca))
    config = tmp_path / "application.properties"
    write_properties(config, props)
    proc = start_connector(tmp_path, config, timeout=120)
    try:
        tls_server.run_sql("INSERT INTO tls.t VALUES (100, 'streamed'); DELETE FROM tls.t WHERE id = 100;")
        proc.wait_caught_up(tls_server.binlog_position(), quiet_ms=300, timeout=120)
    finally:
        assert proc.stop() == 0, proc.log_tail()
    ops = [json.loads(r.value)["payload"]["op"] for r in consume_all(broker.bootstrap_servers, {topic: 1})
           if r.value is not None]
    assert ops[:2] == ["r", "r"] and ops[2:] == ["c", "d"], ops

    # The same run against a CA that did not sign the server's certificate: one line, exit 2, no traceback.
    props["debezium.source.database.ssl.ca"] = str(pki.other_ca)
    props["debezium.source.offset.storage.file.filename"] = str(tmp_path / "offsets-2.dat")
    write_properties(config, props)
    result = run_cli("run", str(config))
    assert_refused(result, "database.ssl.mode=verify_identity", "certificate rejected", "database.ssl.ca")


def test_plain_server_preferred_falls_back_and_required_refuses(mariadb, tmp_path):
    have_ssl = mariadb.query("SELECT @@have_ssl")[0][0]
    if have_ssl == "YES":
        pytest.skip("this MariaDB offers TLS without certificates")
    assert validate(write_config(tmp_path, mariadb, mode="preferred")).returncode == 0
    assert validate(write_config(tmp_path, mariadb, mode="disabled")).returncode == 0
    assert_refused(validate(write_config(tmp_path, mariadb, mode="required")), "database.ssl.mode=required",
                   "does not offer TLS")


def test_preferred_mode_connects_over_tls_with_one_context_and_no_ca_bundle(tls_server, pki, tmp_path):
    """PyMySQL's own preferred mode loads the system's CA bundle into a new context per connection (~120 ms of
    CPU); the connector's builds one context at start, never loads CAs (preferred checks no certificate), and
    still negotiates TLS with a server that offers it."""
    from connector.binlog.connection import connect

    serve(tls_server, pki, "good")
    params = connection_params(load_config(str(write_config(tmp_path, tls_server, mode="preferred")))
                               .settings(transform_settings))
    offered = params.tls.offered_context
    assert offered is not None and offered.cert_store_stats()["x509_ca"] == 0
    for _ in range(2):
        with connect(params) as conn, conn.cursor() as cur:
            assert conn.ctx is offered
            cur.execute("SHOW SESSION STATUS LIKE 'Ssl_cipher'")
            assert cur.fetchone()[1], "preferred mode must use the TLS the server offers"
