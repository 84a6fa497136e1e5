"""spark_sink's registry client against a real HTTPS registry (tests/support/schema_registry.py):
basic auth from the URL or ``basic.auth.user.info``, a PEM truststore, a client certificate, the
host name check, and options it does not implement refused by name. No Spark needed."""

from __future__ import annotations

import pytest

from spark_sink.registry import HttpSchemaRegistry, RegistryConfig
from tests.support.certs import TestPki
from tests.support.schema_registry import SchemaRegistryServer

SCHEMA = '{"type":"record","name":"r","fields":[{"name":"id","type":"int"}]}'
TLS = "schema.registry.ssl."


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> TestPki:
    return TestPki.create(tmp_path_factory.mktemp("spark-registry-pki"), java_stores=False)


def _registered(server: SchemaRegistryServer) -> int:
    status, reply = server.state.register("t-value", SCHEMA)
    assert status == 200
    return reply["id"]


def test_basic_auth_from_url_or_user_info() -> None:
    with SchemaRegistryServer(basic_auth="ann:s3cret") as server:
        schema_id = _registered(server)
        host = server.url.removeprefix("http://")
        assert HttpSchemaRegistry.at(f"http://ann:s3cret@{host}").schema(schema_id) == SCHEMA
        user_info = HttpSchemaRegistry.from_options({"schema.registry.url": server.url,
                                                     "basic.auth.credentials.source": "USER_INFO",
                                                     "basic.auth.user.info": "ann:s3cret"})
        assert user_info.schema(schema_id) == SCHEMA
        with pytest.raises(PermissionError, match="basic.auth.user.info"):
            HttpSchemaRegistry.at(server.url).schema(schema_id)
        with pytest.raises(LookupError, match="no schema id 99"):
            user_info.schema(99)


def test_tls_truststore_client_certificate_and_host_check(pki, tmp_path) -> None:
    identity = tmp_path / "client-identity.pem"  # Confluent's PEM keystore: certificate and key in one file
    identity.write_bytes((pki.dir / "client.pem").read_bytes() + (pki.dir / "client-key.pem").read_bytes())
    cert, key = pki.server_pem("good")
    with SchemaRegistryServer(tls=(str(cert), str(key)), client_ca=str(pki.ca)) as server:
        schema_id = _registered(server)
        options = {"schema.registry.url": server.url, TLS + "truststore.location": str(pki.ca),
                   TLS + "keystore.location": str(identity)}
        assert HttpSchemaRegistry.from_options(options).schema(schema_id) == SCHEMA
        no_identity = {k: v for k, v in options.items() if "keystore" not in k}
        with pytest.raises(ConnectionError, match="unavailable"):  # the registry requires a client certificate
            HttpSchemaRegistry.from_options(no_identity).schema(schema_id)
    cert, key = pki.server_pem("wronghost")
    with SchemaRegistryServer(tls=(str(cert), str(key))) as server:
        schema_id = _registered(server)
        options = {"schema.registry.url": server.url, TLS + "truststore.location": str(pki.ca)}
        with pytest.raises(ConnectionError, match="certificate"):
            HttpSchemaRegistry.from_options(options).schema(schema_id)
        unchecked = {**options, TLS + "endpoint.identification.algorithm": ""}
        assert HttpSchemaRegistry.from_options(unchecked).schema(schema_id) == SCHEMA


@pytest.mark.parametrize("options, refusal", [
    ({}, "schema.registry.url is required"),
    ({"schema.registry.url": "http://r", "bearer.auth.token": "x"}, "bearer.auth.token: not a schema registry"),
    ({"schema.registry.url": "http://r", TLS + "truststore.location": "t.jks", TLS + "truststore.type": "JKS"},
     "only PEM files"),
    ({"schema.registry.url": "http://r", "basic.auth.credentials.source": "SASL_INHERIT"}, "only URL and USER_INFO"),
    ({"schema.registry.url": "http://r", "basic.auth.credentials.source": "USER_INFO"}, "needs basic.auth.user.info"),
])
def test_options_not_implemented_are_refused_by_name(options, refusal) -> None:
    with pytest.raises(ValueError, match=refusal):
        RegistryConfig.parse(options)


def test_secrets_stay_out_of_repr() -> None:
    config = RegistryConfig.parse({"schema.registry.url": "https://ann:s3cret@r:8081/"})
    assert config.urls == ("https://r:8081",) and config.basic_auth == "ann:s3cret"
    assert "s3cret" not in repr(config) and "s3cret" not in repr(HttpSchemaRegistry(config))
