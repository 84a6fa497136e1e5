"""Debezium's `CloudEventsConverter` as the value converter (`debezium.format.value=cloudevents`, Connect
`value.converter=io.debezium.converters.CloudEventsConverter`) with JSON events and JSON data, the defaults.

As Debezium 3.6.3's (goldens `xform_ce`, `xform_ce-mysql`, recorded through the converter itself):
* only change events become CloudEvents; any other value (schema change, transaction, heartbeat, a transformed
  value that is no longer an Envelope) and tombstones are written as null;
* attributes in order: `id` (`name:<server>;file:<binlog>;pos:<pos>`), `source` (`/debezium/mysql/<server>`),
  `specversion` 1.0, `type`, `time` (source `ts_ms`, `yyyy-MM-dd'T'HH:mm:ss.SSSXXX` UTC), `datacontenttype`,
  then with `extension.attributes.enable` (default) `iodebeziumop`, every source field as `iodebezium<name>`
  (letters and digits only; INT64 as a string) and the transaction block as `iodebeziumtx<name>`, then `data`;
* `data` is the struct `io.debezium.connector.mysql.Data` of `before` and `after`, with its schema unless
  `json.schemas.enable=false`; the event itself never carries a schema.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from connector.serde.connect_schema import ConnectSchema, Field, Type
from connector.serde.json_converter import JsonConverter

__all__ = ["CloudEventsSide"]

_STRING = ConnectSchema(Type.STRING)
_OPT_STRING = ConnectSchema(Type.STRING, optional=True)
_TX_FIELDS = ("id", "total_order", "data_collection_order")  # TransactionMonitor.TRANSACTION_BLOCK_SCHEMA
_EPOCH = dt.datetime(1970, 1, 1)

def _extension_name(name: str) -> str:
    return "iodebezium" + "".join(c for c in name if c.isascii() and c.isalnum())


def _extension_schema(schema: ConnectSchema, always_optional: bool) -> ConnectSchema:
    if schema.type is Type.BOOLEAN:
        kind = Type.BOOLEAN
    elif schema.type in (Type.INT8, Type.INT16, Type.INT32):
        kind = Type.INT32
    elif schema.type in (Type.STRING, Type.INT64):
        kind = Type.STRING
    else:
        raise ValueError(f"CloudEvents: source field of type {schema.type.value} cannot be converted into a "
                         "CloudEvents extension attribute")
    return ConnectSchema(kind, optional=always_optional or schema.optional)


def _extension_value(schema: ConnectSchema, value: Any) -> Any:
    return str(value) if schema.type is Type.INT64 and value is not None else value


@dataclass(frozen=True)
class _Plan:
    event: ConnectSchema  # the CloudEvent, `data` last
    data: ConnectSchema
    before: int
    after: int
    source: int
    op: int
    transaction: int | None
    source_schema: ConnectSchema


def _row(schema: ConnectSchema, value: Any) -> Sequence[Any]:
    if isinstance(value, Mapping):
        return [value.get(f.name) for f in schema.fields]
    return value


def _index(schema: ConnectSchema, name: str) -> int | None:
    return next((i for i, f in enumerate(schema.fields) if f.name == name), None)


class CloudEventsSide:
    """The value side of a run whose values are CloudEvents (JSON event, JSON data)."""

    def __init__(self, data_schemas_enable: bool = True, extension_attributes: bool = True) -> None:
        self._data_schemas = data_schemas_enable
        self._extensions = extension_attributes
        self._event_json = JsonConverter(False)
        self._data_json = JsonConverter(data_schemas_enable)
        self._plans: dict[int, tuple[ConnectSchema, _Plan]] = {}

    def _plan(self, schema: ConnectSchema, connector: str) -> _Plan:
        hit = self._plans.get(id(schema))
        if hit is not None and hit[0] is schema:
            return hit[1]
        before, after, source, op = (_index(schema, n) for n in ("before", "after", "source", "op"))
        if before is None or after is None or source is None or op is None:
            raise ValueError(f"CloudEvents: {schema.name} lacks before/after/source/op")
        tx = _index(schema, "transaction")
        source_schema = schema.fields[source].schema
        data = ConnectSchema(Type.STRUCT, name=f"io.debezium.connector.{connector}.Data",
                             fields=(schema.fields[before], schema.fields[after]))
        fields = [Field(n, _STRING) for n in ("id", "source", "specversion", "type", "time", "datacontenttype")]
        if self._extensions:
            fields.append(Field(_extension_name("op"), _STRING))
            fields += [Field(_extension_name(f.name), _extension_schema(f.schema, False)) for f in source_schema.fields]
            fields += [Field(_extension_name("tx" + n), _OPT_STRING if n == "id" else _extension_schema(
                ConnectSchema(Type.INT64), True)) for n in _TX_FIELDS]
        dummy = ConnectSchema(Type.STRUCT, fields=())
        fields.append(Field("data", data if not self._data_schemas else dummy))
        plan = _Plan(ConnectSchema(Type.STRUCT, fields=tuple(fields)), data, before, after, source, op, tx,
                     source_schema)
        self._plans[id(schema)] = (schema, plan)
        return plan

    def serialize(self, topic: str, schema: ConnectSchema | None, value: Any) -> bytes | None:
        if schema is None or value is None or not schema.name or not schema.name.endswith(".Envelope"):
            return None  # Debezium: "Handling of non-data messages like schema change ..." is not done
        if schema.type is not Type.STRUCT:
            raise ValueError("CloudEvents: Mismatching schema")
        envelope = _row(schema, value)
        source_i = _index(schema, "source")
        if source_i is None or envelope[source_i] is None:
            raise ValueError(f"CloudEvents: the change event on {topic} has no source block")
        source_schema = schema.fields[source_i].schema
        source = dict(zip((f.name for f in source_schema.fields), _row(source_schema, envelope[source_i])))
        connector = source.get("connector")
        if connector != "mysql":
            raise ValueError(f'CloudEvents: No usable CloudEvents converters for connector type "{connector}"')
        plan = self._plan(schema, connector)
        ts = _EPOCH + dt.timedelta(milliseconds=int(source["ts_ms"]))
        time = ts.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ts.microsecond // 1000:03d}Z"
        row: list[Any] = [f"name:{_java(source.get('name'))};file:{_java(source.get('file'))};"
                          f"pos:{_java(source.get('pos'))}",
                          f"/debezium/{connector}/{source.get('name')}", "1.0",
                          f"io.debezium.connector.{connector}.DataChangeEvent", time, "application/json"]
        if self._extensions:
            row.append(envelope[plan.op])
            # Struct.get: a null field with a default (streaming `snapshot`) reads as the default
            row += [_extension_value(f.schema, f.schema.default if source[f.name] is None and f.schema.has_default
                                     else source[f.name]) for f in plan.source_schema.fields]
            tx = envelope[plan.transaction] if plan.transaction is not None else None
            tx_schema = schema.fields[plan.transaction].schema if plan.transaction is not None else None
            tx_values = dict(zip((f.name for f in tx_schema.fields), _row(tx_schema, tx))) if tx is not None and \
                tx_schema is not None else {}
            row += [_extension_value(ConnectSchema(Type.INT64) if n != "id" else _STRING, tx_values.get(n))
                    for n in _TX_FIELDS]
        data = [envelope[plan.before], envelope[plan.after]]
        if not self._data_schemas:
            row.append(data)
            return self._event_json.to_bytes(plan.event, row)
        row.append([])
        event = self._event_json.to_text(plan.event, row)
        data_text = self._data_json.to_text(plan.data, data)
        assert event is not None and data_text is not None and event.endswith("{}}")
        # Debezium writes the event with an empty `data` and splices the data's schema+payload document in
        return (event[:-3] + data_text + "}").encode("utf-8")


def _java(value: Any) -> str:
    """String concatenation in Java: null is "null"."""
    return "null" if value is None else str(value)
