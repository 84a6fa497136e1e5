"""History record JSON: compact (file) and Jackson DefaultPrettyPrinter (Kafka topic) forms."""

from __future__ import annotations

from schema_history.changes import SchemaChange, TableChange, TableChangeType
from schema_history.ddl.parser import apply_ddl
from schema_history.model import TableId
from schema_history.record import HistoryRecord, to_compact_json, to_pretty_json
from schema_history.state import SchemaState

EXPECTED_PRETTY = """{
  "source" : {
    "server" : "dbserver1"
  },
  "position" : {
    "ts_sec" : 1795213760,
    "file" : "mariadb-bin.000001",
    "pos" : 7726,
    "server_id" : 1
  },
  "ts_ms" : 1795213761000,
  "databaseName" : "db1",
  "ddl" : "CREATE TABLE t (id INT PRIMARY KEY, e ENUM('a'))",
  "tableChanges" : [ {
    "type" : "CREATE",
    "id" : "\\"db1\\".\\"t\\"",
    "table" : {
      "defaultCharsetName" : "utf8mb4",
      "primaryKeyColumnNames" : [ "id" ],
      "columns" : [ {
        "name" : "id",
        "jdbcType" : 4,
        "typeName" : "INT",
        "typeExpression" : "INT",
        "charsetName" : null,
        "position" : 1,
        "optional" : false,
        "autoIncremented" : false,
        "generated" : false,
        "comment" : null,
        "hasDefaultValue" : false,
        "enumValues" : [ ]
      }, {
        "name" : "e",
        "jdbcType" : 1,
        "typeName" : "ENUM",
        "typeExpression" : "ENUM",
        "charsetName" : "utf8mb4",
        "length" : 1,
        "position" : 2,
        "optional" : true,
        "autoIncremented" : false,
        "generated" : false,
        "comment" : null,
        "hasDefaultValue" : true,
        "enumValues" : [ "'a'" ]
      } ],
      "attributes" : [ ]
    },
    "comment" : null
  } ]
}"""


def _record() -> HistoryRecord:
    state = SchemaState()
    apply_ddl(state, "CREATE DATABASE db1 CHARSET utf8mb4", None)
    change = apply_ddl(state, "CREATE TABLE t (id INT PRIMARY KEY, e ENUM('a'))", "db1")[0]
    position = {"ts_sec": 1795213760, "file": "mariadb-bin.000001", "pos": 7726, "server_id": 1}
    return HistoryRecord.of(change, {"server": "dbserver1"}, position, 1795213761000)


def test_pretty_form_is_jackson_default_pretty_printer() -> None:
    assert _record().to_pretty_json() == EXPECTED_PRETTY


def test_pretty_and_compact_parse_back_to_the_same_record() -> None:
    record = _record()
    assert HistoryRecord.from_json(record.to_pretty_json()) == record
    assert HistoryRecord.from_json(record.to_compact_json()) == record
    assert HistoryRecord.from_json(record.to_pretty_json()).to_compact_json() == record.to_compact_json()


def test_database_level_record_has_empty_table_changes() -> None:
    change = SchemaChange(database_name="", ddl="SET character_set_server=utf8mb4, collation_server=utf8mb4_general_ci")
    record = HistoryRecord.of(change, {"server": "s"}, {"file": "f", "pos": 4}, 1)
    assert record.to_compact_json() == (
        '{"source":{"server":"s"},"position":{"file":"f","pos":4},"ts_ms":1,"databaseName":"",'
        '"ddl":"SET character_set_server=utf8mb4, collation_server=utf8mb4_general_ci","tableChanges":[]}')
    assert record.to_pretty_json().endswith('"tableChanges" : [ ]\n}')


def test_drop_and_rename_change_shapes() -> None:
    drop = TableChange(TableChangeType.DROP, TableId("db", "t"))
    assert to_compact_json(drop.to_history_json()) == '{"type":"DROP","id":"\\"db\\".\\"t\\""}'
    state = SchemaState()
    apply_ddl(state, "CREATE TABLE db.a (x INT)", "db")
    rename = apply_ddl(state, "RENAME TABLE a TO b", "db")[0].table_changes[0]
    assert list(rename.to_history_json()) == ["type", "id", "previousId", "table", "comment"]


def test_strings_are_escaped_like_jackson() -> None:
    assert to_compact_json({"k": 'a"b\\c\nd\te\x01 ü ☃'}) == '{"k":"a\\"b\\\\c\\nd\\te\\u0001 ü ☃"}'
    assert to_pretty_json({}) == "{ }"
    assert to_pretty_json({"a": [], "b": {}}) == '{\n  "a" : [ ],\n  "b" : { }\n}'
