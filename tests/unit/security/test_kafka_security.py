"""Kafka client security in Debezium Server's (Java) spelling becomes librdkafka's, or is refused by name
with every problem at once; passwords never appear in a problem."""
from __future__ import annotations

import pytest

from connector.kafka.producer_config import build_producer_config, producer_config_problems
from tests.support.certs import TestPki

PLAIN = 'org.apache.kafka.common.security.plain.PlainLoginModule required username="app" password="canary-pw-1";'
SCRAM = 'org.apache.kafka.common.security.scram.ScramLoginModule required username="app" password="canary-pw-1";'


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> TestPki:
    return TestPki.create(tmp_path_factory.mktemp("pki"), java_stores=False)


def test_sasl_plain_and_scram_map_to_librdkafka():
    for mechanism, jaas in (("PLAIN", PLAIN), ("SCRAM-SHA-256", SCRAM), ("SCRAM-SHA-512", SCRAM)):
        config = build_producer_config({"bootstrap.servers": "b:9093", "security.protocol": "sasl_ssl",
                                        "sasl.mechanism": mechanism, "sasl.jaas.config": jaas})
        assert (config["security.protocol"], config["sasl.mechanisms"]) == ("SASL_SSL", mechanism)
        assert (config["sasl.username"], config["sasl.password"]) == ("app", "canary-pw-1")
        assert "sasl.jaas.config" not in config


def test_pkcs12_and_pem_stores_become_pem(pki):
    config = build_producer_config({
        "bootstrap.servers": "b:9093", "security.protocol": "SSL",
        "ssl.truststore.location": str(pki.dir / "truststore.p12"), "ssl.truststore.password": pki.store_password,
        "ssl.keystore.location": str(pki.dir / "client.p12"), "ssl.keystore.password": pki.store_password,
        "ssl.endpoint.identification.algorithm": ""})
    assert config["ssl.ca.pem"] == pki.ca.read_text()
    assert config["ssl.certificate.pem"].startswith("-----BEGIN CERTIFICATE")
    assert "PRIVATE KEY" in config["ssl.key.pem"]
    assert config["ssl.endpoint.identification.algorithm"] == "none"
    assert not any(k.startswith(("ssl.truststore", "ssl.keystore")) for k in config)
    pem_trust = build_producer_config({"bootstrap.servers": "b:9093", "ssl.truststore.location": str(pki.ca),
                                       "ssl.truststore.type": "PEM"})
    assert pem_trust["ssl.ca.pem"] == pki.ca.read_text()


def test_every_bad_setting_is_reported_together_without_secrets(pki):
    problems = producer_config_problems({
        "bootstrap.servers": "b:9093",
        "security.protocol": "SASL_TLS",
        "sasl.mechanism": "SCRAM-SHA-256",
        "sasl.jaas.config": PLAIN,  # the other login module
        "ssl.truststore.location": str(pki.dir / "truststore.p12"),
        "ssl.truststore.password": "canary-wrong-pw",
        "ssl.keystore.location": str(pki.dir / "missing.jks"),
        "ssl.keystore.type": "BKS",
    })
    text = "\n".join(problems)
    for expected in ("security.protocol='SASL_TLS'", "PlainLoginModule but sasl.mechanism=SCRAM-SHA-256",
                     "ssl.truststore.location", "ssl.keystore.location", "ssl.keystore.type=BKS"):
        assert expected in text, text
    assert len(problems) == 5, text
    assert "canary" not in text


def test_a_foreign_login_module_is_refused_by_name():
    problems = producer_config_problems({
        "bootstrap.servers": "b:9093", "security.protocol": "SASL_SSL", "sasl.mechanism": "PLAIN",
        "sasl.jaas.config": 'com.example.Login required username="u" password="canary-pw-2";'})
    assert len(problems) == 1 and "sasl.jaas.config" in problems[0] and "canary" not in problems[0]
