"""Reading the reference harness's golden output: raw JsonConverter bytes of each record, and the
`Table` versions described by its schema history (built with schema_history.table_json)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from connector.events.source_info import SnapshotMarker, SourceInfo
from connector.events.envelope import TxBlock
from schema_history.model import Table, TableId
from schema_history.table_json import table_from_history_json
from tests.support.shared import REFERENCE_EXPECTED

REFERENCE = REFERENCE_EXPECTED
_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class GoldenRecord:
    seq: int
    topic: str
    key_raw: str | None
    value_raw: str | None
    headers: list[tuple[str, str]]
    key: Any
    value: Any


def _raw_value(line: str, name: str, start: int) -> tuple[str, int]:
    marker = f'"{name}":'
    at = line.index(marker, start) + len(marker)
    _, end = _DECODER.raw_decode(line, at)
    return line[at:end], end


def parse_line(line: str) -> GoldenRecord:
    doc = json.loads(line)
    key_raw, pos = _raw_value(line, "key", line.index('"kafkaPartition":'))
    value_raw, pos = _raw_value(line, "value", pos)
    headers = []
    pos = line.index('"headers":[', pos) + len('"headers":[')
    for h in doc["headers"]:
        name_raw, pos = _raw_value(line, "key", pos)
        raw, pos = _raw_value(line, "value", pos)
        headers.append((json.loads(name_raw), raw))
    return GoldenRecord(
        doc["seq"], doc["topic"],
        None if key_raw == "null" else key_raw,
        None if value_raw == "null" else value_raw,
        headers, doc["key"], doc["value"],
    )


def _dir(flavour: str | Path) -> Path:
    return flavour if isinstance(flavour, Path) else REFERENCE / flavour


def load_records(flavour: str | Path) -> list[GoldenRecord]:
    path = _dir(flavour) / "events.jsonl"
    return [parse_line(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def table_versions(flavour: str | Path) -> list[Table]:
    """Every CREATE/ALTER table definition in the schema history, in order."""
    out = []
    for line in (_dir(flavour) / "schema_history.jsonl").read_text(encoding="utf-8").splitlines():
        doc = json.loads(line)
        for change in doc.get("tableChanges") or []:
            if change.get("table") is not None:
                out.append(table_from_history_json(TableId.parse_identifier(change["id"]), change["table"],
                                                   change.get("comment")))
    return out


def table_for(record: GoldenRecord, versions: list[Table], builder=None) -> Table:
    """The table version whose (field-name-adjusted, column-filtered) columns match the row image."""
    payload = record.value["payload"]
    row = payload.get("after") or payload.get("before")
    _, db, table = record.topic.split(".", 2)
    if builder is None:
        return version_with_columns(versions, TableId(db, table), list(row))
    for t in reversed(versions):
        if t.id == TableId(db, table) and builder.build(t).value_schema.field_names() == list(row):
            return t
    raise LookupError(f"no table version of {db}.{table} renders fields {list(row)}")


def version_with_columns(versions: list[Table], table_id: TableId, columns: list[str]) -> Table:
    for t in reversed(versions):
        if t.id == table_id and t.column_names() == columns:
            return t
    raise LookupError(f"no table version of {table_id} with columns {columns}")



def source_from(payload: dict) -> SourceInfo:
    s = payload["source"]
    return SourceInfo(
        name=s["name"], ts_ns=s["ts_ns"],
        snapshot=None if s["snapshot"] in (None, "false") else SnapshotMarker(s["snapshot"]),
        db=s["db"], table=s["table"], server_id=s["server_id"], gtid=s["gtid"], file=s["file"],
        pos=s["pos"], row=s["row"], thread=s["thread"], query=s["query"], version=s["version"],
        connector=s["connector"], sequence=s["sequence"],
    )


def tx_from(payload: dict) -> TxBlock | None:
    t = payload.get("transaction")
    return None if t is None else TxBlock(t["id"], t["total_order"], t["data_collection_order"])


def payload_row(table_schema_fields, row: dict | None) -> list | None:
    """Golden JSON row → Connect values (bytes from base64, nested structs as lists), to test the
    writer without a server."""
    if row is None:
        return None
    return [_connect_value(f.schema, row[f.name]) for f in table_schema_fields]


def _connect_value(schema, value):
    import base64

    from connector.serde.connect_schema import Type

    if value is None:
        return None
    if schema.type is Type.BYTES:
        return base64.b64decode(value)
    if schema.type is Type.STRUCT:
        return [_connect_value(f.schema, value[f.name]) for f in schema.fields]
    if schema.type is Type.ARRAY:
        return [_connect_value(schema.items, v) for v in value]
    return value


def engine_settings(flavour: str | Path) -> dict[str, str]:
    """The reference run's engine.properties as a dict (only `key=value` lines)."""
    out = {}
    path = _dir(flavour) / "engine.properties"
    for line in path.read_text(encoding="utf-8").splitlines():
        if "=" in line and not line.lstrip().startswith("#"):
            k, _, v = line.partition("=")
            out[k.strip()] = v.strip().replace("\\\\", "\\")  # .properties escaping of backslashes
    return out


def value_settings(flavour: str | Path):
    """ValueSettings for the Debezium properties the reference run used."""
    from connector.config.modes import (
        BigIntUnsignedHandlingMode,
        BinaryHandlingMode,
        DecimalHandlingMode,
        TimePrecisionMode,
    )
    from connector.converters.base import ValueSettings

    props = engine_settings(flavour)
    return ValueSettings(
        decimal_mode=DecimalHandlingMode.parse("decimal.handling.mode", props.get("decimal.handling.mode", "precise")),
        time_precision_mode=TimePrecisionMode.parse(
            "time.precision.mode", props.get("time.precision.mode", "adaptive_time_microseconds")),
        bigint_unsigned_mode=BigIntUnsignedHandlingMode.parse(
            "bigint.unsigned.handling.mode", props.get("bigint.unsigned.handling.mode", "long")),
        binary_mode=BinaryHandlingMode.parse("binary.handling.mode", props.get("binary.handling.mode", "bytes")),
        include_schema_comments=props.get("include.schema.comments", "false") == "true",
    )


def schema_builder(flavour: str | Path, settings=None):
    """The TableSchemaBuilder matching the reference run's properties (modes, names, source types)."""
    from connector.config.modes import FieldNameAdjustmentMode, SchemaNameAdjustmentMode
    from connector.config.families import column_mappers
    from connector.converters.mappers import column_mapper_rules, mapper_lookup
    from connector.events.table_schema import TableSchemaBuilder, source_type_propagation

    props = engine_settings(flavour)

    def regexes(key: str) -> list[str]:
        return [r for r in props.get(key, "").split(",") if r]

    return TableSchemaBuilder(
        props.get("topic.prefix", "dbserver1"),
        settings if settings is not None else value_settings(flavour),
        propagate_source_type=source_type_propagation(regexes("column.propagate.source.type"),
                                                      regexes("datatype.propagate.source.type")),
        column_mapper=mapper_lookup(column_mapper_rules(column_mappers(props, []))),
        schema_name_mode=SchemaNameAdjustmentMode.parse(
            "schema.name.adjustment.mode", props.get("schema.name.adjustment.mode", "none")),
        field_name_mode=FieldNameAdjustmentMode.parse(
            "field.name.adjustment.mode", props.get("field.name.adjustment.mode", "none")),
    )
