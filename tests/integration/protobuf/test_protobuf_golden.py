"""Our Protobuf path against Confluent's ProtobufConverter output recorded by the reference harness.

Each golden line holds the JsonConverter rendering of a record (the exact Connect schema and value Debezium
had) and the bytes ProtobufConverter 7.0.16 produced for it (`--format protobuf`, see golden/README.md).
Parsing the former into our Connect model and serialising it through `ProtobufSide` + a real HTTP registry
(tests.support.schema_registry) must give the registered schema text, the schema id (fresh registry, key
before value per record) and the wire bytes, all byte for byte. A decoder written from the protobuf encoding
spec (tests/integration/protobuf/wire.py) then reads the bytes back to the JSON payload's values.
"""
from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from connector.serde.connect_schema import ConnectSchema
from connector.serde.protobuf import ProtobufSide
from connector.serde.protobuf_schema import proto_file
from connector.serde.schema_registry import SchemaRegistryClient
from tests.integration.avro.connect_json import parse_schema, parse_value
from tests.integration.protobuf.wire import decode_message, expected_values
from tests.support.schema_registry import SchemaRegistryServer

HERE = Path(__file__).resolve().parent
GOLDENS = sorted(p for p in (HERE / "golden").iterdir() if (p / "protobuf_schemas.json").exists())


def _registered(golden: Path) -> dict[int, str]:
    reg = json.loads((golden / "protobuf_schemas.json").read_text())
    return {v["id"]: v["schema"] for versions in reg["subjects"].values() for v in versions}


def _lines(golden: Path) -> list[dict]:
    return [json.loads(line) for line in (golden / "events.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("golden", GOLDENS, ids=lambda p: p.name)
def test_schema_text_ids_and_bytes_equal_protobufconverter(golden: Path):
    by_id = _registered(golden)
    schemas: dict[str, ConnectSchema] = {}  # one object per distinct schema, as the connector has
    checked = 0
    with SchemaRegistryServer() as registry:
        client = SchemaRegistryClient.from_config(registry.url)
        sides = {"key": ProtobufSide(client, True), "value": ProtobufSide(client, False)}
        for line in _lines(golden):
            for side in ("key", "value"):
                expected = line[side]
                rendered = line[f"{side}_json"]
                if expected is None:
                    assert rendered is None
                    continue
                text = json.dumps(rendered["schema"], sort_keys=True)
                schema = schemas.setdefault(text, parse_schema(rendered["schema"]))
                assert proto_file(schema).text == by_id[expected["schema_id"]], (line["seq"], side)
                out = sides[side].serialize(line["topic"], schema, parse_value(schema, rendered["payload"]))
                assert out == base64.b64decode(expected["protobuf_base64"]), (line["seq"], side)
                checked += 1
        # the registry ends up holding exactly what the mock registry held, each as a PROTOBUF schema
        reg = json.loads((golden / "protobuf_schemas.json").read_text())["subjects"]
        assert {s: [i for i, _ in v] for s, v in registry.subjects().items()} == \
            {s: [v["id"] for v in versions] for s, versions in reg.items()}
        assert set(registry.state.schema_types.values()) == {"PROTOBUF"}
    assert checked >= 38


@pytest.mark.parametrize("golden", GOLDENS, ids=lambda p: p.name)
def test_bytes_decode_to_the_connect_values(golden: Path):
    """Java's bytes, read with a decoder of our own, give the JsonConverter payload's values (what a consumer
    reading the topic with the registered schema gets), zero values standing in for nulls as proto3 has them."""
    decoded = 0
    for line in _lines(golden):
        for side in ("key", "value"):
            if line[side] is None:
                continue
            rendered = line[f"{side}_json"]
            schema = parse_schema(rendered["schema"])
            wire = base64.b64decode(line[side]["protobuf_base64"])
            assert wire[0] == 0 and int.from_bytes(wire[1:5], "big") == line[side]["schema_id"]
            assert wire[5] == 0  # message indexes [0]: the file's first message
            assert decode_message(proto_file(schema).root, schema, wire[6:]) == \
                expected_values(schema, parse_value(schema, rendered["payload"])), (line["seq"], side)
            decoded += 1
    assert decoded >= 38
