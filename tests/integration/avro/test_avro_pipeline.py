"""End to end through the CLI: basic.sql → `binlog-cdc run` with Avro keys and values → Tansu, with a
schema registry over HTTP; and the same workload with JsonConverter `schemas.enable=false`.

Avro: every record read back from Kafka is decoded with fastavro using the schema the registry holds
for its id, and the datum must equal the JSON payload real Debezium emitted for the same record
(golden `basic`, timestamps masked); the registry must hold exactly the subjects, versions, ids and
schema strings Confluent's AvroConverter registered for this workload (golden `basic-avro`).
"""
from __future__ import annotations

import base64
import io
import json
from pathlib import Path
from typing import Any

import fastavro
import pytest

from connector.serde.connect_schema import ConnectSchema, Type
from connector.java.text import to_float32
from tests.conformance.compare import compare_dirs, report
from tests.conformance.run import RunOptions, run_workload
from tests.integration.avro.connect_json import parse_schema
from tests.support.shared import REFERENCE_EXPECTED

pytestmark = pytest.mark.timeout(300)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
WORKLOAD = FIXTURES / "workloads" / "basic.sql"
SHARED_AVRO = REFERENCE_EXPECTED / "basic-avro"
TS = ("ts_ms", "ts_us", "ts_ns")


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _per_topic(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    # Kafka keeps order per topic only (the runner merges topics by broker timestamp)
    return sorted(lines, key=lambda e: e["topic"])  # stable: topic order kept


def _no_logical(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _no_logical(v) for k, v in node.items() if k != "logicalType"}
    if isinstance(node, list):
        return [_no_logical(v) for v in node]
    return node


def _matches(schema: ConnectSchema, payload: Any, datum: Any, path: str, problems: list[str]) -> None:
    """The raw Avro datum (logical types off) against the JsonConverter payload of the same Connect schema."""
    if path.rsplit(".", 1)[-1] in TS:
        return
    if payload is None or datum is None:
        if payload is not datum:
            problems.append(f"{path}: json {payload!r} avro {datum!r}")
        return
    if schema.type is Type.STRUCT:
        if set(datum) != set(schema.field_names()):
            problems.append(f"{path}: avro fields {sorted(datum)}")
        for f in schema.fields:
            _matches(f.schema, payload.get(f.name), datum.get(f.name), f"{path}.{f.name}", problems)
    elif schema.type is Type.ARRAY:
        assert schema.items is not None
        if len(payload) != len(datum):
            problems.append(f"{path}: length {len(payload)} != {len(datum)}")
        for i, (p, d) in enumerate(zip(payload, datum)):
            _matches(schema.items, p, d, f"{path}[{i}]", problems)
    elif schema.type is Type.BYTES:  # bytes and Decimal (unscaled two's complement) are base64 in JSON
        if base64.b64decode(payload) != datum:
            problems.append(f"{path}: json {payload!r} avro {datum!r}")
    elif schema.type is Type.FLOAT32:
        if to_float32(payload) != datum:
            problems.append(f"{path}: json {payload!r} avro {datum!r}")
    elif payload != datum or type(payload) is not type(datum):
        problems.append(f"{path}: json {payload!r} avro {datum!r}")


def test_basic_avro_end_to_end(tmp_path):
    out = tmp_path / "avro"
    result = run_workload(RunOptions(WORKLOAD, out, format="avro", timeout=120, scratch=tmp_path / "servers"))
    assert result.connector_rc == 0
    ours = _per_topic(_lines(out / "events.jsonl"))
    golden_json = _per_topic(_lines(FIXTURES / "golden" / "basic" / "events.jsonl"))
    assert [e["topic"] for e in ours] == [e["topic"] for e in golden_json]
    registry = json.loads((out / "avro_schemas.json").read_text())["subjects"]
    by_id = {v["id"]: v["schema"] for versions in registry.values() for v in versions}
    parsed = {i: fastavro.parse_schema(_no_logical(json.loads(text))) for i, text in by_id.items()}

    problems: list[str] = []
    decoded = 0
    for mine, theirs in zip(ours, golden_json):
        for side in ("key", "value"):
            if theirs[side] is None:
                assert mine[side] is None, (theirs["seq"], side)
                continue
            raw = base64.b64decode(mine[side]["avro_base64"])
            assert raw[0] == 0 and int.from_bytes(raw[1:5], "big") == mine[side]["schema_id"]
            subject = f"{mine['topic']}-{side}"
            assert mine[side]["schema_id"] in [v["id"] for v in registry[subject]]
            buf = io.BytesIO(raw[5:])
            datum = fastavro.schemaless_reader(buf, parsed[mine[side]["schema_id"]], None)
            assert buf.read() == b"", "every byte is used"
            schema = parse_schema(theirs[side]["schema"])
            _matches(schema, theirs[side]["payload"], datum, f"seq{theirs['seq']}.{side}", problems)
            decoded += 1
    assert not problems, problems[:10]
    assert decoded == 130

    if (SHARED_AVRO / "avro_schemas.json").exists():
        golden = json.loads((SHARED_AVRO / "avro_schemas.json").read_text())["subjects"]
        strip = {s: [(v["version"], v["id"], v["schema"]) for v in vs] for s, vs in golden.items()}
        assert {s: [(v["version"], v["id"], v["schema"]) for v in vs] for s, vs in registry.items()} == strip


def test_basic_schemaless_json_end_to_end(tmp_path):
    golden = FIXTURES / "golden" / "basic-schemaless"
    out = tmp_path / "schemaless"
    run_workload(RunOptions(WORKLOAD, out, timeout=120, scratch=tmp_path / "servers",
                            props=("key.converter.schemas.enable=false", "value.converter.schemas.enable=false")))
    lines = _lines(out / "events.jsonl")
    assert all(set(e["value"]) != {"schema", "payload"} for e in lines if e["value"] is not None)
    assert sum(e["value"] is None for e in lines) == 4  # tombstones stay null
    mismatches = compare_dirs(golden, out)
    assert not mismatches, report(mismatches)


GOLDEN_RUNS = {
    "types-avro": ("field.name.adjustment.mode=avro",),
    "types-avro-modes": ("field.name.adjustment.mode=avro", "decimal.handling.mode=precise",
                         "bigint.unsigned.handling.mode=precise", "time.precision.mode=connect",
                         "include.schema.comments=true", "column.propagate.source.type=.*"),
}


def _decoded(out: Path) -> tuple[dict[str, list[tuple[int, str]]], dict[str, list[Any]]]:
    """(subject → [(id, schema)], topic → decoded (key, value) datums with timestamps masked), each topic
    stably sorted by key (Kafka keeps order per partition, i.e. per key)."""
    subjects = {s: [(v["id"], v["schema"]) for v in vs]
                for s, vs in json.loads((out / "avro_schemas.json").read_text())["subjects"].items()}
    by_id = {i: fastavro.parse_schema(_no_logical(json.loads(t))) for vs in subjects.values() for i, t in vs}

    def decode(side: Any) -> Any:
        if side is None:
            return None
        raw = base64.b64decode(side["avro_base64"])
        return _mask(fastavro.schemaless_reader(io.BytesIO(raw[5:]), by_id[int.from_bytes(raw[1:5], "big")], None))

    topics: dict[str, list[Any]] = {}
    for e in _lines(out / "events.jsonl"):
        topics.setdefault(e["topic"], []).append((decode(e["key"]), decode(e["value"])))
    return subjects, {t: sorted(v, key=lambda kv: repr(kv[0])) for t, v in topics.items()}


def _mask(d: Any) -> Any:
    if isinstance(d, dict):
        return {k: (None if k in TS else _mask(v)) for k, v in d.items()}
    if isinstance(d, list):
        return [_mask(v) for v in d]
    return d


@pytest.mark.parametrize("name", sorted(GOLDEN_RUNS))
def test_types_avro_equal_avroconverter(name, tmp_path):
    """Every column type and several handling modes: the registry content equals the mock registry's of
    the Java run, and every record decodes to the same datum as Java's AvroConverter bytes."""
    golden = Path(__file__).resolve().parent / "golden" / name
    out = tmp_path / name
    run_workload(RunOptions(FIXTURES / "workloads" / "types.sql", out, format="avro", props=GOLDEN_RUNS[name],
                            timeout=120, scratch=tmp_path / "servers"))
    ours_subjects, ours = _decoded(out)
    java_subjects, java = _decoded(golden)
    assert ours_subjects == java_subjects
    assert sorted(ours) == sorted(java)
    for topic in java:
        assert ours[topic] == java[topic], topic
