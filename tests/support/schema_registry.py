"""A small Confluent-compatible Schema Registry, for tests only (standard library HTTP server).

No registry server is installable from PyPI or Debian without a JVM or a Kafka-backed store, so the
tests run this one: a real HTTP server the connector talks to over the network, with the parts of
the REST API AvroConverter's client uses and a minimal BACKWARD compatibility check.

    POST /subjects/{subject}/versions     {"schema": "...", "schemaType"?: "PROTOBUF"} → {"id": N} (same id for the
                                          same text anywhere; a Protobuf schema is taken without a compatibility check)
    GET  /schemas/ids/{id}                → {"schema": "..."}
    GET  /subjects                        → ["a-key", ...]
    GET  /subjects/{subject}/versions     → [1, 2]
    GET  /subjects/{subject}/versions/{v} → {"subject", "version", "id", "schema"}  (v may be "latest")
    GET|PUT /config[/{subject}]           {"compatibility": "BACKWARD" | "NONE"}

BACKWARD (the default) means the new schema can read data written with the latest one: a record
field added must have a default, a field kept must keep a compatible type (int → long/float/double,
long → float/double, float → double, string ↔ bytes, a union may gain branches). A refusal is HTTP 409
with error_code 409, as the real registry answers.

    python -m tests.support.schema_registry --port 8081   # standalone

`SchemaRegistryServer(tls=(cert, key), client_ca=..., basic_auth="user:pw")` serves HTTPS (optionally
requiring a client certificate) and answers 401 without the right `Authorization: Basic` header, as a
secured registry does.
"""
from __future__ import annotations

import argparse
import base64
import json
import ssl
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote

__all__ = ["SchemaRegistryServer", "backward_compatible"]

_PROMOTIONS = {("int", "long"), ("int", "float"), ("int", "double"), ("long", "float"), ("long", "double"),
               ("float", "double"), ("string", "bytes"), ("bytes", "string")}


# ---------------------------------------------------------------- compatibility
def _named(schema: Any, space: str | None, names: dict[str, Any]) -> None:
    """Collect the named types of a parsed schema by full name."""
    if isinstance(schema, list):
        for s in schema:
            _named(s, space, names)
    elif isinstance(schema, dict):
        if schema.get("type") in ("record", "enum", "fixed"):
            ns = schema.get("namespace", space)
            full = schema["name"] if "." in schema["name"] or not ns else f"{ns}.{schema['name']}"
            names[full] = schema
            for f in schema.get("fields", []):
                _named(f["type"], ns, names)
        elif schema.get("type") == "array":
            _named(schema["items"], space, names)
        elif schema.get("type") == "map":
            _named(schema["values"], space, names)


def _kind(schema: Any, names: dict[str, Any]) -> Any:
    if isinstance(schema, str):
        if schema in names:
            return names[schema]
        short = [v for k, v in names.items() if k.rsplit(".", 1)[-1] == schema]
        return short[0] if short else schema
    if isinstance(schema, dict) and schema.get("type") in ("int", "long", "float", "double", "string", "bytes",
                                                           "boolean", "null"):
        return schema["type"]
    return schema


def _type_name(s: Any) -> str:
    if isinstance(s, str):
        return s
    if isinstance(s, list):
        return "union"
    return s.get("type", "?")


def _compatible(reader: Any, writer: Any, rn: dict, wn: dict, path: str, problems: list[str],
                seen: set) -> None:
    reader, writer = _kind(reader, rn), _kind(writer, wn)
    if isinstance(writer, list):
        for branch in writer:
            _compatible(reader, branch, rn, wn, path, problems, seen)
        return
    if isinstance(reader, list):
        errors_per_branch = []
        for branch in reader:
            sub: list[str] = []
            _compatible(branch, writer, rn, wn, path, sub, seen)
            if not sub:
                return
            errors_per_branch.append(sub)
        problems.append(f"{path}: writer type {_type_name(writer)} matches no branch of the reader union")
        return
    rt, wt = _type_name(reader), _type_name(writer)
    if rt != wt and (wt, rt) not in _PROMOTIONS:
        problems.append(f"{path}: type changed from {wt} to {rt}")
        return
    if rt == "record":
        key = (id(reader), id(writer))
        if key in seen:
            return
        seen.add(key)
        wfields = {f["name"]: f for f in writer.get("fields", [])}
        for f in reader.get("fields", []):
            if f["name"] in wfields:
                _compatible(f["type"], wfields[f["name"]]["type"], rn, wn, f"{path}.{f['name']}", problems, seen)
            elif "default" not in f:
                problems.append(f"{path}.{f['name']}: new field without a default")
    elif rt == "array":
        _compatible(reader["items"], writer["items"], rn, wn, path + "[]", problems, seen)
    elif rt == "map":
        _compatible(reader["values"], writer["values"], rn, wn, path + "{}", problems, seen)
    elif rt == "enum":
        missing = set(writer.get("symbols", [])) - set(reader.get("symbols", []))
        if missing and "default" not in reader:
            problems.append(f"{path}: enum symbols removed: {sorted(missing)}")


def backward_compatible(new: str, old: str) -> list[str]:
    """Reasons why `new` cannot read data written with `old` (empty: compatible)."""
    reader, writer = json.loads(new), json.loads(old)
    rn: dict[str, Any] = {}
    wn: dict[str, Any] = {}
    _named(reader, None, rn)
    _named(writer, None, wn)
    problems: list[str] = []
    _compatible(reader, writer, rn, wn, "", problems, set())
    return problems


# ---------------------------------------------------------------- state and HTTP
@dataclass
class _State:
    lock: threading.Lock = field(default_factory=threading.Lock)
    schemas: list[str] = field(default_factory=list)  # id - 1 → text
    subjects: dict[str, list[int]] = field(default_factory=dict)  # subject → ids by version
    schema_types: dict[int, str] = field(default_factory=dict)  # id → "AVRO" | "PROTOBUF"
    compatibility: str = "BACKWARD"
    subject_compatibility: dict[str, str] = field(default_factory=dict)
    requests: list[tuple[str, str]] = field(default_factory=list)  # (method, path) log for tests
    basic_auth: str | None = None  # "user:password" the server requires

    def register(self, subject: str, text: str, schema_type: str = "AVRO") -> tuple[int, dict[str, Any] | None]:
        with self.lock:
            versions = self.subjects.setdefault(subject, [])
            for schema_id in versions:
                if self.schemas[schema_id - 1] == text:
                    return 200, {"id": schema_id}
            level = self.subject_compatibility.get(subject, self.compatibility)
            # the BACKWARD check models Avro's rules only; a Protobuf schema is registered unchecked
            if versions and level.startswith("BACKWARD") and schema_type == "AVRO":
                problems = backward_compatible(text, self.schemas[versions[-1] - 1])
                if problems:
                    return 409, {"error_code": 409, "message": (
                        f"Schema being registered is incompatible with an earlier schema for subject "
                        f"\"{subject}\", details: {problems}")}
            schema_id = self.schemas.index(text) + 1 if text in self.schemas else 0
            if not schema_id:
                self.schemas.append(text)
                schema_id = len(self.schemas)
                self.schema_types[schema_id] = schema_type
            versions.append(schema_id)
            return 200, {"id": schema_id}


def _handler(state: _State) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def _reply(self, status: int, doc: Any) -> None:
            body = json.dumps(doc).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/vnd.schemaregistry.v1+json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _body(self) -> Any:
            length = int(self.headers.get("Content-Length") or 0)
            return json.loads(self.rfile.read(length) or b"{}")

        def _parts(self) -> list[str] | None:
            """The path's parts; None (401 sent) when the request lacks the credentials the server requires."""
            state.requests.append((self.command, self.path))
            if state.basic_auth is not None:
                expected = "Basic " + base64.b64encode(state.basic_auth.encode()).decode()
                if self.headers.get("Authorization") != expected:
                    self._reply(401, {"error_code": 401, "message": "Unauthorized"})
                    return None
            return [unquote(p) for p in self.path.split("?")[0].strip("/").split("/") if p]

        def do_POST(self) -> None:  # noqa: N802
            parts = self._parts()
            if parts is None:
                return
            if len(parts) == 3 and parts[0] == "subjects" and parts[2] == "versions":
                doc = self._body()
                text = doc.get("schema")
                schema_type = str(doc.get("schemaType") or "AVRO").upper()
                if not isinstance(text, str) or schema_type not in ("AVRO", "PROTOBUF"):
                    return self._reply(422, {"error_code": 42201, "message": "schema missing or schemaType unknown"})
                try:
                    if schema_type == "AVRO":
                        json.loads(text)
                    elif not text.startswith('syntax = "proto3";'):
                        raise ValueError("not a proto3 schema")
                except ValueError:
                    return self._reply(422, {"error_code": 42201, "message": "Invalid schema"})
                status, reply = state.register(parts[1], text, schema_type)
                return self._reply(status, reply)
            self._reply(404, {"error_code": 404, "message": "HTTP 404 Not Found"})

        def do_PUT(self) -> None:  # noqa: N802
            parts = self._parts()
            if parts is None:
                return
            if parts and parts[0] == "config":
                level = str(self._body().get("compatibility", "BACKWARD")).upper()
                with state.lock:
                    if len(parts) == 2:
                        state.subject_compatibility[parts[1]] = level
                    else:
                        state.compatibility = level
                return self._reply(200, {"compatibility": level})
            self._reply(404, {"error_code": 404, "message": "HTTP 404 Not Found"})

        def do_GET(self) -> None:  # noqa: N802
            parts = self._parts()
            if parts is None:
                return
            with state.lock:
                if parts == ["subjects"]:
                    return self._reply(200, sorted(state.subjects))
                if len(parts) == 3 and parts[:2] == ["schemas", "ids"] and parts[2].isdigit():
                    n = int(parts[2])
                    if 1 <= n <= len(state.schemas):
                        return self._reply(200, {"schema": state.schemas[n - 1]})
                    return self._reply(404, {"error_code": 40403, "message": "Schema not found"})
                if len(parts) >= 3 and parts[0] == "subjects" and parts[2] == "versions":
                    versions = state.subjects.get(parts[1])
                    if not versions:
                        return self._reply(404, {"error_code": 40401, "message": f"Subject '{parts[1]}' not found."})
                    if len(parts) == 3:
                        return self._reply(200, list(range(1, len(versions) + 1)))
                    v = len(versions) if parts[3] == "latest" else int(parts[3])
                    if not 1 <= v <= len(versions):
                        return self._reply(404, {"error_code": 40402, "message": "Version not found."})
                    schema_id = versions[v - 1]
                    return self._reply(200, {"subject": parts[1], "version": v, "id": schema_id,
                                             "schema": state.schemas[schema_id - 1]})
                if parts and parts[0] == "config":
                    level = state.subject_compatibility.get(parts[1], state.compatibility) if len(parts) == 2 \
                        else state.compatibility
                    return self._reply(200, {"compatibilityLevel": level})
            self._reply(404, {"error_code": 404, "message": "HTTP 404 Not Found"})

    return Handler


class SchemaRegistryServer:
    """The registry on 127.0.0.1 (port 0: any free port), serving from a background thread."""

    def __init__(self, port: int = 0, *, tls: tuple[str, str] | None = None, client_ca: str | None = None,
                 basic_auth: str | None = None, host: str = "127.0.0.1") -> None:
        self.state = _State(basic_auth=basic_auth)
        self._server = ThreadingHTTPServer(("127.0.0.1", port), _handler(self.state))
        self._scheme, self._host = "http", host
        if tls is not None:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(*tls)
            if client_ca is not None:
                ctx.verify_mode = ssl.CERT_REQUIRED
                ctx.load_verify_locations(client_ca)
            self._server.socket = ctx.wrap_socket(self._server.socket, server_side=True)
            self._scheme = "https"
        self._thread = threading.Thread(target=self._server.serve_forever, name="schema-registry", daemon=True)

    @property
    def url(self) -> str:
        return f"{self._scheme}://{self._host}:{self._server.server_address[1]}"

    def start(self) -> "SchemaRegistryServer":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> "SchemaRegistryServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # test conveniences (same data as the REST API)
    def subjects(self) -> dict[str, list[tuple[int, str]]]:
        """subject → [(id, schema text)] by version."""
        with self.state.lock:
            return {s: [(i, self.state.schemas[i - 1]) for i in ids] for s, ids in sorted(self.state.subjects.items())}

    def schema(self, schema_id: int) -> str:
        return self.state.schemas[schema_id - 1]


def main() -> None:
    ap = argparse.ArgumentParser(description="test-only Confluent-compatible schema registry")
    ap.add_argument("--port", type=int, default=8081)
    port = ap.parse_args().port
    server = SchemaRegistryServer(port)
    print(f"schema registry on {server.url}", flush=True)
    try:
        server._server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
