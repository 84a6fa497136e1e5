"""Connect schema → the proto3 schema Confluent's ProtobufConverter 7.0.16 registers, and its message model.

ProtobufData.fromConnectSchema builds one proto3 file per Connect struct: the package is the Connect name's
namespace, the top-level message its last part, and every struct field a nested message named after the field's
Connect schema name (last part; `Message` appended when it equals the field's name), defined once per parent
(Debezium's `before`/`after` share one `Value`). Field numbers count from 1 in field order; labels are plain
(`optional.for.nullables=false`) or `repeated` for arrays; nullable fields are plain scalars
(`wrapper.for.nullables=false`), so a null and a zero are the same on the wire. Connect's logical types become
Confluent's and Google's well-known messages; int8/int16 and a decimal's precision/scale ride in the
`(confluent.field_meta)` option. Defaults are dropped (proto3 has none) and docs are not carried.

The text is ProtobufSchemaUtils.toString (non-normalised) of that file, byte for byte: it is what the registry
stores and hands back, and the id depends on it. Maps and the converter's own round-trip parameters
(`io.confluent.connect.protobuf.*`, only on schemas ProtobufConverter itself produced) are refused with a
DataError naming them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from connector.serde.connect_schema import DECIMAL_NAME, ConnectSchema, Type
from connector.serde.json_values import DataError

__all__ = ["DATE_NAME", "TIME_NAME", "TIMESTAMP_NAME", "ProtoField", "ProtoFile", "ProtoMessage", "proto_file"]

DATE_NAME = "org.apache.kafka.connect.data.Date"
TIME_NAME = "org.apache.kafka.connect.data.Time"
TIMESTAMP_NAME = "org.apache.kafka.connect.data.Timestamp"
_DEFAULT_NAME = "ConnectDefault"  # ProtobufData.DEFAULT_SCHEMA_NAME, numbered per schema translation
_OWN_PARAMETERS = "io.confluent.connect.protobuf."
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

# logical Connect name → (proto type, the file it is imported from)
_WELL_KNOWN = {
    DECIMAL_NAME: ("confluent.type.Decimal", "confluent/type/decimal.proto"),
    DATE_NAME: ("google.type.Date", "google/type/date.proto"),
    TIME_NAME: ("google.type.TimeOfDay", "google/type/timeofday.proto"),
    TIMESTAMP_NAME: ("google.protobuf.Timestamp", "google/protobuf/timestamp.proto"),
}
_SCALAR = {Type.INT8: "int32", Type.INT16: "int32", Type.INT32: "int32", Type.INT64: "int64", Type.FLOAT32: "float",
           Type.FLOAT64: "double", Type.BOOLEAN: "bool", Type.STRING: "string", Type.BYTES: "bytes"}


@dataclass(frozen=True)
class ProtoField:
    name: str
    number: int
    type: str  # as written in the schema: "int32", "Value", "confluent.type.Decimal"
    schema: ConnectSchema  # the element's Connect schema (an array's items)
    repeated: bool = False
    params: tuple[tuple[str, str], ...] = ()  # (confluent.field_meta) params, in ProtobufData's order
    message: "ProtoMessage | None" = None  # a struct field's message


@dataclass
class ProtoMessage:
    name: str
    fields: list[ProtoField] = field(default_factory=list)
    nested: list["ProtoMessage"] = field(default_factory=list)


@dataclass(frozen=True)
class ProtoFile:
    package: str | None
    imports: tuple[str, ...]
    root: ProtoMessage

    @property
    def text(self) -> str:
        """ProtobufSchemaUtils.toString of the file (what the registry stores)."""
        out = 'syntax = "proto3";\n'
        if self.package is not None:
            out += f"package {self.package};\n"
        if self.imports:
            out += "\n" + "".join(f'import "{i}";\n' for i in self.imports)
        return out + "\n" + _message_text(self.root)


# ---------------------------------------------------------------- text
def _indented(text: str) -> str:
    # Java's String.split drops trailing empty strings; an inner blank line becomes the indent alone
    lines = text.split("\n")
    while len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return "".join("  " + line + "\n" for line in lines)


def _escape(text: str) -> str:
    table = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v",
             "\\": "\\\\", "'": "\\'", '"': '\\"'}
    return "".join(table.get(c, c) for c in text)


def _param_text(key: str, value: str) -> str:
    # ProtobufSchema.toOption writes a decimal's precision and scale value-first ("for backward compatibility")
    pairs = [("value", value), ("key", key)] if key in ("precision", "scale") else [("key", key), ("value", value)]
    body = ",\n".join(f'{k}: "{_escape(v)}"' for k, v in pairs)
    return "{\n" + _indented(body) + "}"


def _field_text(f: ProtoField) -> str:
    out = ("repeated " if f.repeated else "") + f"{f.type} {f.name} = {f.number}"
    if f.params:
        items = [_param_text(k, v) for k, v in f.params]
        params = "[\n" + "".join(_indented(item + ("," if i < len(items) - 1 else "")) for i, item in enumerate(items))
        option = "(confluent.field_meta) = {\n" + _indented("params: " + params + "]") + "}"
        out += " [" + option + "]"
    return out + ";\n"


def _message_text(m: ProtoMessage) -> str:
    out = f"message {m.name} {{"
    if m.fields:
        out += "\n" + "".join(_indented(_field_text(f)) for f in m.fields)
    if m.nested:
        out += "\n" + "".join(_indented(_message_text(n)) for n in m.nested)
    return out + "}\n"


# ---------------------------------------------------------------- translation
@dataclass
class _Context:
    """ProtobufData's FromConnectContext: the counter of unnamed schemas and the messages defined per parent."""

    unnamed: int = 0
    defined: dict[int, set[str]] = field(default_factory=dict)
    imports: list[str] = field(default_factory=list)

    def name_or_default(self, name: str | None) -> str:
        if name:
            return name
        self.unnamed += 1
        return f"{_DEFAULT_NAME}{self.unnamed}"

    def unqualified(self, name: str | None) -> str:
        return self.name_or_default(name).rsplit(".", 1)[-1]


def _check(schema: ConnectSchema, where: str) -> None:
    for key, _ in schema.parameters:
        if key.startswith(_OWN_PARAMETERS):
            raise DataError(f"{where}: Connect parameter {key} (a ProtobufConverter round-trip hint) is not "
                            f"implemented by binlog-cdc's ProtobufConverter")


def _identifier(name: str, scope: str) -> str:
    # protobuf-java's descriptor validation; ProtobufConverter fails the record (scrub.invalid.names=false)
    if not _IDENTIFIER.fullmatch(name):
        raise DataError(f'{scope}.{name}: "{name}" is not a valid identifier (ProtobufConverter keeps Connect names '
                        f"as they are; set field.name.adjustment.mode / schema.name.adjustment.mode=avro)")
    return name


def _field(ctx: _Context, parent: ProtoMessage, schema: ConnectSchema, name: str, number: int) -> ProtoField:
    _identifier(name, parent.name)
    _check(schema, name)
    repeated = schema.type is Type.ARRAY
    if repeated:
        assert schema.items is not None
        schema = schema.items
        _check(schema, name)
        if schema.type is Type.ARRAY:
            raise DataError(f"field {name}: an array of arrays cannot be written by ProtobufConverter "
                            f"(Array cannot be nested)")
    if schema.type is Type.MAP:
        raise DataError(f"field {name}: Connect maps are not implemented by binlog-cdc's ProtobufConverter")
    logical = _WELL_KNOWN.get(schema.name or "")
    if logical is not None:
        type_name, location = logical
        params: tuple[tuple[str, str], ...] = ()
        if schema.name == DECIMAL_NAME:
            precision, scale = schema.parameter("connect.decimal.precision"), schema.parameter("scale")
            params = tuple((k, v) for k, v in (("precision", precision), ("scale", scale)) if v is not None)
        if location not in ctx.imports:
            ctx.imports.append(location)
        return ProtoField(name, number, type_name, schema, repeated, params)
    if schema.type is Type.STRUCT:
        type_name = _identifier(ctx.unqualified(schema.name), parent.name)
        if type_name == name:  # a message type and a field may not share a name
            type_name += "Message"
        defined = ctx.defined.setdefault(id(parent), set())
        message = None
        if type_name != parent.name and type_name not in defined:
            defined.add(type_name)
            message = _message(ctx, type_name, schema)
            parent.nested.append(message)
        else:  # the parent itself, or a sibling defined earlier (ProtobufData keeps the first definition)
            message = parent if type_name == parent.name else next(n for n in parent.nested if n.name == type_name)
        return ProtoField(name, number, type_name, schema, repeated, (), message)
    params = (("connect.type", schema.type.value),) if schema.type in (Type.INT8, Type.INT16) else ()
    return ProtoField(name, number, _SCALAR[schema.type], schema, repeated, params)


def _message(ctx: _Context, name: str, schema: ConnectSchema) -> ProtoMessage:
    message = ProtoMessage(name)
    for number, f in enumerate(schema.fields, start=1):
        message.fields.append(_field(ctx, message, f.schema, f.name, number))
    return message


def proto_file(schema: ConnectSchema) -> ProtoFile:
    """The proto3 file ProtobufConverter writes for a Connect struct schema (DataError for what it cannot)."""
    if schema.type is not Type.STRUCT:
        raise DataError(f"a {schema.type.value} key or value (not a struct) is not implemented by binlog-cdc's "
                        f"ProtobufConverter")
    _check(schema, schema.name or "root")
    ctx = _Context()
    full_name = ctx.name_or_default(schema.name)
    for part in full_name.split("."):
        _identifier(part, full_name)
    package, _, name = full_name.rpartition(".")
    root = _message(ctx, name, schema)
    return ProtoFile(package or None, tuple(ctx.imports), root)
