"""The keyset chunk queries of snapshot/chunks.py: shapes, quoting, bounds, literals, overrides."""
from __future__ import annotations

import datetime
import decimal

import pytest
import sqlglot

from schema_history.model import TableId
from snapshot.chunks import TableScan, chunkable_override, key_literal

T = TableId("shop", "orders")


def test_no_key_is_one_full_scan_in_server_order():
    assert TableScan(T).query() == "SELECT * FROM `shop`.`orders`"
    assert TableScan(T, ("id", "v")).query() == "SELECT `id`, `v` FROM `shop`.`orders`"
    assert not TableScan(T, ("id",), chunk_size=10).keyed  # no key: nothing to continue from, no LIMIT
    assert TableScan(T, ("id",), chunk_size=10).query(after=(5,)) == "SELECT `id` FROM `shop`.`orders`"


def test_first_and_next_chunk_single_key():
    scan = TableScan(T, ("id", "v"), key=("id",), chunk_size=100)
    assert scan.query() == "SELECT `id`, `v` FROM `shop`.`orders` ORDER BY `id` LIMIT 100"
    assert scan.query((41,)) == "SELECT `id`, `v` FROM `shop`.`orders` WHERE `id` > 41 ORDER BY `id` LIMIT 100"


def test_composite_key_compares_row_values_with_a_range_on_the_first_column():
    scan = TableScan(T, ("a", "b", "v"), key=("a", "b"), chunk_size=3)
    assert scan.query() == "SELECT `a`, `b`, `v` FROM `shop`.`orders` ORDER BY `a`, `b` LIMIT 3"
    assert scan.query((2, "x")) == ("SELECT `a`, `b`, `v` FROM `shop`.`orders` WHERE `a` >= 2 AND (`a`, `b`) > "
                                    "(2, 'x') ORDER BY `a`, `b` LIMIT 3")


def test_resume_bound_without_chunk_size_reads_the_rest_in_one_query():
    scan = TableScan(T, ("id",), key=("id",), after=(7,))
    assert scan.query() == "SELECT `id` FROM `shop`.`orders` WHERE `id` > 7 ORDER BY `id`"
    # a later chunk's bound replaces the resume bound
    assert TableScan(T, key=("id",), chunk_size=2, after=(7,)).query((9,)) == (
        "SELECT * FROM `shop`.`orders` WHERE `id` > 9 ORDER BY `id` LIMIT 2")


@pytest.mark.parametrize("name, quoted", [
    ("order", "`order`"),            # reserved word
    ("we`ird", "`we``ird`"),        # backquote doubled
    ("tä €", "`tä €`"),              # unicode and a space
    ("select", "`select`"),
])
def test_identifiers_are_always_backquoted(name, quoted):
    scan = TableScan(TableId(name, name), (name,), key=(name,), chunk_size=1)
    sql = scan.query(("k",))
    assert sql == f"SELECT {quoted} FROM {quoted}.{quoted} WHERE {quoted} > 'k' ORDER BY {quoted} LIMIT 1"
    # and MySQL's own parser reads it back to the same identifiers
    parsed = sqlglot.parse_one(sql, read="mysql")
    assert parsed.find(sqlglot.exp.Table).name == name


def test_literals_are_escaped_and_typed():
    assert key_literal("it's \\ ok").sql("mysql") == "'it''s \\\\ ok'"
    assert key_literal("a\nb\x00").sql("mysql") == "'a\\nb\\0'"
    assert key_literal(-12).sql("mysql") == "-12"
    assert key_literal(decimal.Decimal("1.50")).sql("mysql") == "1.50"
    assert key_literal(b"\x00\xff").sql("mysql") == "x'00ff'"
    assert key_literal(datetime.datetime(2024, 1, 2, 3, 4, 5, 6)).sql("mysql") == "'2024-01-02 03:04:05.000006'"
    assert key_literal(datetime.date(2024, 1, 2)).sql("mysql") == "'2024-01-02'"
    for value in (True, 1.5, None):
        with pytest.raises(TypeError):
            key_literal(value)


@pytest.mark.parametrize("statement", [
    "SELECT * FROM shop.orders WHERE id > 3 ORDER BY id DESC",       # its own order
    "SELECT * FROM shop.orders LIMIT 10",
    "SELECT DISTINCT id FROM shop.orders",
    "SELECT id, COUNT(*) FROM shop.orders GROUP BY id",
    "SELECT o.* FROM shop.orders o JOIN shop.customers c ON c.id = o.customer",
    "SELECT v FROM shop.orders",                                     # the key is not selected
    "SELECT * FROM shop.other",
    "SELECT * FROM shop.orders UNION SELECT * FROM shop.orders",
    "SELECT MAX(id) FROM shop.orders",
    "this is not sql (",
])
def test_unsafe_overrides_run_verbatim(statement):
    assert chunkable_override(statement, T, ("id",)) is None
    scan = TableScan(T, ("id", "v"), key=("id",), chunk_size=5, override=statement)
    assert not scan.keyed
    assert scan.query() == statement and scan.query((3,)) == statement


def test_safe_override_keeps_its_filter_and_is_chunked():
    statement = "SELECT * FROM shop.orders WHERE id > 3 OR v = 'x'"
    scan = TableScan(T, ("id", "v"), key=("id",), chunk_size=5, override=statement)
    assert scan.keyed
    assert scan.query() == "SELECT * FROM shop.orders WHERE id > 3 OR v = 'x' ORDER BY `id` LIMIT 5"
    assert scan.query((8,)) == ("SELECT * FROM shop.orders WHERE (id > 3 OR v = 'x') AND `id` > 8 "
                                "ORDER BY `id` LIMIT 5")
    assert chunkable_override("SELECT id, v FROM orders WHERE v > 0", T, ("id",)) is not None
    # without a key the override is never changed
    assert TableScan(T, override=statement).query() == statement
