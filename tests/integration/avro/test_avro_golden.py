"""Our Avro path against Confluent's AvroConverter output recorded by the reference harness.

Each golden line holds the JsonConverter rendering of a record (the exact Connect schema and value
Debezium had) and the bytes AvroConverter 7.0.16 produced for it. Parsing the former into our Connect
model and serialising it through `AvroSide` + a real HTTP registry (tests.support.schema_registry)
must give: the registered schema text, the schema id (fresh registry, key before value per record)
and the wire bytes, all byte for byte.
"""
from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from connector.serde.avro import AvroSide
from connector.serde.avro_schema import AvroSchemaError, avro_schema_text
from connector.serde.connect_schema import ConnectSchema, Field, Type
from connector.serde.schema_registry import IncompatibleSchemaError, SchemaRegistryClient
from tests.integration.avro.connect_json import parse_schema, parse_value
from tests.support.schema_registry import SchemaRegistryServer
from tests.support.shared import REFERENCE_EXPECTED

HERE = Path(__file__).resolve().parent
SHARED = REFERENCE_EXPECTED
GOLDENS = [p for p in (SHARED / "basic-avro", SHARED / "basic-mysql-avro", HERE / "golden" / "types-avro",
                       HERE / "golden" / "types-avro-modes") if (p / "avro_schemas.json").exists()]


def _registered(golden: Path) -> dict[int, str]:
    reg = json.loads((golden / "avro_schemas.json").read_text())
    return {v["id"]: v["schema"] for versions in reg["subjects"].values() for v in versions}


@pytest.mark.parametrize("golden", GOLDENS, ids=lambda p: p.name)
def test_schema_text_ids_and_bytes_equal_avroconverter(golden: Path):
    by_id = _registered(golden)
    lines = [json.loads(line) for line in (golden / "events.jsonl").read_text().splitlines()]
    schemas: dict[str, ConnectSchema] = {}  # one object per distinct schema, as the connector has
    checked = 0
    with SchemaRegistryServer() as registry:
        client = SchemaRegistryClient.from_config(registry.url)
        sides = {"key": AvroSide(client, True), "value": AvroSide(client, False)}
        for line in lines:
            for side in ("key", "value"):
                expected = line[side]
                rendered = line[f"{side}_json"]
                if expected is None:
                    assert rendered is None
                    continue
                text = json.dumps(rendered["schema"], sort_keys=True)
                schema = schemas.setdefault(text, parse_schema(rendered["schema"]))
                assert avro_schema_text(schema) == by_id[expected["schema_id"]], (line["seq"], side)
                out = sides[side].serialize(line["topic"], schema, parse_value(schema, rendered["payload"]))
                assert out == base64.b64decode(expected["avro_base64"]), (line["seq"], side)
                checked += 1
        # the registry ends up holding exactly what the mock registry held
        reg = json.loads((golden / "avro_schemas.json").read_text())["subjects"]
        assert {s: [i for i, _ in v] for s, v in registry.subjects().items()} == \
            {s: [v["id"] for v in versions] for s, versions in reg.items()}
    assert checked >= 38


def test_invalid_avro_name_fails_like_avroconverter():
    schema = ConnectSchema(Type.STRUCT, name="db.t.Value", fields=(Field("a-b", ConnectSchema(Type.INT32)),))
    with pytest.raises(AvroSchemaError, match="Illegal character in: a-b"):
        avro_schema_text(schema)


def test_incompatible_schema_is_a_clear_409_error():
    v1 = ConnectSchema(Type.STRUCT, name="p.db.t.Value", fields=(Field("id", ConnectSchema(Type.INT32)),))
    added_optional = ConnectSchema(Type.STRUCT, name="p.db.t.Value", fields=(
        Field("id", ConnectSchema(Type.INT32)), Field("x", ConnectSchema(Type.STRING, optional=True))))
    added_required = ConnectSchema(Type.STRUCT, name="p.db.t.Value", fields=(
        Field("id", ConnectSchema(Type.INT32)), Field("y", ConnectSchema(Type.STRING))))
    with SchemaRegistryServer() as registry:
        client = SchemaRegistryClient.from_config(registry.url)
        side = AvroSide(client, is_key=False)
        first = side.serialize("p.db.t", v1, {"id": 1})
        assert first[:5] == b"\x00\x00\x00\x00\x01"
        assert side.serialize("p.db.t", added_optional, {"id": 2, "x": None})[:5] == b"\x00\x00\x00\x00\x02"
        with pytest.raises(IncompatibleSchemaError) as err:
            side.serialize("p.db.t", added_required, {"id": 3, "y": "z"})
        message = str(err.value)
        assert "'p.db.t-value'" in message and "HTTP 409" in message and "compatibility level" in message
        # cached: the same schema again does not go back to the registry
        before = len(registry.state.requests)
        side.serialize("p.db.t", v1, {"id": 4})
        assert len(registry.state.requests) == before
