"""Kafka client security as Debezium Server users write it (Java client names) turned into librdkafka's.

    security.protocol                      PLAINTEXT | SSL | SASL_PLAINTEXT | SASL_SSL (same name)
    sasl.mechanism                         PLAIN | SCRAM-SHA-256 | SCRAM-SHA-512 -> sasl.mechanisms
    sasl.jaas.config                       PlainLoginModule / ScramLoginModule -> sasl.username + sasl.password
    ssl.truststore.location/.password/.type  JKS, JCEKS, PKCS12 or PEM -> ssl.ca.pem (read here, at start)
    ssl.keystore.location/.password/.type    JKS, JCEKS, PKCS12 -> ssl.certificate.pem + ssl.key.pem
    ssl.endpoint.identification.algorithm  "" (Java's "off") -> none

Every problem is returned at once, so `binlog-cdc validate` can list them before anything connects.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Mapping

from connector.config.keystores import KeystoreError, read_identity, read_trusted_certs

__all__ = ["SecurityTranslation", "translate_security", "SECURITY_KEYS"]

_PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
_MECHANISM_MODULES = {"PLAIN": "plain.PlainLoginModule", "SCRAM-SHA-256": "scram.ScramLoginModule",
                      "SCRAM-SHA-512": "scram.ScramLoginModule"}
_JAAS = re.compile(
    r"^\s*org\.apache\.kafka\.common\.security\.(?P<module>plain\.PlainLoginModule|scram\.ScramLoginModule)"
    r"\s+required(?P<opts>(\s+\w+\s*=\s*\"[^\"]*\")*)\s*;?\s*$"
)
_JAAS_OPTION = re.compile(r"(\w+)\s*=\s*\"([^\"]*)\"")
_STORE_TYPES = ("JKS", "JCEKS", "PKCS12", "PEM")

# The Java properties handled here; everything else passes through build_producer_config's tables.
SECURITY_KEYS = frozenset({
    "security.protocol", "sasl.mechanism", "sasl.jaas.config", "ssl.truststore.location", "ssl.truststore.password",
    "ssl.truststore.type", "ssl.keystore.location", "ssl.keystore.password", "ssl.keystore.type",
    "ssl.endpoint.identification.algorithm",
})


@dataclass
class SecurityTranslation:
    config: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def _jaas(value: str, mechanism: str, out: SecurityTranslation) -> None:
    match = _JAAS.match(value)
    if not match:
        # The value holds a password: name the property, never echo it.
        out.problems.append("sasl.jaas.config: only org.apache.kafka.common.security.plain.PlainLoginModule or "
                            "scram.ScramLoginModule with username=\"...\" password=\"...\" can be used here")
        return
    options = dict(_JAAS_OPTION.findall(match.group("opts")))
    if set(options) != {"username", "password"}:
        out.problems.append("sasl.jaas.config: expected exactly username=\"...\" password=\"...\"")
        return
    expected = _MECHANISM_MODULES.get(mechanism)
    if expected is not None and expected != match.group("module"):
        out.problems.append(f"sasl.jaas.config uses {match.group('module')} but sasl.mechanism={mechanism} needs "
                            f"{expected}")
        return
    out.config.update({"sasl.username": options["username"], "sasl.password": options["password"]})


def translate_security(props: Mapping[str, str], prefix: str = "") -> SecurityTranslation:
    """librdkafka properties for the security keys of `props`; `prefix` is how problems name them."""
    out = SecurityTranslation()
    protocol = props.get("security.protocol", "PLAINTEXT").strip().upper()
    # Java's and librdkafka's default is GSSAPI; only the Java spelling is checked (librdkafka's passes through).
    mechanism = props.get("sasl.mechanism", "GSSAPI").strip().upper()
    if "security.protocol" in props:
        if protocol not in _PROTOCOLS:
            out.problems.append(f"{prefix}security.protocol={props['security.protocol']!r}: use one of "
                                f"{', '.join(_PROTOCOLS)}")
        out.config["security.protocol"] = protocol
    if "sasl.mechanism" in props:
        if mechanism not in _MECHANISM_MODULES:
            out.problems.append(f"{prefix}sasl.mechanism={mechanism}: only PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 "
                                f"are supported")
        elif protocol.startswith("SASL") and "sasl.jaas.config" not in props and "sasl.username" not in props:
            out.problems.append(f"{prefix}sasl.mechanism={mechanism} needs credentials: set sasl.jaas.config")
        out.config["sasl.mechanisms"] = mechanism
    if "sasl.jaas.config" in props:
        sub = SecurityTranslation()
        _jaas(props["sasl.jaas.config"], mechanism, sub)
        out.config.update(sub.config)
        out.problems += [prefix + p for p in sub.problems]
    _stores(props, prefix, out)
    if "ssl.endpoint.identification.algorithm" in props:
        algorithm = props["ssl.endpoint.identification.algorithm"].strip().lower()
        out.config["ssl.endpoint.identification.algorithm"] = algorithm or "none"
    return out


def _stores(props: Mapping[str, str], prefix: str, out: SecurityTranslation) -> None:
    for kind in ("truststore", "keystore"):
        store_type = props.get(f"ssl.{kind}.type", "").strip().upper()
        if store_type and store_type not in _STORE_TYPES:
            out.problems.append(f"{prefix}ssl.{kind}.type={store_type}: use JKS, JCEKS, PKCS12 or PEM")
    trust = props.get("ssl.truststore.location")
    if trust:
        try:
            out.config["ssl.ca.pem"] = read_trusted_certs(trust, props.get("ssl.truststore.password"),
                                                          f"{prefix}ssl.truststore.location")
        except KeystoreError as exc:
            out.problems.append(str(exc))
    keystore = props.get("ssl.keystore.location")
    if keystore:
        password = props.get("ssl.keystore.password")
        try:
            identity = read_identity(keystore, password, f"{prefix}ssl.keystore.location")
        except KeystoreError as exc:
            out.problems.append(str(exc))
        else:
            out.config.update({"ssl.certificate.pem": identity.cert_chain_pem, "ssl.key.pem": identity.key_pem})
