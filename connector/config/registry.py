"""The Schema Registry client's settings, as Confluent's AvroConverter reads them from its converter properties.

Debezium Server passes `debezium.format.<side>.<name>` (and the shared `debezium.format.<name>`) to the
converter; Kafka Connect passes `<side>.converter.<name>`. Both arrive here as `<side>.<name>` / `<name>`.
What the converter would do with a name is either done here or refused by name, as is a name the side's
converter does not have (a misspelt option must not be ignored in silence).

Authentication is Confluent's: `basic.auth.credentials.source=URL` (the default) takes `user:password`
from the registry URL, `USER_INFO` from `basic.auth.user.info`. TLS: `schema.registry.ssl.truststore.*`
(JKS, PKCS#12 or PEM), `schema.registry.ssl.keystore.*` for a client certificate, and
`schema.registry.ssl.endpoint.identification.algorithm` (`https`, the default, checks the host name;
empty turns that check off, as in Java).
"""

from __future__ import annotations

import functools
import ssl
import urllib.parse
from dataclasses import dataclass

from connector.config.keystores import KeystoreError, read_identity, read_trusted_certs
from connector.config.secret import Secret
from connector.config.tls_context import client_context

__all__ = ["RegistryAccess", "format_option_problems", "registry_access", "without_userinfo"]

_SSL = "schema.registry.ssl."
_ACCESS_NAMES = (
    "basic.auth.credentials.source", "basic.auth.user.info", "schema.registry.basic.auth.user.info",
    _SSL + "truststore.location", _SSL + "truststore.password", _SSL + "truststore.type",
    _SSL + "keystore.location", _SSL + "keystore.password", _SSL + "keystore.type", _SSL + "key.password",
    _SSL + "endpoint.identification.algorithm",
)
# AvroConverter options whose default is what binlog-cdc does: accepted with that value, refused otherwise.
_DEFAULTS_ONLY = {
    "auto.register.schemas": "true",
    "use.latest.version": "false",
    "key.subject.name.strategy": "io.confluent.kafka.serializers.subject.TopicNameStrategy",
    "value.subject.name.strategy": "io.confluent.kafka.serializers.subject.TopicNameStrategy",
    "normalize.schemas": "false",
    "schemas.cache.config": None,  # a cache size: any value is fine, the cache here is unbounded per run
}
# ProtobufConverter's own options. Those that shape the schema or the registration are accepted with the value
# binlog-cdc implements (7.0.16's defaults); the rest act only when reading records back (toConnectData) or on
# schema references, which never occur with skip.known.types=true (the only imports are well-known files).
_PROTOBUF_DEFAULTS_ONLY = {
    **_DEFAULTS_ONLY,
    "skip.known.types": "true",
    "optional.for.nullables": "false",
    "wrapper.for.nullables": "false",
    "scrub.invalid.names": "false",
    "reference.lookup.only": None,
    "reference.subject.name.strategy": None,
    "enhanced.protobuf.schema.support": None,
    "optional.for.proto2": None,
    "wrapper.for.raw.primitives": None,
}
_REFUSED_PREFIXES = ("bearer.auth.", "schema.registry.ssl.", "basic.auth.", "schema.registry.basic.auth.")


@dataclass(frozen=True, repr=False)
class RegistryAccess:
    """How to reach one side's registry: credentials and TLS. Never printed with its secrets."""

    basic_auth: Secret | None = None  # "user:password"
    truststore: str | None = None
    truststore_password: Secret | None = None
    keystore: str | None = None
    keystore_password: Secret | None = None
    check_hostname: bool = True

    @functools.cached_property
    def ssl_context(self) -> ssl.SSLContext | None:
        """None: Python's defaults (system CAs, host name checked) suffice. Built once: the loader builds it to
        report unreadable stores at start, the registry client then uses the same context."""
        if self.truststore is None and self.keystore is None and self.check_hostname:
            return None
        cadata = read_trusted_certs(self.truststore, _reveal(self.truststore_password),
                                    "schema.registry.ssl.truststore.location") if self.truststore else None
        identity = read_identity(self.keystore, _reveal(self.keystore_password),
                                 "schema.registry.ssl.keystore.location") if self.keystore else None
        return client_context(True, self.check_hostname, cadata, identity)

    def __repr__(self) -> str:
        return (f"RegistryAccess(basic_auth={'set' if self.basic_auth else None}, truststore={self.truststore!r}, "
                f"keystore={self.keystore!r}, check_hostname={self.check_hostname})")


def _reveal(secret: Secret | None) -> str | None:
    return secret.reveal() if secret else None


def _get(formats: dict[str, str], side: str, name: str) -> str | None:
    return formats.get(f"{side}.{name}", formats.get(name))


def registry_access(formats: dict[str, str], side: str, url: str) -> tuple[RegistryAccess, list[str]]:
    """The access settings of `side` ("key"/"value") and every problem with them (loading the stores included,
    so that `validate` reports a wrong password before anything connects)."""
    problems: list[str] = []
    source = (_get(formats, side, "basic.auth.credentials.source") or "URL").strip().upper()
    user_info = _get(formats, side, "basic.auth.user.info") or _get(formats, side, "schema.registry.basic.auth.user.info")
    basic: str | None = None
    if source == "USER_INFO":
        if not user_info:
            problems.append(f"{side}: basic.auth.credentials.source=USER_INFO needs basic.auth.user.info=user:password")
        basic = user_info
    elif source == "URL":
        first = urllib.parse.urlsplit(url.split(",")[0].strip())
        if first.username is not None:
            basic = urllib.parse.unquote(first.username) + ":" + urllib.parse.unquote(first.password or "")
        elif user_info:
            basic = user_info  # Confluent would ignore it without USER_INFO; sending it is what the user meant
    else:
        problems.append(f"{side}: basic.auth.credentials.source={source} is not supported; use USER_INFO with "
                        f"basic.auth.user.info, or credentials in the registry URL (URL)")
    algorithm = _get(formats, side, _SSL + "endpoint.identification.algorithm")
    access = RegistryAccess(
        basic_auth=Secret(basic) if basic else None,
        truststore=_get(formats, side, _SSL + "truststore.location") or None,
        truststore_password=_secret(_get(formats, side, _SSL + "truststore.password")),
        keystore=_get(formats, side, _SSL + "keystore.location") or None,
        keystore_password=_secret(_get(formats, side, _SSL + "keystore.password")),
        check_hostname=(algorithm if algorithm is not None else "https").strip().lower() == "https",
    )
    key_password = _get(formats, side, _SSL + "key.password")
    if key_password and key_password != _get(formats, side, _SSL + "keystore.password"):
        problems.append(f"{side}: schema.registry.ssl.key.password differs from schema.registry.ssl.keystore.password; "
                        f"give the key the store's password (keytool -keypasswd)")
    try:
        _ = access.ssl_context  # reads the stores now: a wrong password is a start-up problem
    except (KeystoreError, ssl.SSLError, OSError) as exc:
        problems.append(f"{side}: {exc}")
    return access, problems


def _secret(value: str | None) -> Secret | None:
    return Secret(value) if value else None


def format_option_problems(formats: dict[str, str], side_formats: dict[str, str], connect: bool) -> list[str]:
    """One refusal per converter option binlog-cdc does not act on as asked (issue 16: never accepted and ignored).

    `formats` holds `<side>.<name>` and shared `<name>` options; `side_formats` the format of each side
    ("json", "avro", "simple", "cloudevents"). A shared option reaches the key and the value converter, as in
    Debezium Server: it is fine when one of them implements it and neither is asked for something it does not do.
    """
    refused: list[str] = []
    for key, value in sorted(formats.items()):
        if key in side_formats:
            continue
        side, _, name = key.partition(".")
        targets = [side] if side in side_formats else ["key", "value"]
        if side not in side_formats:
            name = key
        spelled = _spelled(key, side if side in side_formats else None, name, connect)
        verdicts = [_verdict(side_formats[t], t, name, value) for t in targets]
        problems = [v for v in verdicts if v not in (_OK, _UNKNOWN)]
        if problems:
            why = problems[0]
            refused.append(f"converter property {spelled} {why}" if why.startswith("is ")
                           else f"converter property {spelled}={value}: {why}")
        elif _OK not in verdicts:
            used = " and ".join(f"the {t} as {_DESCRIBED.get(side_formats[t], side_formats[t])}" for t in targets)
            offered = "; ".join(_IMPLEMENTED.get(f, "") for f in dict.fromkeys(side_formats[t] for t in targets))
            refused.append(f"converter property {spelled} is not implemented by binlog-cdc (it writes {used}; "
                           f"{offered}); remove it")
    return refused


_OK, _UNKNOWN = "ok", "unknown"
_DESCRIBED = {"json": "JSON (JsonConverter)", "avro": "Avro (Confluent AvroConverter)",
             "protobuf": "Protobuf (Confluent ProtobufConverter)",
              "simple": "strings (SimpleHeaderConverter)", "cloudevents": "CloudEvents",
              "string": "the record's toString (StringConverter)"}
_IMPLEMENTED = {
    "json": "JsonConverter options implemented: schemas.enable, schemas.cache.size, decimal.format=BASE64, "
            "replace.null.with.default=true",
    "avro": "AvroConverter options implemented: schema.registry.url, basic.auth.*, schema.registry.ssl.*, "
            + ", ".join(f"{k}={v}" if v else k for k, v in _DEFAULTS_ONLY.items()),
    "protobuf": "ProtobufConverter options implemented: schema.registry.url, basic.auth.*, schema.registry.ssl.*, "
                + ", ".join(f"{k}={v}" if v else k for k, v in _PROTOBUF_DEFAULTS_ONLY.items()),
    "simple": "SimpleHeaderConverter takes no options",
    "string": "StringConverter options implemented: converter.encoding=UTF-8",
    "cloudevents": "shared options do not reach the CloudEvents converter; set debezium.format.value.<name>",
}
# Kafka's JsonConverter options whose default is the only behaviour of binlog-cdc's JSON writer (None: any value).
_JSON_FIXED = {"decimal.format": "BASE64", "replace.null.with.default": "true", "schemas.cache.size": None}


def _spelled(key: str, side: str | None, name: str, connect: bool) -> str:
    if not connect:
        return "debezium.format." + key
    return f"{side}.converter.{name}" if side else f"(key|value).converter.{name}"


def _verdict(fmt: str, side: str, name: str, value: str) -> str:
    """_OK, _UNKNOWN (this converter has no such option), or why the value cannot be honoured."""
    text = value.strip().lower()
    if fmt == "json":
        if name == "schemas.enable":
            if side == "header" and text != "true":
                return "binlog-cdc writes JSON headers with their schema; remove the property"
            return _OK
        if name in _JSON_FIXED:
            fixed = _JSON_FIXED[name]
            if fixed is not None and text != fixed.lower():
                return f"binlog-cdc's JSON converter always does {name}={fixed}; remove the property"
            return _OK
        return _UNKNOWN
    if fmt == "string":
        if name == "converter.encoding":
            return _OK if text.replace("-", "") == "utf8" else ("binlog-cdc's StringConverter writes UTF-8; "
                                                                 "remove the property")
        return _UNKNOWN
    if fmt in ("avro", "protobuf"):
        if name == "schema.registry.url" or name in _ACCESS_NAMES:  # read by the loaders / registry_access
            return _OK
        defaults = _DEFAULTS_ONLY if fmt == "avro" else _PROTOBUF_DEFAULTS_ONLY
        if name in defaults:
            default = defaults[name]
            if default is not None and text != default.lower():
                return (f"binlog-cdc's {'Avro' if fmt == 'avro' else 'Protobuf'} converter always does "
                        f"{name}={default}; remove the property")
            return _OK
        if name.startswith(_REFUSED_PREFIXES):
            return ("is not supported by binlog-cdc's Schema Registry client (supported: basic auth from the URL or "
                    "basic.auth.user.info, and schema.registry.ssl.truststore.*/keystore.*/key.password/"
                    "endpoint.identification.algorithm); remove it or use one of those")
    return _UNKNOWN


def without_userinfo(urls: str) -> str:
    """`http://user:pw@host:8081` → `http://host:8081`, for each URL of a comma-separated list: the
    credentials travel in RegistryAccess (a header), never in a URL that could be logged."""
    out = []
    for url in urls.split(","):
        parts = urllib.parse.urlsplit(url.strip())
        if parts.username is not None or parts.password is not None:
            url = urllib.parse.urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))
        out.append(url.strip())
    return ",".join(out)
