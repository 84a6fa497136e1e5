"""The CloudEvents value format: how it is selected (Debezium Server and Connect names), which converter options
are refused by name, and the two `data` layouts (the goldens `xform_ce*` pin the default one byte for byte)."""
from __future__ import annotations

import json

import pytest

from connector.config.loaders import load_connect_json, load_server_properties
from connector.errors import ConfigError
from connector.serde.cloudevents import CloudEventsSide
from connector.serde.connect_schema import ConnectSchema, Type, struct

BASE = {"debezium.sink.type": "kafka", "debezium.source.connector.class": "io.debezium.connector.mysql.MySqlConnector",
        "debezium.source.topic.prefix": "dbserver1", "debezium.format.value": "cloudevents"}

_ROW = struct("s.db.t.Value", [("id", ConnectSchema(Type.INT32))], optional=True)
_SOURCE = struct("io.debezium.connector.mysql.Source", [
    ("connector", ConnectSchema(Type.STRING)), ("name", ConnectSchema(Type.STRING)),
    ("ts_ms", ConnectSchema(Type.INT64)), ("snapshot", ConnectSchema(Type.STRING, optional=True, default="false")),
    ("file", ConnectSchema(Type.STRING)), ("pos", ConnectSchema(Type.INT64)),
    ("row", ConnectSchema(Type.INT32))])
_ENVELOPE = struct("s.db.t.Envelope", [("before", _ROW), ("after", _ROW), ("source", _SOURCE),
                                       ("op", ConnectSchema(Type.STRING))])
_VALUE = [None, [7], ["mysql", "s", 1704164645678, None, "bin.000001", 1234, 0], "c"]


def test_server_and_connect_names_select_it_with_its_options() -> None:
    kafka = load_server_properties({**BASE, "debezium.format.value.json.schemas.enable": "false",
                                    "debezium.format.value.extension.attributes.enable": "false"}).kafka
    assert (kafka.value_format, kafka.value_schemas_enable, kafka.value_cloudevents_extensions) == (
        "cloudevents", False, False)
    connect = load_connect_json({"name": "c", "config": {
        "connector.class": "io.debezium.connector.mysql.MySqlConnector", "topic.prefix": "dbserver1",
        "value.converter": "io.debezium.converters.CloudEventsConverter"}}, "localhost:9092", {})
    assert (connect.kafka.value_format, connect.kafka.value_schemas_enable) == ("cloudevents", True)


@pytest.mark.parametrize("extra, message", [
    ({"debezium.format.value.serializer.type": "avro"}, "serializer.type=avro: binlog-cdc implements only"),
    ({"debezium.format.value.schemas.enable": "false"}, "set debezium.format.value.json.schemas.enable"),
    ({"debezium.format.value.opentelemetry.tracing.attributes.enable": "true"}, "opentelemetry"),
    ({"debezium.format.value.foo": "1"}, "CloudEvents converter property foo is not implemented"),
    ({"debezium.format.key": "cloudevents"}, "debezium.format.key='cloudevents' is not supported"),
])
def test_what_is_not_implemented_is_refused_by_name(extra: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_server_properties({**BASE, **extra})


def test_event_attributes_and_both_data_layouts() -> None:
    with_schema = json.loads(CloudEventsSide().serialize("s.db.t", _ENVELOPE, _VALUE) or b"")
    assert list(with_schema)[:6] == ["id", "source", "specversion", "type", "time", "datacontenttype"]
    assert (with_schema["id"], with_schema["time"], with_schema["iodebeziumtsms"], with_schema["iodebeziumsnapshot"],
            with_schema["iodebeziumrow"], with_schema["iodebeziumtxid"]) == (
        "name:s;file:bin.000001;pos:1234", "2024-01-02T03:04:05.678Z", "1704164645678", "false", 0, None)
    assert with_schema["data"]["schema"]["name"] == "io.debezium.connector.mysql.Data"
    assert with_schema["data"]["payload"] == {"before": None, "after": {"id": 7}}
    plain = json.loads(CloudEventsSide(False, False).serialize("s.db.t", _ENVELOPE, _VALUE) or b"")
    assert list(plain) == ["id", "source", "specversion", "type", "time", "datacontenttype", "data"]
    assert plain["data"] == {"before": None, "after": {"id": 7}}
    assert CloudEventsSide().serialize("dbserver1", struct("x.SchemaChangeValue", []), []) is None
