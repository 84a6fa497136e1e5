"""The transforms on real record kinds (tests/unit/events/record_samples.py) through the encoder: what each
emits, that non-envelope kinds pass unchanged, and that schemas are compiled once per schema."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest

from connector.config.loaders import load_server_properties
from connector.dispatch.encoder import RecordEncoder
from connector.events.kinds import DataChange, RecordKind, SchemaChangeRecord, Tombstone
from connector.events.records import HeaderFormat
from connector.transforms import build_chain
from connector.transforms.routing import java_replacement
from tests.unit.events.record_samples import CONTEXT, sample_records
from tests.unit.transforms.test_refusals import BASE
from connector.transforms.config import transform_settings

UNWRAP = "io.debezium.transforms.ExtractNewRecordState"


def encoder(**props: str) -> RecordEncoder:
    raw = {**BASE, **{f"debezium.{k}": v for k, v in props.items()}}
    settings = load_server_properties(raw).settings(transform_settings)
    return RecordEncoder(transforms=build_chain(settings.transforms, HeaderFormat.JSON))


def fresh_records() -> list:
    """The samples with a header list of their own each (transforms append to a record's list; the samples
    share one module-level list)."""
    return [replace(r, headers=list(r.headers)) if isinstance(r, (DataChange, Tombstone, SchemaChangeRecord)) else r
            for r in sample_records(True)]


def emitted(enc: RecordEncoder) -> list:
    out = []
    for record in fresh_records():
        rec = enc.encode(record)
        out.append(None if rec is None else (rec.topic, json.loads(rec.key) if rec.key else None,
                                             json.loads(rec.value) if rec.value else None, rec.headers))
    return out


def unwrap(**opts: str) -> RecordEncoder:
    return encoder(transforms="u", **{"transforms.u.type": UNWRAP}, **{f"transforms.u.{k}": v for k, v in opts.items()})


def test_unwrap_default_mode_flat_rows_delete_as_null_value_with_schema_and_others_unchanged() -> None:
    plain = emitted(RecordEncoder())
    out = emitted(unwrap())
    create, update, delete, read, keyless, tombstone, truncate, ddl, begin, end, heartbeat = out
    assert create[2]["payload"] == {"id": 1001, "name": "Sal", "note": "x\u0001\"y"}
    # copySchemaBasics: the row struct keeps its name but becomes required
    assert create[2]["schema"]["name"] == "dbserver1.inventory.customers.Value"
    assert create[2]["schema"]["optional"] is False
    assert update[2]["payload"]["name"] == "Sal" and read[2]["payload"]["id"] == 1001
    # tombstone mode: the delete becomes a null value that still carries `after`'s (optional) schema
    assert delete[2] == {"schema": {**create[2]["schema"], "optional": True}, "payload": None}
    assert tombstone is None and truncate is None  # Debezium's tombstone is dropped, op=t dropped
    assert [ddl, begin, end, heartbeat] == plain[7:]
    assert keyless[2]["payload"] == {"line": "l"}


@pytest.mark.parametrize("mode, delete_value, tombstone_kept", [
    ("drop", None, False),
    ("delete-to-tombstone", None, False),
    ("rewrite", {"id": 1001, "name": "Sally", "note": None, "__deleted": "true"}, False),
    ("rewrite-with-tombstone", {"id": 1001, "name": "Sally", "note": None, "__deleted": "true"}, True),
])
def test_unwrap_delete_modes(mode: str, delete_value, tombstone_kept: bool) -> None:
    out = emitted(unwrap(**{"delete.tombstone.handling.mode": mode}))
    create, delete, tombstone = out[0], out[2], out[5]
    if mode == "drop":
        assert delete is None
    elif mode == "delete-to-tombstone":
        assert delete[2] is None and delete[1] is not None  # a true tombstone with the key
    else:
        assert delete[2]["payload"] == delete_value
        assert create[2]["payload"]["__deleted"] == "false"
        assert create[2]["schema"]["fields"][-1] == {"type": "string", "optional": True, "field": "__deleted"}
    assert (tombstone is not None) is tombstone_kept


def test_unwrap_add_fields_and_headers_with_prefixes_and_renames() -> None:
    out = emitted(unwrap(**{"add.fields": "op,table,source.file,transaction.id,ts_ms:when",
                            "add.headers": "op,db", "add.headers.prefix": "h_"}))
    create, update, tombstone = out[0], out[1], out[5]
    fields = create[2]["schema"]["fields"][-5:]
    assert [f["field"] for f in fields] == ["__op", "__table", "__source_file", "__transaction_id", "__when"]
    assert all(f["optional"] for f in fields)
    assert create[2]["payload"]["__op"] == "c" and create[2]["payload"]["__transaction_id"] is None
    assert update[2]["payload"]["__transaction_id"] == "tx:1"
    names = [k for k, _ in create[3]]
    assert names[-2:] == ["h_op", "h_db"]
    assert json.loads(dict(create[3])["h_op"]) == {"schema": {"type": "string", "optional": True}, "payload": "c"}
    assert tombstone is None


def test_unwrap_route_by_field_and_tombstone_op_header() -> None:
    out = emitted(unwrap(**{"route.by.field": "name", "add.headers": "op",
                            "delete.tombstone.handling.mode": "rewrite-with-tombstone"}))
    assert out[0][0] == "Sal" and out[2][0] == "Sally"  # create: after.name, delete: before.name
    assert json.loads(dict(out[5][3])["__op"])["payload"] == "d"  # the kept tombstone gets op=d
    assert json.loads(dict(out[5][3])["__op"])["schema"] == {"type": "string", "optional": False}
    assert len(CONTEXT) == 4  # the shared sample list was not touched


def test_schemas_are_built_once_per_table_schema_and_operation() -> None:
    (transform,) = unwrap(**{"add.fields": "op"})._chains[RecordKind.DATA]
    records = fresh_records()
    create, update, create_again = (transform.apply(records[i].connect()) for i in (0, 1, 0))
    assert create is not None and update is not None and create_again is not None
    assert create_again.value_schema is create.value_schema  # cached, not rebuilt per record
    assert update.value_schema == create.value_schema  # Debezium caches by (schema, op): equal schemas


def test_chain_order_predicates_and_negate() -> None:
    enc = encoder(**{
        "transforms": "route,ins,skip",
        "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
        "transforms.route.regex": r"dbserver1\.(inventory)\.(.*)", "transforms.route.replacement": "$1-$2",
        "transforms.ins.type": "org.apache.kafka.connect.transforms.InsertField$Value",
        "transforms.ins.static.field": "origin", "transforms.ins.static.value": "cdc",
        "transforms.ins.topic.field": "topic!", "transforms.ins.predicate": "tomb", "transforms.ins.negate": "true",
        "transforms.skip.type": "org.apache.kafka.connect.transforms.Filter", "transforms.skip.predicate": "hb",
        "predicates": "tomb,hb",
        "predicates.tomb.type": "org.apache.kafka.connect.transforms.predicates.RecordIsTombstone",
        "predicates.hb.type": "org.apache.kafka.connect.transforms.predicates.TopicNameMatches",
        "predicates.hb.pattern": "__debezium-heartbeat.*"})
    out = emitted(enc)
    create, tombstone, ddl, heartbeat = out[0], out[5], out[7], out[10]
    assert create[0] == "inventory-customers"
    assert create[2]["schema"]["fields"][-2:] == [{"type": "string", "optional": False, "field": "topic"},
                                                  {"type": "string", "optional": True, "field": "origin"}]
    assert create[2]["payload"]["topic"] == "inventory-customers" and create[2]["payload"]["origin"] == "cdc"
    assert tombstone[2] is None and tombstone[0] == "inventory-customers"
    assert ddl[2]["payload"]["origin"] == "cdc"  # schema changes pass through the chain too
    assert heartbeat is None


def test_replace_field_renames_key_fields() -> None:
    enc = encoder(**{"transforms": "rf", "transforms.rf.type": "org.apache.kafka.connect.transforms.ReplaceField$Key",
                     "transforms.rf.renames": "id:key_id"})
    create = emitted(enc)[0]
    assert create[1]["payload"] == {"key_id": 1001}
    assert create[1]["schema"]["name"] == "dbserver1.inventory.customers.Key"


@pytest.mark.parametrize("java, python", [("$1.x", r"\g<1>.x"), ("${a}-$12", r"\g<a>-\g<12>"), (r"\$1", "$1")])
def test_java_replacements(java: str, python: str) -> None:
    assert java_replacement(java) == python


def test_a_record_a_transform_refuses_stops_with_position_table_and_fix() -> None:
    from connector.errors import TransformError

    enc = encoder(transforms="c", **{"transforms.c.type": "org.apache.kafka.connect.transforms.Cast$Value",
                                     "transforms.c.spec": "op:int32"})
    create = fresh_records()[0]
    with pytest.raises(TransformError) as info:
        enc.encode(create)
    text = str(info.value)
    assert "For input string: 'c'" in text and "at mysql-bin.000003:1234 table inventory.customers" in text
    assert "Fix: change the transforms" in text and "\n" not in text
