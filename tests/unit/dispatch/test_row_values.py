"""Row values of a type a column's converter does not expect: what Debezium emits where it carries on, and one
line naming table, column and position (never a traceback) where it cannot.

The case that found it: MediaWiki's `cl_type ENUM(...) NOT NULL DEFAULT 'page'` in a `CHARSET=binary` table,
whose snapshot value the driver returns as bytes; Debezium 3.6.3 drops it and writes the default (golden
realworld-mysql, rw_snapshot.mw_categorylinks: inserted 'subcat', snapshot record 'page', streamed 'subcat')."""

from __future__ import annotations

import pytest

from connector.config.modes import Operation
from connector.errors import RowValueError
from connector.events.changes import RowChange
from schema_history.model import TableId
from tests.unit.dispatch.test_dispatcher import Positions, _dispatcher, _offset, _payload, _source

T = TableId("inventory", "customers")
DDL = ("CREATE TABLE customers (id INT PRIMARY KEY, cl_type ENUM('page','subcat','file') NOT NULL DEFAULT 'page', "
       "opt ENUM('a','b'), labels SET('x','y'), name VARCHAR(20)) DEFAULT CHARSET=binary")
# PyMySQL's decoder per column of a binary-charset result: no encoding (bytes), no converter; `int` for id
DECODERS = [("ascii", int), (None, None), (None, None), (None, None), (None, None)]


def _snapshot_dispatcher():
    dispatcher, sink, _ = _dispatcher()
    dispatcher.ddl(DDL, "inventory", _source(100), _offset(100))
    sink.sent.clear()
    return dispatcher, sink


def test_binary_charset_enum_in_the_snapshot_is_the_default_or_null_on_both_paths() -> None:
    dispatcher, sink = _snapshot_dispatcher()
    dispatcher.snapshot_row(T, (1, b"subcat", b"a", b"x", "Main"), _source(500, snapshot="true"), _offset(500))
    emit = dispatcher.snapshot_text_rows(T, DECODERS)
    assert emit is not None  # the snapshot's fast path applies to this table
    emit([b"2", b"file", b"b", b"y", b"P2"], _source(500, snapshot="true"), _offset(500))
    general, text = (_payload(r)["after"] for r in sink.sent)
    assert general == {"id": 1, "cl_type": "page", "opt": None, "labels": None, "name": "Main"}
    assert text == {"id": 2, "cl_type": "page", "opt": None, "labels": None, "name": "P2"}


def test_a_streamed_enum_index_is_its_member() -> None:
    dispatcher, sink = _snapshot_dispatcher()
    dispatcher.row_change(RowChange(T, Operation.CREATE, None, [1, 2, 1, "x", "n"]), _source(210), Positions(_offset(200)))
    assert _payload(sink.sent[-1])["after"]["cl_type"] == "subcat"


@pytest.mark.parametrize("path", ["snapshot", "text", "binlog"])
def test_a_value_of_an_unexpected_type_stops_with_one_line_naming_table_column_and_position(path: str) -> None:
    dispatcher, _, _ = _dispatcher()
    dispatcher.ddl("CREATE TABLE customers (id INT PRIMARY KEY, amount DOUBLE)", "inventory", _source(100),
                   _offset(100))
    with pytest.raises(RowValueError) as failed:
        if path == "snapshot":
            dispatcher.snapshot_row(T, (1, "abc"), _source(700, snapshot="true"), _offset(700))
        elif path == "text":  # the raw path: the failure is PyMySQL's decoder, replayed to name the column
            emit = dispatcher.snapshot_text_rows(T, [("ascii", int), ("ascii", float)])
            assert emit is not None
            emit([b"1", b"abc"], _source(700, snapshot="true"), _offset(700))
        else:
            dispatcher.row_change(RowChange(T, Operation.CREATE, None, [1, "abc"]), _source(700),
                                  Positions(_offset(700)))
    line = str(failed.value)
    assert "\n" not in line and "at bin.000001:700 table inventory.customers" in line, line
    assert "column amount (DOUBLE" in line and "Fix:" in line, line


def test_a_required_column_that_turns_null_names_the_column() -> None:
    dispatcher, _, _ = _dispatcher()
    dispatcher.ddl("CREATE TABLE customers (id INT PRIMARY KEY, e ENUM('a','b') CHARACTER SET binary NOT NULL)",
                   "inventory", _source(100), _offset(100))
    with pytest.raises(RowValueError, match=r"column e \(ENUM, bytes value\): DataError: null value"):
        dispatcher.snapshot_row(T, (1, b"a"), _source(800, snapshot="true"), _offset(800))
