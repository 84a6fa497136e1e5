"""The fused row path (connector/dispatch/fused_rows.py) sends what the general path sends, byte for byte, with the
same offsets; rows it cannot take (a key change, a value a converter refuses, projected or masked value images)
go to the general path. The conformance goldens check the same on every streamed row (BINLOG_CDC_FUSED_ROWS=check)."""

from __future__ import annotations

import datetime
from dataclasses import replace
from decimal import Decimal
from typing import Any

import pytest

from connector.config.modes import Operation
from connector.dispatch.dispatcher import FusedRowsMode
from connector.errors import RowValueError
from connector.events.changes import RowChange
from schema_history.model import TableId
from tests.unit.dispatch.test_dispatcher import Positions, _dispatcher, _offset, _source

T = TableId("inventory", "customers")
DDL = ("CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(20) NOT NULL, amount DECIMAL(12,2), score DOUBLE, "
       "created DATETIME(6) NOT NULL, payload BLOB)")
ROW = [1, "Anne \"the\" 🐍", Decimal("12.50"), 0.1, datetime.datetime(2024, 1, 2, 3, 4, 5, 6), b"\x00\xff"]
CHANGES: list[tuple[Operation, list[Any] | None, list[Any] | None]] = [
    (Operation.CREATE, None, ROW),
    (Operation.CREATE, None, [2, "b", None, None, datetime.datetime(2024, 1, 1), None]),
    (Operation.UPDATE, ROW, [1, "c", Decimal("-1.00"), 1e300, ROW[4], b""]),
    (Operation.UPDATE, ROW, [3, "key changed", None, None, ROW[4], None]),  # general path: d, tombstone, c
    (Operation.DELETE, ROW, None),
]


def _run(mode: FusedRowsMode, changes: list[tuple[Operation, Any, Any]], **props: str) -> tuple[list, Any, int]:
    """Each change as a rows event of its own, the way the streaming handler emits it; (sent, committable, fused)."""
    import os

    os.environ["BINLOG_CDC_FUSED_ROWS"] = mode.value
    try:
        dispatcher, sink, tracker = _dispatcher(**props)
    finally:
        del os.environ["BINLOG_CDC_FUSED_ROWS"]
    dispatcher.ddl(DDL, "inventory", _source(100), _offset(100))
    positions = Positions(_offset(200))
    fused = 0
    for n, (op, before, after) in enumerate(changes):
        source = _source(210 + n)
        emit = dispatcher.fused_rows(T, op, source)
        if emit is not None and emit.row(before, after, 0, positions):
            fused += 1
            emit.flush()
        else:
            dispatcher.row_change(RowChange(T, op, before, after), source.at_row(0), positions)
    sink.ack_all()
    # the schema change record aside; header values hold the dispatcher's own uuid (extended headers)
    sent = [(r.topic, r.key, r.value, r.partition, [name for name, _ in r.headers]) for r in sink.sent[1:]]
    return sent, tracker.committable(), fused


@pytest.mark.parametrize("props", [{}, {"provide_transaction_metadata": "true"}, {"tombstones_on_delete": "false"},
                                   {"decimal_handling_mode": "double"}, {"time_precision_mode": "connect"}])
def test_the_fused_path_sends_the_general_paths_records_and_offsets(props: dict[str, str]) -> None:
    general = _run(FusedRowsMode.OFF, CHANGES, **props)
    fused = _run(FusedRowsMode.CHECK, CHANGES, **props)
    assert general[2] == 0 and fused[2] == 4  # every change but the key change
    assert fused[:2] == general[:2]


def test_column_filters_keep_the_general_path() -> None:
    sent, _, fused = _run(FusedRowsMode.ON, CHANGES[:1], column_exclude_list="inventory.customers.payload")
    assert fused == 0 and b'"field":"payload"' not in sent[-1][2]


def test_a_value_the_converter_refuses_is_replayed_on_the_general_path_which_names_the_column() -> None:
    with pytest.raises(RowValueError, match="score"):
        _run(FusedRowsMode.ON, [(Operation.CREATE, None, [1, "a", None, "not a double", ROW[4], None])])


def test_what_the_image_writer_declines_takes_the_general_path() -> None:
    """A NULL in a NOT NULL column (a zero date: the general path writes its fallback) and a BLOB-sized value
    (written straight into bytes) go to the general path; the rows beside them stay on the fused one."""
    changes: list[tuple[Operation, Any, Any]] = [
        (Operation.CREATE, None, [4, "zero date", None, None, None, None]),
        (Operation.CREATE, None, [5, "big", None, None, ROW[4], b"\x01" * (1 << 20)]),
        (Operation.CREATE, None, [6, "small", None, None, ROW[4], b"\x01" * 1000]),
    ]
    general = _run(FusedRowsMode.OFF, changes)
    fused = _run(FusedRowsMode.CHECK, changes)
    assert fused[2] == 1 and fused[:2] == general[:2]


def test_the_source_block_of_a_streamed_event_is_rendered_without_building_it() -> None:
    """The fused path writes a rows event's source text straight from its EventSource (GTID, thread, query and µs
    time set here); the check mode compares it with the general path's block on every row."""
    import os

    os.environ["BINLOG_CDC_FUSED_ROWS"] = FusedRowsMode.CHECK.value
    try:
        dispatcher, sink, _ = _dispatcher()
    finally:
        del os.environ["BINLOG_CDC_FUSED_ROWS"]
    dispatcher.ddl(DDL, "inventory", _source(100), _offset(100))
    source = replace(_source(300, query='INSERT "q" 🐍', ts_us=1_000_123),
                     gtid="3e11fa47-71ca-11e1-9e33-c80aa9429562:23", thread=7)
    emit = dispatcher.fused_rows(T, Operation.CREATE, source)
    assert emit is not None and emit.row(None, ROW, 0, Positions(_offset(300)))
    emit.flush()
    assert b'"gtid":"3e11fa47-71ca-11e1-9e33-c80aa9429562:23"' in sink.sent[-1].value


def test_a_ddl_between_two_rows_events_of_the_same_table_map_gives_the_second_the_new_version() -> None:
    """Streaming hands the same TableId object for every rows event of a TABLE_MAP body: what the dispatcher keeps
    per (table id, operation) must not outlive a change of the table's definition."""
    dispatcher, sink, _ = _dispatcher()
    dispatcher.ddl(DDL, "inventory", _source(100), _offset(100))
    positions = Positions(_offset(200))
    emit = dispatcher.fused_rows(T, Operation.CREATE, _source(210))
    assert emit is not None and emit.row(None, ROW, 0, positions)
    emit.flush()
    dispatcher.ddl("ALTER TABLE customers ADD COLUMN extra INT", "inventory", _source(220), _offset(220))
    emit = dispatcher.fused_rows(T, Operation.CREATE, _source(230))
    assert emit is not None and emit.row(None, [*ROW, 7], 0, positions)
    emit.flush()
    assert b'"extra":7' in sink.sent[-1].value and b'"extra"' not in sink.sent[1].value


def test_a_table_map_found_consistent_is_checked_again_once_the_definitions_change_in_place() -> None:
    from connector.errors import SchemaError
    from pymysqlreplication.constants import FIELD_TYPE as F

    dispatcher, _, _ = _dispatcher()
    dispatcher.ddl(DDL, "inventory", _source(100), _offset(100))
    types = (F.LONG, F.VARCHAR, F.NEWDECIMAL, F.DOUBLE, F.DATETIME2, F.BLOB)
    dispatcher.table_map(T, types, "bin.000001", 300)
    dispatcher.table_map(T, types, "bin.000001", 400)  # known consistent: no lookup
    # a definition replaced in place (as schema recovery does), the same table id and types objects
    other, _, _ = _dispatcher()
    other.ddl("CREATE TABLE customers (id INT PRIMARY KEY)", "inventory", _source(100), _offset(100))
    changed = other.schema.table(T)
    assert changed is not None
    dispatcher.schema.current_tables().put(changed)
    with pytest.raises(SchemaError, match="TABLE_MAP does not match"):
        dispatcher.table_map(T, types, "bin.000001", 500)
