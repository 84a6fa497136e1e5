"""Confluent AvroConverter output: Connect (schema, value) → magic byte, schema id, Avro binary.

Per Connect schema (looked up by identity: table schemas and the record-kind schemas live for the
whole run) we keep the registered text (`avro_schema.avro_schema_text`), a fastavro parsed schema and
a compiled datum converter. The schema id comes from the registry once per (subject, text).

The datum follows AvroData.fromConnectData: a struct field that is null takes its schema default
(Kafka `Struct.get`), Decimal is the unscaled two's-complement big-endian bytes, int8/int16 are ints.
Logical types are taken out of the schema handed to fastavro, so that it writes exactly the values
we give it (days, millis, unscaled bytes) without converting them again.
"""

from __future__ import annotations

import io
import json
import struct as _binary
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Protocol

import fastavro

from connector.config.registry import RegistryAccess
from connector.serde.avro_schema import avro_schema_text
from connector.serde.connect_schema import DECIMAL_NAME, ConnectSchema, Type
from connector.serde.json_converter import JsonConverter
from connector.serde.json_values import DataError, decimal_unscaled_bytes
from connector.serde.registered_side import RegisteredSide, SchemaRegistry

__all__ = ["AvroSide", "JsonSide", "RecordSerializer", "SideSerializer", "SchemaRegistry", "datum_converter",
           "record_serializer"]

Convert = Callable[[Any], Any]


class SideSerializer(Protocol):
    """Serialises one side (key or value) of records: what a Kafka Connect converter does."""

    def serialize(self, topic: str, schema: ConnectSchema | None, value: Any) -> bytes | None: ...


# ---------------------------------------------------------------- datum conversion
def _decimal(schema: ConnectSchema) -> Convert:
    scale = int(schema.parameter("scale") or 0)
    return lambda v: bytes(v) if isinstance(v, (bytes, bytearray)) else decimal_unscaled_bytes(v, scale)


def _struct(schema: ConnectSchema) -> Convert:
    names = [f.name for f in schema.fields]
    fields = [(f.name, datum_converter(f.schema)) for f in schema.fields]

    def convert(value: Any) -> dict:
        if isinstance(value, Mapping):
            value = [value.get(n) for n in names]
        return {name: conv(v) for (name, conv), v in zip(fields, value)}

    return convert


def _array(schema: ConnectSchema) -> Convert:
    assert schema.items is not None
    item = datum_converter(schema.items)
    return lambda value: [item(v) for v in value]


def _map(schema: ConnectSchema) -> Convert:
    assert schema.values is not None
    val = datum_converter(schema.values)
    return lambda value: {str(k): val(v) for k, v in value.items()}


_PRIMITIVE: dict[Type, Convert] = {
    Type.INT8: int, Type.INT16: int, Type.INT32: int, Type.INT64: int, Type.FLOAT32: float, Type.FLOAT64: float,
    Type.BOOLEAN: bool, Type.STRING: str, Type.BYTES: bytes,
}
_COMPOSITE: dict[Type, Callable[[ConnectSchema], Convert]] = {Type.STRUCT: _struct, Type.ARRAY: _array,
                                                              Type.MAP: _map}


def datum_converter(schema: ConnectSchema) -> Convert:
    """Connect value (null included) → fastavro datum, with Connect's null → default → null/error rule."""
    if schema.name == DECIMAL_NAME:
        convert = _decimal(schema)
    else:
        convert = _PRIMITIVE.get(schema.type) or _COMPOSITE[schema.type](schema)
    if schema.has_default:
        default = convert(schema.default)
        return lambda v: default if v is None else convert(v)
    if schema.optional:
        return lambda v: None if v is None else convert(v)

    def required(v: Any) -> Any:
        if v is None:
            raise DataError(f"null value for a required field of type {schema.type.value} ({schema.name or ''})")
        return convert(v)

    return required


def _without_logical_types(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _without_logical_types(v) for k, v in node.items() if k != "logicalType"}
    if isinstance(node, list):
        return [_without_logical_types(v) for v in node]
    return node


@dataclass(frozen=True)
class _Encoder:
    text: str
    parsed: Any
    convert: Convert

    def encode(self, schema_id: int, value: Any) -> bytes:
        buf = io.BytesIO()
        buf.write(b"\x00" + _binary.pack(">I", schema_id))
        fastavro.schemaless_writer(buf, self.parsed, self.convert(value))
        return buf.getvalue()


def _encoder(schema: ConnectSchema) -> _Encoder:
    text = avro_schema_text(schema)
    parsed = fastavro.parse_schema(_without_logical_types(json.loads(text)), _write_hint=False)
    return _Encoder(text, parsed, datum_converter(schema))


class AvroSide(RegisteredSide):
    """One side's AvroConverter: TopicNameStrategy subjects `<topic>-key` / `<topic>-value`."""

    def __init__(self, registry: SchemaRegistry, is_key: bool) -> None:
        super().__init__(registry, is_key, _encoder, None)


@dataclass(frozen=True)
class JsonSide:
    """One side's JsonConverter (for a JSON key with an Avro value, or the reverse)."""

    schemas_enable: bool = True

    def serialize(self, topic: str, schema: ConnectSchema | None, value: Any) -> bytes | None:
        # JsonConverter.fromConnectData: only "no schema and no value" is a null record; a null value with a
        # schema (ExtractNewRecordState's delete in tombstone mode) is `{"schema":...,"payload":null}`
        if schema is None and value is None:
            return None
        return JsonConverter(self.schemas_enable).to_bytes(schema, value)


@dataclass(frozen=True)
class RecordSerializer:
    """Key and value converters of the run. Callers convert the key before the value, as Connect's
    `WorkerSourceTask` does: with a fresh registry the ids then come out as AvroConverter's."""

    key: SideSerializer
    value: SideSerializer


def _plain_side(fmt: str, schemas_enable: bool) -> SideSerializer:
    """A side that needs no registry: Kafka's StringConverter or JsonConverter."""
    if fmt == "string":
        from connector.serde.string_converter import StringSide

        return StringSide()
    return JsonSide(schemas_enable)


_REGISTRY_FORMATS = ("avro", "protobuf")  # the converters that register schemas with a Schema Registry


def record_serializer(key_format: str, value_format: str, *, key_registry_url: str | None = None,
                      value_registry_url: str | None = None, key_schemas_enable: bool = True,
                      value_schemas_enable: bool = True, key_access: RegistryAccess | None = None,
                      value_access: RegistryAccess | None = None,
                      value_cloudevents_extensions: bool = True) -> RecordSerializer | None:
    """The run's converters when either side is Avro, Protobuf or StringConverter, or the value CloudEvents; None
    when both are JSON (the callers' text fast path)."""
    if value_format == "cloudevents" and key_format not in _REGISTRY_FORMATS:
        from connector.serde.cloudevents import CloudEventsSide

        return RecordSerializer(_plain_side(key_format, key_schemas_enable),
                                CloudEventsSide(value_schemas_enable, value_cloudevents_extensions))
    if key_format not in _REGISTRY_FORMATS and value_format not in _REGISTRY_FORMATS:
        if "string" not in (key_format, value_format):
            return None
        return RecordSerializer(_plain_side(key_format, key_schemas_enable),
                                _plain_side(value_format, value_schemas_enable))
    from connector.serde.schema_registry import SchemaRegistryClient

    registries: dict[tuple[str, RegistryAccess], SchemaRegistryClient] = {}

    def side(fmt: str, url: str | None, schemas_enable: bool, is_key: bool,
             access: RegistryAccess | None) -> SideSerializer:
        if fmt not in _REGISTRY_FORMATS:
            return _plain_side(fmt, schemas_enable)
        assert url, "the configuration loader requires a schema registry url for avro and protobuf"
        access = access or RegistryAccess()
        if (url, access) not in registries:  # key and value share one client (and its cache) per registry
            registries[(url, access)] = SchemaRegistryClient.from_config(url, access)
        if fmt == "protobuf":
            from connector.serde.protobuf import ProtobufSide

            return ProtobufSide(registries[(url, access)], is_key)
        return AvroSide(registries[(url, access)], is_key)

    if value_format == "cloudevents":
        from connector.serde.cloudevents import CloudEventsSide

        return RecordSerializer(side(key_format, key_registry_url, key_schemas_enable, True, key_access),
                                CloudEventsSide(value_schemas_enable, value_cloudevents_extensions))

    return RecordSerializer(side(key_format, key_registry_url, key_schemas_enable, True, key_access),
                            side(value_format, value_registry_url, value_schemas_enable, False, value_access))
