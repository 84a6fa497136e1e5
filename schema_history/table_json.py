"""Tables to and from Debezium's JSON `tableChanges` form (the history-record form, §d7).

The history-record form (`JsonTableChangeSerializer`) differs from the Connect form used in schema
change events (`ConnectTableChangeSerializer`, §d6): key order, `hasDefaultValue`, `attributes` and
where `comment` sits. Both are produced from the same `Table` here so they cannot drift apart.
"""

from __future__ import annotations

from typing import Any

from schema_history.model import Column, Table, TableId


def column_to_history_json(col: Column) -> dict[str, Any]:
    """Key order and omissions exactly as Debezium's `JsonTableChangeSerializer.toDocument(Column)`."""
    doc: dict[str, Any] = {"name": col.name, "jdbcType": col.jdbc_type}
    if col.native_type is not None:
        doc["nativeType"] = col.native_type
    doc["typeName"] = col.type_name
    doc["typeExpression"] = col.type_expression
    doc["charsetName"] = col.charset_name
    if col.length is not None:
        doc["length"] = col.length
    if col.scale is not None:
        doc["scale"] = col.scale
    doc["position"] = col.position
    doc["optional"] = col.optional
    doc["autoIncremented"] = col.auto_incremented
    doc["generated"] = col.generated
    doc["comment"] = col.comment
    doc["hasDefaultValue"] = col.has_default_value
    if col.default_value_expression is not None:
        doc["defaultValueExpression"] = col.default_value_expression
    doc["enumValues"] = list(col.enum_values)
    return doc


def table_to_history_json(table: Table) -> dict[str, Any]:
    return {
        "defaultCharsetName": table.default_charset_name,
        "primaryKeyColumnNames": list(table.primary_key_column_names),
        "columns": [column_to_history_json(c) for c in table.columns],
        "attributes": [{"name": n, "value": v} for n, v in table.attributes],
    }


def column_from_history_json(doc: dict[str, Any]) -> Column:
    return Column(
        name=doc["name"],
        position=int(doc["position"]),
        jdbc_type=int(doc["jdbcType"]),
        native_type=doc.get("nativeType"),
        type_name=doc["typeName"],
        type_expression=doc.get("typeExpression") or doc["typeName"],
        charset_name=doc.get("charsetName"),
        length=doc.get("length"),
        scale=doc.get("scale"),
        optional=bool(doc.get("optional", True)),
        auto_incremented=bool(doc.get("autoIncremented", False)),
        generated=bool(doc.get("generated", False)),
        comment=doc.get("comment"),
        has_default_value=bool(doc.get("hasDefaultValue", doc.get("defaultValueExpression") is not None)),
        default_value_expression=doc.get("defaultValueExpression"),
        enum_values=tuple(doc.get("enumValues") or ()),
    )


def table_from_history_json(table_id: TableId, doc: dict[str, Any], comment: str | None = None) -> Table:
    """Build a `Table` from a history-record `table` object (as Debezium 3.6 writes it)."""
    attrs = tuple((a["name"], a["value"]) for a in doc.get("attributes") or ())
    return Table(
        id=table_id,
        columns=tuple(column_from_history_json(c) for c in doc.get("columns", [])),
        primary_key_column_names=tuple(doc.get("primaryKeyColumnNames") or ()),
        default_charset_name=doc.get("defaultCharsetName"),
        comment=comment if comment is not None else doc.get("comment"),
        attributes=attrs,
    )
