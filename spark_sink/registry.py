"""Confluent Schema Registry access for readers: the writer schema text for a registry id.

Options carry AvroConverter's names, so the converter's settings can be copied over:

* ``schema.registry.url``: one or more base URLs (comma-separated), tried in order;
  ``user:password@`` in a URL is the credentials when ``basic.auth.credentials.source`` is
  ``URL`` (the default), ``basic.auth.user.info`` when it is ``USER_INFO``;
* ``schema.registry.ssl.truststore.location`` (PEM CA certificates), with ``…truststore.type``
  ``PEM``; ``schema.registry.ssl.keystore.location`` (PEM: client certificate and key) with
  ``…keystore.type`` ``PEM`` and ``schema.registry.ssl.key.password`` for an encrypted key;
* ``schema.registry.ssl.endpoint.identification.algorithm``: ``https`` (default) checks the
  host name, empty turns that check off.

Any other name is refused with what to do instead (never accepted and ignored). JKS and
PKCS#12 stores are refused with the conversion to PEM: a reader runs in Spark's Python
workers, where only PEM files can be loaded without a JVM.
"""

from __future__ import annotations

import base64
import json
import ssl
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Mapping

__all__ = ["RegistryConfig", "HttpSchemaRegistry", "REGISTRY_OPTION_NAMES"]

_SSL = "schema.registry.ssl."
REGISTRY_OPTION_NAMES = (
    "schema.registry.url", "basic.auth.credentials.source", "basic.auth.user.info",
    "schema.registry.basic.auth.user.info", _SSL + "truststore.location", _SSL + "truststore.type",
    _SSL + "keystore.location", _SSL + "keystore.type", _SSL + "key.password",
    _SSL + "endpoint.identification.algorithm",
)
"""Every option name ``RegistryConfig.parse`` accepts."""
_PEM_ONLY = ("convert it to PEM (openssl pkcs12 -in store.p12 -nodes -out store.pem; "
             "keytool -importkeystore -deststoretype PKCS12 first for JKS)")


@dataclass(frozen=True, repr=False)
class RegistryConfig:
    """Where the registry is and how to reach it; never printed with its secrets."""

    urls: tuple[str, ...]
    basic_auth: str | None = None  # "user:password"
    cafile: str | None = None
    certfile: str | None = None  # PEM holding the client certificate and its key
    key_password: str | None = None
    check_hostname: bool = True
    timeout_s: float = 10.0

    @classmethod
    def parse(cls, options: Mapping[str, str]) -> "RegistryConfig":
        """From AvroConverter-named options; raises ValueError naming every problem."""
        opts = {k: v for k, v in options.items() if v is not None}
        problems = [f"{k}: not a schema registry option this reader implements (known: "
                    f"{', '.join(REGISTRY_OPTION_NAMES)})" for k in sorted(opts) if k not in REGISTRY_OPTION_NAMES]
        raw_urls = [u.strip() for u in opts.get("schema.registry.url", "").split(",") if u.strip()]
        if not raw_urls:
            problems.append("schema.registry.url is required to decode Avro")
        source = opts.get("basic.auth.credentials.source", "URL").upper()
        user_info = opts.get("basic.auth.user.info") or opts.get("schema.registry.basic.auth.user.info")
        urls, from_url = [], None
        for raw in raw_urls:
            parts = urllib.parse.urlsplit(raw)
            if parts.username is not None:
                from_url = f"{urllib.parse.unquote(parts.username)}:{urllib.parse.unquote(parts.password or '')}"
                parts = parts._replace(netloc=parts.hostname + (f":{parts.port}" if parts.port else ""))
            urls.append(urllib.parse.urlunsplit(parts).rstrip("/"))
        if source == "URL":
            auth = from_url
        elif source == "USER_INFO":
            auth = user_info
            if not auth:
                problems.append("basic.auth.credentials.source=USER_INFO needs basic.auth.user.info=user:password")
        else:
            auth = None
            problems.append(f"basic.auth.credentials.source={source}: only URL and USER_INFO are implemented; "
                            "give the credentials in basic.auth.user.info with USER_INFO")
        for side in ("truststore", "keystore"):
            kind = opts.get(f"{_SSL}{side}.type", "PEM").upper()
            if kind != "PEM" and f"{_SSL}{side}.location" in opts:
                problems.append(f"{_SSL}{side}.type={kind}: only PEM files can be read here; {_PEM_ONLY}")
        algorithm = opts.get(_SSL + "endpoint.identification.algorithm", "https").strip().lower()
        if algorithm not in ("https", ""):
            problems.append(f"{_SSL}endpoint.identification.algorithm={algorithm}: use https or empty")
        if problems:
            raise ValueError("schema registry options: " + "; ".join(problems))
        return cls(tuple(urls), auth, opts.get(_SSL + "truststore.location"), opts.get(_SSL + "keystore.location"),
                   opts.get(_SSL + "key.password"), algorithm == "https")

    def ssl_context(self) -> ssl.SSLContext | None:
        if self.cafile is None and self.certfile is None and self.check_hostname:
            return None  # Python's defaults: system CAs, host name checked
        ctx = ssl.create_default_context(cafile=self.cafile)
        ctx.check_hostname = self.check_hostname
        if self.certfile is not None:
            ctx.load_cert_chain(self.certfile, password=self.key_password)
        return ctx

    def __repr__(self) -> str:
        return (f"RegistryConfig(urls={self.urls!r}, basic_auth={'set' if self.basic_auth else None}, "
                f"cafile={self.cafile!r}, certfile={self.certfile!r}, check_hostname={self.check_hostname})")


@dataclass
class HttpSchemaRegistry:
    """Confluent Schema Registry REST client: ``GET /schemas/ids/{id}``, each id fetched once
    per process (a registered id never changes its schema)."""

    config: RegistryConfig
    _cache: dict[int, str] = field(default_factory=dict, repr=False)
    _context: ssl.SSLContext | None = field(default=None, repr=False)

    @classmethod
    def from_options(cls, options: Mapping[str, str]) -> "HttpSchemaRegistry":
        return cls(RegistryConfig.parse(options))

    @classmethod
    def at(cls, url: str) -> "HttpSchemaRegistry":
        return cls(RegistryConfig.parse({"schema.registry.url": url}))

    def schema(self, schema_id: int) -> str:
        cached = self._cache.get(schema_id)
        if cached is None:
            cached = self._cache[schema_id] = self._fetch(schema_id)
        return cached

    def _fetch(self, schema_id: int) -> str:
        if self._context is None:
            self._context = self.config.ssl_context()
        last: Exception | None = None
        for base in self.config.urls:
            req = urllib.request.Request(f"{base}/schemas/ids/{schema_id}",
                                         headers={"Accept": "application/vnd.schemaregistry.v1+json"})
            if self.config.basic_auth:
                req.add_header("Authorization", "Basic " + base64.b64encode(self.config.basic_auth.encode()).decode())
            try:
                with urllib.request.urlopen(req, timeout=self.config.timeout_s, context=self._context) as response:
                    return json.loads(response.read())["schema"]
            except urllib.error.HTTPError as exc:
                if exc.code == 404:
                    raise LookupError(f"schema registry {base} has no schema id {schema_id} (HTTP 404); is "
                                      "schema.registry.url the registry the converter wrote to?") from None
                if exc.code in (401, 403):
                    raise PermissionError(f"schema registry {base} denied access (HTTP {exc.code}); set "
                                          "basic.auth.user.info (with basic.auth.credentials.source=USER_INFO) "
                                          "or user:password@ in the URL") from None
                last = exc
            except (OSError, ValueError) as exc:  # unreachable, TLS refused: try the next URL
                last = exc
        raise ConnectionError(f"schema registry {', '.join(self.config.urls)} unavailable fetching schema id "
                              f"{schema_id}: {last}")

    def __reduce__(self) -> tuple:  # ship the settings to executors, not the cache or SSL context
        return (HttpSchemaRegistry, (self.config,))
