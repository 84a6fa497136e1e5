"""A Confluent Schema Registry client: register a schema under a subject, get its id, remember it.

Only what AvroConverter's serializer does with `auto.register.schemas=true`: `POST
/subjects/{subject}/versions` with the schema text, answered with `{"id": N}` (the same id when the
schema is already registered). Each (subject, schema text) pair is sent once per process.

Errors name the subject and what the registry said: 409 is an incompatible schema (the subject's
compatibility level refuses it; fix the schema change or the level), 422 an invalid schema, 401/403
credentials; those are terminal. A registry that cannot be reached is retriable.
"""

from __future__ import annotations

import base64
import json
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field

from connector.errors import IncompatibleSchemaError, SchemaRegistryError, SchemaRegistryUnavailable

__all__ = ["SchemaRegistryClient", "SchemaRegistryError", "SchemaRegistryUnavailable", "IncompatibleSchemaError"]

_CONTENT_TYPE = "application/vnd.schemaregistry.v1+json"


@dataclass
class SchemaRegistryClient:
    """`urls`: one or more base URLs (comma-separated in configuration), tried in order."""

    urls: tuple[str, ...]
    basic_auth: str | None = None  # "user:password" (basic.auth.user.info)
    timeout_s: float = 30.0
    _ids: dict[tuple[str, str], int] = field(default_factory=dict, repr=False)

    @classmethod
    def from_config(cls, url_list: str, basic_auth: str | None = None) -> "SchemaRegistryClient":
        urls = tuple(u.strip().rstrip("/") for u in url_list.split(",") if u.strip())
        if not urls:
            raise SchemaRegistryError("schema.registry.url is empty")
        return cls(urls, basic_auth)

    def register(self, subject: str, schema: str) -> int:
        """The id of `schema` under `subject`, registering it if needed (cached per pair)."""
        cached = self._ids.get((subject, schema))
        if cached is not None:
            return cached
        body = json.dumps({"schema": schema}).encode("utf-8")
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
                req.add_header("Authorization", "Basic " + base64.b64encode(self.basic_auth.encode()).decode())
            try:
                with urllib.request.urlopen(req, timeout=self.timeout_s) as resp:
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
            except (urllib.error.URLError, OSError, ValueError) as exc:
                last = exc
        raise SchemaRegistryUnavailable(f"schema registry {', '.join(self.urls)} unavailable while registering "
                                        f"subject {subject!r}: {last}")


def _error_message(exc: urllib.error.HTTPError) -> str:
    try:
        doc = json.loads(exc.read() or b"{}")
        return str(doc.get("message") or doc)
    except (ValueError, OSError):
        return exc.reason if isinstance(exc.reason, str) else str(exc)
