"""The schema comparison behind --schema-evolution (spark_sink/evolution.py), without Spark: renames read from the
DDL, what counts as a change, and the one line of fail mode. The modes themselves run end to end in
test_lake_features.py."""
from __future__ import annotations

import pyarrow as pa
import pytest

pytest.importorskip("pyspark")

from spark_sink.evolution import TableDdl, _kind, column_changes, refusal, renames_in  # noqa: E402


@pytest.mark.parametrize("ddl, renames", [
    ("ALTER TABLE a RENAME COLUMN name TO full_name", {"name": "full_name"}),
    ("alter table a change `n` `m` bigint, rename column x to y", {"n": "m", "x": "y"}),
    ("ALTER TABLE a CHANGE COLUMN n n BIGINT", {}),  # a retype, not a rename
    ("ALTER TABLE a MODIFY balance BIGINT", {}),
])
def test_renames_in(ddl: str, renames: dict) -> None:
    assert renames_in(ddl) == renames


def test_column_changes() -> None:
    stored = {"id": "int", "name": "string", "balance": "int", "gone": "string"}
    newest = {"id": "int", "full_name": "string", "balance": "bigint", "tier": "string"}
    ddls = [TableDdl("ALTER TABLE t RENAME COLUMN name TO nm", "f:1", ()),
            TableDdl("ALTER TABLE t RENAME COLUMN nm TO full_name", "f:2", ())]
    ddls = [TableDdl(d.ddl, d.position, d.columns, renames_in(d.ddl)) for d in ddls]
    changes = column_changes(stored, newest, ddls)
    assert (changes.added, changes.dropped, changes.retyped, dict(changes.renamed)) == \
        (("tier",), ("gone",), ("balance",), {"name": "full_name"})
    assert not column_changes(stored, stored, ddls)


def test_no_change_for_lake_equal_types() -> None:
    assert _kind(pa.string()) == _kind(pa.large_string()) == _kind(pa.string_view())
    assert _kind(pa.list_(pa.field("element", pa.string()))) == _kind(pa.list_(pa.string()))
    assert _kind(pa.int32()) != _kind(pa.int64())


def test_refusal_quotes_the_first_ddl_after_the_stored_columns() -> None:
    ddls = [TableDdl("CREATE TABLE t (id INT, a INT)", "bin.000001:100", ("id", "a")),
            TableDdl("ALTER TABLE t ADD b INT", "bin.000001:200", ("id", "a", "b")),
            TableDdl("ALTER TABLE t ADD c INT", "bin.000001:300", ("id", "a", "b", "c"))]
    line = refusal("p.db.t", column_changes({"id": 1, "a": 1}, {"id": 1, "a": 1, "b": 1, "c": 1}, ddls),
                   ["id", "a"], ddls)
    assert line.startswith("schema change of p.db.t refused (--schema-evolution fail): ALTER TABLE t ADD b INT at "
                           "bin.000001:200; columns added ('b', 'c'). Fix:"), line
