"""One record of every kind (and every data op, keyless tables included), shared by the record-kind and
encoder tests."""

from __future__ import annotations

from connector.config.modes import Operation
from connector.events import records
from connector.events.envelope import TxBlock
from connector.events.kinds import (
    DataChange,
    HeartbeatRecord,
    LogicalRecord,
    SchemaChangeRecord,
    Tombstone,
    TransactionRecord,
)
from connector.events.source_info import SnapshotMarker, SourceInfo
from connector.events.table_schema import TableSchema, TableSchemaBuilder
from schema_history.model import Column, Table, TableId

TABLE = Table(
    TableId("inventory", "customers"),
    (Column("id", 1, 4, "INT", "INT", optional=False), Column("name", 2, 12, "VARCHAR", "VARCHAR", length=20),
     Column("note", 3, 12, "VARCHAR", "VARCHAR")),
    primary_key_column_names=("id",),
)
KEYLESS = Table(TableId("inventory", "log"), (Column("line", 1, 12, "VARCHAR", "VARCHAR"),))
SOURCE = SourceInfo(name="dbserver1", ts_ns=1_700_000_000_123_456_789, db="inventory", table="customers",
                    server_id=223344, file="mysql-bin.000003", pos=1234, row=1, thread=7)
CONTEXT = records.context_headers("dbserver1", "run-1")


def _schema(table: Table, schemas: bool) -> TableSchema:
    return TableSchemaBuilder("dbserver1", schemas_enable=schemas).build(table)


def sample_records(schemas: bool) -> list[LogicalRecord]:
    ts, keyless = _schema(TABLE, schemas), _schema(KEYLESS, schemas)
    topic = "dbserver1.inventory.customers"
    before, after = [1001, "Sally", None], [1001, "Sal", "x\u0001\"y"]
    change = records.SchemaChange(SOURCE.with_(snapshot=SnapshotMarker.LAST), 1_700_000_000_000, "inventory",
                                  "CREATE TABLE customers (id INT PRIMARY KEY)",
                                  (records.TableChangeEntry("CREATE", TABLE.id, TABLE),))
    return [
        DataChange(ts, topic, Operation.CREATE, None, after, after, SOURCE, None, 5_000_000_123, CONTEXT),
        DataChange(ts, topic, Operation.UPDATE, before, after, after, SOURCE, TxBlock("tx:1", 3, 2), 9, CONTEXT),
        DataChange(ts, topic, Operation.DELETE, before, None, before, SOURCE, None, 9, CONTEXT),
        DataChange(ts, topic, Operation.READ, None, after, after, SOURCE.with_(snapshot=SnapshotMarker.TRUE), None,
                   9, CONTEXT),
        DataChange(keyless, "dbserver1.inventory.log", Operation.CREATE, None, ["l"], ["l"], SOURCE, None, 9, []),
        Tombstone(ts, topic, before, CONTEXT),
        DataChange(ts, topic, Operation.TRUNCATE, None, None, None, SOURCE, None, 9, CONTEXT),
        SchemaChangeRecord(change, "dbserver1", CONTEXT),
        TransactionRecord("tx:1", 1_700_000_000_000, "dbserver1.transaction"),
        TransactionRecord("tx:1", 1_700_000_000_000, "dbserver1.transaction",
                          {"inventory.customers": 2, "inventory.orders": 1}),
        HeartbeatRecord("dbserver1", 1_700_000_000_000, "__debezium-heartbeat.dbserver1"),
    ]
