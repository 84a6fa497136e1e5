"""Operations → planned records: plain changes, deletes with tombstones, and primary-key changes."""

from __future__ import annotations

from connector.config.modes import Operation
from connector.events.envelope import NEWKEY_HEADER, OLDKEY_HEADER, plan_row, split_update


def test_update_without_key_change_is_one_u() -> None:
    [event] = split_update([1, "a"], [1, "b"], (1,), (1,))
    assert event.op is Operation.UPDATE and event.key_of == [1, "b"] and event.headers == ()


def test_update_of_table_without_key_is_one_u() -> None:
    [event] = split_update([1], [2], None, None)
    assert event.op is Operation.UPDATE


def test_key_change_is_delete_tombstone_create_with_key_headers() -> None:
    delete, create = split_update([1003, "x"], [2003, "x"], (1003,), (2003,))
    assert (delete.op, delete.before, delete.after, delete.key_of) == (Operation.DELETE, [1003, "x"], None, [1003, "x"])
    assert delete.tombstone and delete.headers == ((NEWKEY_HEADER, (2003,)),)
    assert (create.op, create.before, create.after, create.key_of) == (Operation.CREATE, None, [2003, "x"], [2003, "x"])
    assert not create.tombstone and create.headers == ((OLDKEY_HEADER, (1003,)),)


def test_tombstones_on_delete_switch() -> None:
    [event] = plan_row(Operation.DELETE, [1], None, (1,), None, tombstones_on_delete=False)
    assert not event.tombstone
    [event] = plan_row(Operation.DELETE, [1], None, (1,), None)
    assert event.tombstone and event.key_of == [1]
    delete, _ = plan_row(Operation.UPDATE, [1], [2], (1,), (2,), tombstones_on_delete=False)
    assert not delete.tombstone


def test_create_and_read() -> None:
    for op in (Operation.CREATE, Operation.READ):
        [event] = plan_row(op, None, [5], None, (5,))
        assert (event.op, event.before, event.after, event.key_of) == (op, None, [5], [5])


def test_column_filter_drops_value_columns_but_keeps_the_key() -> None:
    from connector.events.source_info import SourceInfo
    from connector.events.table_schema import TableSchemaBuilder
    from schema_history.model import Column, Table, TableId

    table = Table(
        TableId("db", "t"),
        (Column("id", 1, 4, "INT", "INT", optional=False), Column("secret", 2, 12, "VARCHAR", "VARCHAR"),
         Column("name", 3, 12, "VARCHAR", "VARCHAR")),
        primary_key_column_names=("id",),
    )
    builder = TableSchemaBuilder("p", column_filter=lambda tid, name: name != "secret")
    ts = builder.build(table)
    assert ts.value_schema.field_names() == ["id", "name"]
    row = ts.convert_snapshot_row((1, "pw", "n"))
    value = ts.value_bytes(Operation.READ, None, row, SourceInfo(name="p"), None, 0).decode()
    assert '"after":{"id":1,"name":"n"}' in value and "pw" not in value
    assert ts.key_bytes(row).endswith(b'"payload":{"id":1}}')
    key_only = TableSchemaBuilder("p", column_filter=lambda tid, name: name == "name").build(table)
    assert key_only.key_schema.field_names() == ["id"] and key_only.value_schema.field_names() == ["name"]


def test_message_key_columns() -> None:
    from connector.events.table_schema import TableSchemaBuilder, message_key_columns
    from schema_history.model import Column, Table, TableId

    lookup = message_key_columns("inventory.customers:email; (.*).orders:purchaser,product_id")
    assert lookup(TableId("inventory", "customers")) == ["email"]
    assert lookup(TableId("shop", "orders")) == ["purchaser", "product_id"]
    assert lookup(TableId("inventory", "customers2")) is None
    table = Table(TableId("x", "nokey"), (Column("a", 1, 4, "INT", "INT"), Column("b", 2, 4, "INT", "INT")))
    assert TableSchemaBuilder("p").build(table).key_schema is None
    ts = TableSchemaBuilder("p", key_columns=message_key_columns("x.nokey:b")).build(table)
    assert ts.key_schema.field_names() == ["b"] and ts.key_values([1, 2]) == (2,)
