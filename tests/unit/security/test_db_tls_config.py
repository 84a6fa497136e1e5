"""database.ssl.*: the verify modes need a CA, conflicting settings are refused, stores are read into one
TLS context per mode (no server needed: see tests/integration/security for the handshakes)."""
from __future__ import annotations

import ssl

import pytest

from connector.binlog.tls import database_tls
from connector.config.modes import SecureConnectionMode as Mode
from connector.config.secret import Secret
from connector.config.settings import DatabaseSslSettings
from connector.errors import ConfigError
from tests.support.certs import TestPki


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> TestPki:
    return TestPki.create(tmp_path_factory.mktemp("pki"), java_stores=False)


@pytest.mark.parametrize("mode", [Mode.VERIFY_CA, Mode.VERIFY_IDENTITY])
def test_verify_modes_need_a_ca(mode):
    problems = DatabaseSslSettings(mode=mode).problems()
    assert len(problems) == 1 and "database.ssl.truststore" in problems[0] and "database.ssl.ca" in problems[0]


def test_store_and_pem_alternatives_exclude_each_other():
    problems = DatabaseSslSettings(truststore="t.jks", ca="ca.pem", keystore="k.p12", cert="c.pem").problems()
    assert len(problems) == 2
    assert DatabaseSslSettings(key="k.pem").problems() == ["database.ssl.key needs database.ssl.cert (the "
                                                           "certificate of that key)"]


def test_each_mode_builds_what_pymysql_needs(pki):
    assert database_tls(DatabaseSslSettings(Mode.DISABLED)).pymysql_kwargs() == {"ssl_disabled": True}
    assert database_tls(DatabaseSslSettings(Mode.PREFERRED)).pymysql_kwargs() == {}
    required = database_tls(DatabaseSslSettings(Mode.REQUIRED, ca=str(pki.ca))).pymysql_kwargs()["ssl"]
    assert required.verify_mode == ssl.CERT_NONE and not required.check_hostname
    verify_ca = database_tls(DatabaseSslSettings(Mode.VERIFY_CA, ca=str(pki.ca))).pymysql_kwargs()["ssl"]
    assert verify_ca.verify_mode == ssl.CERT_REQUIRED and not verify_ca.check_hostname
    identity = database_tls(DatabaseSslSettings(
        Mode.VERIFY_IDENTITY, truststore=str(pki.dir / "truststore.p12"), truststore_password=Secret(pki.store_password),
        keystore=str(pki.dir / "client.p12"), keystore_password=Secret(pki.store_password))).pymysql_kwargs()["ssl"]
    assert identity.verify_mode == ssl.CERT_REQUIRED and identity.check_hostname
    assert len(identity.get_ca_certs()) == 1


def test_unreadable_stores_are_config_errors_without_passwords(pki, tmp_path):
    with pytest.raises(ConfigError) as caught:
        database_tls(DatabaseSslSettings(
            Mode.VERIFY_CA, truststore=str(pki.dir / "truststore.p12"), truststore_password=Secret("canary-x"),
            keystore=str(tmp_path / "missing.p12"), keystore_password=Secret("canary-y")))
    assert len(caught.value.problems) == 2
    assert "database.ssl.truststore" in str(caught.value) and "database.ssl.keystore" in str(caught.value)
    assert "canary" not in str(caught.value)
