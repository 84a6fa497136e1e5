"""TLS and basic auth to the Schema Registry (issue 19 item 2), with AvroConverter's property names.

A real HTTPS registry (tests/support/schema_registry.py) serves certificates made by the test's PKI: trusted
through PEM, PKCS#12 and JKS truststores, refused when signed by another CA or made for another host (unless
`schema.registry.ssl.endpoint.identification.algorithm` is empty), with a client certificate required, and
with basic auth from `basic.auth.user.info` or from the URL. The last test runs the CLI end to end.
"""
from __future__ import annotations

import struct
from pathlib import Path

import pytest

from connector.config.loaders import load_config
from connector.errors import ConfigError, SchemaRegistryError, SchemaRegistryUnavailable
from connector.serde.schema_registry import SchemaRegistryClient
from tests.conformance.config import write_properties
from tests.integration.service.support import new_prefix, start_connector
from tests.support.certs import TestPki
from tests.support.connector_config import connector_properties
from tests.support.kafka_dump import consume_all
from tests.support.schema_registry import SchemaRegistryServer

pytestmark = pytest.mark.timeout(300)

SCHEMA = '{"type":"record","name":"r","fields":[{"name":"id","type":"int"}]}'
BASE = ("debezium.sink.type=kafka\ndebezium.sink.kafka.producer.bootstrap.servers=127.0.0.1:9092\n"
        "debezium.source.topic.prefix=p\ndebezium.source.database.hostname=h\ndebezium.source.database.user=u\n"
        "debezium.source.database.server.id=1\ndebezium.format.value=avro\n")


def _https(pki: TestPki, cert: str = "good", **kwargs) -> SchemaRegistryServer:
    cert_pem, key_pem = pki.server_pem(cert)
    return SchemaRegistryServer(tls=(str(cert_pem), str(key_pem)), **kwargs)


def _kafka(tmp_path: Path, url: str, **formats: str):
    path = tmp_path / "application.properties"
    path.write_text(BASE + f"debezium.format.value.schema.registry.url={url}\n"
                    + "".join(f"debezium.format.value.{k}={v}\n" for k, v in formats.items()))
    return load_config(path, environ={})


def _client(tmp_path: Path, url: str, **formats: str) -> SchemaRegistryClient:
    kafka = _kafka(tmp_path, url, **formats).kafka
    return SchemaRegistryClient.from_config(kafka.value_schema_registry_url, kafka.value_registry_access)


@pytest.mark.parametrize("store", ["pem", "pkcs12", "jks"])
def test_truststore_of_every_kind_trusts_the_registry(pki, tmp_path, store):
    trust = {"pem": (pki.ca, ""), "pkcs12": (pki.dir / "truststore.p12", pki.store_password),
             "jks": (pki.jks_truststore, pki.store_password)}[store]
    if trust[0] is None:
        pytest.skip("no keytool on PATH to write a JKS truststore")
    opts = {"schema.registry.ssl.truststore.location": str(trust[0])}
    if trust[1]:
        opts["schema.registry.ssl.truststore.password"] = trust[1]
    with _https(pki) as registry:
        assert _client(tmp_path, registry.url, **opts).register("t-value", SCHEMA) == 1
        assert registry.subjects() == {"t-value": [(1, SCHEMA)]}


def test_untrusted_ca_and_wrong_host_are_refused_with_the_fix(pki, tmp_path):
    with _https(pki) as registry:
        client = _client(tmp_path, registry.url, **{"schema.registry.ssl.truststore.location": str(pki.other_ca)})
        with pytest.raises(SchemaRegistryError, match="not trusted.*schema.registry.ssl.truststore.location"):
            client.register("t-value", SCHEMA)
        assert registry.subjects() == {}
    with _https(pki, "wronghost") as registry:
        trust = {"schema.registry.ssl.truststore.location": str(pki.ca)}
        with pytest.raises(SchemaRegistryError, match="endpoint.identification.algorithm"):
            _client(tmp_path, registry.url, **trust).register("t-value", SCHEMA)
        # Java's way to turn the host name check off: an empty algorithm (the chain is still checked)
        relaxed = _client(tmp_path, registry.url, **trust, **{"schema.registry.ssl.endpoint.identification.algorithm": ""})
        assert relaxed.register("t-value", SCHEMA) == 1


def test_client_certificate_from_a_keystore(pki, tmp_path):
    with _https(pki, client_ca=str(pki.ca)) as registry:
        trust = {"schema.registry.ssl.truststore.location": str(pki.ca)}
        with pytest.raises(SchemaRegistryUnavailable, match="schema.registry.ssl.keystore.location"):
            _client(tmp_path, registry.url, **trust).register("t-value", SCHEMA)
        with_cert = _client(tmp_path, registry.url, **trust, **{
            "schema.registry.ssl.keystore.location": str(pki.dir / "client.p12"),
            "schema.registry.ssl.keystore.password": pki.store_password})
        assert with_cert.register("t-value", SCHEMA) == 1


def test_basic_auth_from_user_info_or_url(tmp_path):
    with SchemaRegistryServer(basic_auth="app:s3cret") as registry:
        with pytest.raises(SchemaRegistryError, match="denied access.*credentials"):
            _client(tmp_path, registry.url).register("t-value", SCHEMA)
        user_info = _client(tmp_path, registry.url, **{"basic.auth.credentials.source": "USER_INFO",
                                                       "basic.auth.user.info": "app:s3cret"})
        assert user_info.register("a-value", SCHEMA) == 1
        in_url = registry.url.replace("http://", "http://app:s3cret@")
        assert _client(tmp_path, in_url).register("b-value", SCHEMA) == 1
        with pytest.raises(SchemaRegistryError, match="HTTP 401"):
            _client(tmp_path, registry.url.replace("http://", "http://app:wrong@")).register("c-value", SCHEMA)


def test_bad_settings_are_refused_before_anything_connects(pki, tmp_path):
    with pytest.raises(ConfigError, match="truststore.location .*password is wrong"):
        _kafka(tmp_path, "https://r:8081", **{"schema.registry.ssl.truststore.location": str(pki.dir / "truststore.p12"),
                                              "schema.registry.ssl.truststore.password": "nope"})
    with pytest.raises(ConfigError, match="bearer.auth.credentials.source is not supported"):
        _kafka(tmp_path, "https://r:8081", **{"bearer.auth.credentials.source": "STATIC_TOKEN"})
    with pytest.raises(ConfigError, match="USER_INFO needs basic.auth.user.info"):
        _kafka(tmp_path, "https://r:8081", **{"basic.auth.credentials.source": "USER_INFO"})
    with pytest.raises(ConfigError, match="auto.register.schemas=true"):
        _kafka(tmp_path, "https://r:8081", **{"auto.register.schemas": "false"})
    with pytest.raises(ConfigError, match="schema.registry.ssl.truststor.location is not supported"):  # misspelt
        _kafka(tmp_path, "https://r:8081", **{"schema.registry.ssl.truststor.location": "/x"})
    with pytest.raises(ConfigError, match="value.frobnicate is not implemented by binlog-cdc .*remove it"):
        _kafka(tmp_path, "https://r:8081", **{"frobnicate": "1"})


def test_connector_writes_avro_through_an_https_registry_with_auth(pki, mariadb, broker, unique_database, tmp_path):
    db = unique_database(mariadb)
    mariadb.run_sql(f"CREATE TABLE {db}.t (id INT PRIMARY KEY, v VARCHAR(10)); INSERT INTO {db}.t VALUES (1, 'a');")
    prefix = new_prefix("regtls")
    topic = f"{prefix}.{db}.t"
    broker.create_topics([topic, prefix])
    with _https(pki, client_ca=str(pki.ca), basic_auth="app:s3cret") as registry:
        props = connector_properties(tmp_path, mariadb, broker, db, prefix)
        props.update({
            "debezium.format.value": "avro",
            "debezium.format.value.schema.registry.url": registry.url,
            "debezium.format.value.basic.auth.credentials.source": "USER_INFO",
            "debezium.format.value.basic.auth.user.info": "app:s3cret",
            "debezium.format.value.schema.registry.ssl.truststore.location": str(pki.dir / "truststore.p12"),
            "debezium.format.value.schema.registry.ssl.truststore.password": pki.store_password,
            "debezium.format.value.schema.registry.ssl.keystore.location": str(pki.dir / "client.p12"),
            "debezium.format.value.schema.registry.ssl.keystore.password": pki.store_password,
        })
        config = tmp_path / "application.properties"
        write_properties(config, props)
        proc = start_connector(tmp_path, config, timeout=120)
        try:
            mariadb.run_sql(f"INSERT INTO {db}.t VALUES (2, 'b');")
            proc.wait_caught_up(mariadb.binlog_position(), quiet_ms=300, timeout=120)
        finally:
            assert proc.stop() == 0, proc.log_tail()
        subjects = registry.subjects()
    records = [r for r in consume_all(broker.bootstrap_servers, {topic: 1}) if r.value is not None]
    assert len(records) == 2
    assert f"{topic}-value" in subjects
    ids = {i for i, _ in subjects[f"{topic}-value"]}
    for r in records:
        magic, schema_id = struct.unpack(">bI", r.value[:5])
        assert magic == 0 and schema_id in ids
