"""End to end through the CLI: basic.sql → `binlog-cdc run` with Protobuf keys and values
(`key.converter`/`value.converter=io.confluent.connect.protobuf.ProtobufConverter`, as Debezium Server's
`debezium.format.*=protobuf`) → Tansu, with a schema registry over HTTP.

The registry must end up with exactly the subjects, versions, ids and schema texts Confluent's ProtobufConverter
registered for this workload (golden basic-protobuf), and every record read back from Kafka must carry the same
schema id and decode (tests/integration/protobuf/wire.py) to the same message as the golden's bytes, wall-clock
timestamps masked: the bytes are then equal but for those.
"""
from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from connector.serde.protobuf_schema import proto_file
from tests.conformance.run import RunOptions, run_workload
from tests.integration.avro.connect_json import parse_schema
from tests.integration.protobuf.wire import decode_message

pytestmark = pytest.mark.timeout(300)

HERE = Path(__file__).resolve().parent
WORKLOAD = HERE.parents[1] / "fixtures" / "workloads" / "basic.sql"
GOLDEN = HERE / "golden" / "basic-protobuf"
TS = ("ts_ms", "ts_us", "ts_ns")


def _lines(path: Path) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return sorted(lines, key=lambda e: e["topic"])  # Kafka keeps order per topic only; stable sort keeps it


def _masked(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: None if k in TS else _masked(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_masked(v) for v in node]
    return node


def test_basic_protobuf_end_to_end(tmp_path):
    out = tmp_path / "protobuf"
    result = run_workload(RunOptions(WORKLOAD, out, format="protobuf", timeout=120, scratch=tmp_path / "servers"))
    assert result.connector_rc == 0
    registry = json.loads((out / "protobuf_schemas.json").read_text())["subjects"]
    golden_registry = json.loads((GOLDEN / "protobuf_schemas.json").read_text())["subjects"]
    assert {s: [(v["version"], v["id"], v["schema"]) for v in vs] for s, vs in registry.items()} == \
        {s: [(v["version"], v["id"], v["schema"]) for v in vs] for s, vs in golden_registry.items()}

    ours, golden = _lines(out / "events.jsonl"), _lines(GOLDEN / "events.jsonl")
    assert [e["topic"] for e in ours] == [e["topic"] for e in golden]
    compared = 0
    for mine, theirs in zip(ours, golden):
        for side in ("key", "value"):
            if theirs[side] is None:
                assert mine[side] is None, (theirs["seq"], side)
                continue
            assert mine[side]["schema_id"] == theirs[side]["schema_id"], (theirs["seq"], side)
            schema = parse_schema(theirs[f"{side}_json"]["schema"])
            root = proto_file(schema).root
            got, want = (base64.b64decode(x[side]["protobuf_base64"]) for x in (mine, theirs))
            assert got[:6] == want[:6]  # magic byte, schema id, message indexes
            assert _masked(decode_message(root, schema, got[6:])) == _masked(decode_message(root, schema, want[6:])), \
                (theirs["seq"], side)
            compared += 1
    assert compared == 130
