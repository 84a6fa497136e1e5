"""A Confluent Schema Registry client: register a schema under a subject, get its id, remember it.

Only what AvroConverter's and ProtobufConverter's serializers do with `auto.register.schemas=true`: `POST
/subjects/{subject}/versions` with the schema text (and `schemaType` for Protobuf), answered with
`{"id": N}` (the same id when the schema is already registered). Each (subject, schema text) pair is sent
once per process.

Errors name the subject and what the registry said: 409 is an incompatible schema (the subject's
compatibility level refuses it; fix the schema change or the level), 422 an invalid schema, 401/403
credentials; those are terminal. A registry that cannot be reached is retriable.
"""

from __future__ import annotations

import base64
import json
import ssl
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field

from connector.config.registry import RegistryAccess, without_userinfo
from connector.config.secret import Secret
from connector.errors import IncompatibleSchemaError, SchemaRegistryError, SchemaRegistryUnavailable

__all__ = ["SchemaRegistryClient", "SchemaRegistryError", "SchemaRegistryUnavailable", "IncompatibleSchemaError"]

_CONTENT_TYPE = "application/vnd.schemaregistry.v1+json"


@dataclass
class SchemaRegistryClient:
    """`urls`: one or more base URLs (comma-separated in configuration, credentials removed), tried in order."""

    urls: tuple[str, ...]
    basic_auth: Secret | None = None  # "user:password"
    ssl_context: ssl.SSLContext | None = None
    timeout_s: float = 30.0
    _ids: dict[tuple[str, str], int] = field(default_factory=dict, repr=False)

    @classmethod
    def from_config(cls, url_list: str, access: RegistryAccess | None = None) -> "SchemaRegistryClient":
        access = access or RegistryAccess()
        urls = tuple(without_userinfo(u.strip()).rstrip("/") for u in url_list.split(",") if u.strip())
        if not urls:
            raise SchemaRegistryError("schema.registry.url is empty")
        return cls(urls, access.basic_auth, access.ssl_context)

    def register(self, subject: str, schema: str, schema_type: str | None = None) -> int:
        """The id of `schema` under `subject`, registering it if needed (cached per pair). `schema_type`:
        None for Avro (the registry's default, which AvroConverter leaves out), "PROTOBUF" for ProtobufConverter."""
        cached = self._ids.get((subject, schema))
        if cached is not None:
            return cached
        doc: dict[str, str] = {"schema": schema}
        if schema_type is not None:
            doc["schemaType"] = schema_type
        body = json.dumps(doc).encode("utf-8")
        doc = self._request("POST", f"/subjects/{urllib.parse.quote(subject, safe='')}/versions", body, subject)
        schema_id = int(doc["id"])
        self._ids[(subject, schema)] = schema_id
        return schema_id

    def _request(self, method: str, path: str, body: bytes | None, subject: str) -> dict:
        last: Exception | None = None
        for base in self.urls:
            req = urllib.request.Request(base + path, data=body, method=method,
                                         headers={"Content-Type": _CONTENT_TYPE, "Accept": _CONTENT_TYPE})
            if self.basic_auth:
                token = base64.b64encode(self.basic_auth.reveal().encode()).decode()
                req.add_header("Authorization", "Basic " + token)
            try:
                with urllib.request.urlopen(req, timeout=self.timeout_s, context=self.ssl_context) as resp:
                    return json.loads(resp.read() or b"{}")
            except urllib.error.HTTPError as exc:
                detail = _error_message(exc)
                if exc.code == 409:
                    raise IncompatibleSchemaError(
                        f"schema registry {base} refused the new schema for subject {subject!r} as incompatible "
                        f"with its registered versions (HTTP 409: {detail}); make the schema change compatible or "
                        f"change the subject's compatibility level") from None
                if exc.code == 422:
                    raise SchemaRegistryError(
                        f"schema registry {base} rejected the schema for subject {subject!r} as invalid "
                        f"(HTTP 422: {detail})") from None
                if exc.code in (401, 403):
                    raise SchemaRegistryError(
                        f"schema registry {base} denied access for subject {subject!r} (HTTP {exc.code}: {detail}); "
                        f"check the registry credentials") from None
                if exc.code < 500:
                    raise SchemaRegistryError(
                        f"schema registry {base} answered HTTP {exc.code} for subject {subject!r}: {detail}") from None
                last = exc
            except urllib.error.URLError as exc:
                if isinstance(exc.reason, ssl.SSLCertVerificationError):
                    # a certificate the truststore does not vouch for stays so: retrying cannot help
                    raise SchemaRegistryError(
                        f"schema registry {base}: TLS certificate not trusted ({exc.reason.verify_message}); set "
                        f"schema.registry.ssl.truststore.location to the CA that signed the registry's certificate"
                        + (", and use a host name the certificate lists (or "
                           "schema.registry.ssl.endpoint.identification.algorithm= to skip that check)"
                           if "hostname" in str(exc.reason).lower() or "IP address" in str(exc.reason) else "")
                    ) from None
                last = _with_tls_hint(exc.reason) if isinstance(exc.reason, ssl.SSLError) else exc
            except ssl.SSLError as exc:  # TLS 1.3 may refuse the client only when the response is read
                last = _with_tls_hint(exc)
            except (OSError, ValueError) as exc:
                last = exc
        raise SchemaRegistryUnavailable(f"schema registry {', '.join(self.urls)} unavailable while registering "
                                        f"subject {subject!r}: {last}")


def _with_tls_hint(exc: ssl.SSLError) -> OSError:
    """A refused handshake (e.g. the registry wants a client certificate) stays retriable, because a network
    fault can look the same, but says what to check."""
    return OSError(f"TLS handshake failed ({exc}); if the registry requires a client certificate, set "
                   f"schema.registry.ssl.keystore.location")


def _error_message(exc: urllib.error.HTTPError) -> str:
    try:
        doc = json.loads(exc.read() or b"{}")
        return str(doc.get("message") or doc)
    except (ValueError, OSError):
        return exc.reason if isinstance(exc.reason, str) else str(exc)
