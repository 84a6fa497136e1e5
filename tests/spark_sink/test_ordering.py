"""One ordering of changes (spark_sink.ordering), checked where it is evaluated: Spark SQL, the
delta-rs merge, the applier and the Parquet compaction must all agree with Python tuple order."""

from __future__ import annotations

import itertools

import pytest

pytest.importorskip("pyspark")
pytest.importorskip("deltalake")

import sqlglot  # noqa: E402
from deltalake import DeltaTable, write_deltalake  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402

from spark_sink import DeltaTarget, ParquetTarget, apply_changes, read_current  # noqa: E402
from spark_sink.merge_sql import merge_plan, merge_statement  # noqa: E402
from spark_sink.ordering import (CHANGE_ORDER, SOURCE_POSITION, SQL_DIALECT, latest_per_key,  # noqa: E402
                                 later_than, not_older, to_sql)

pytestmark = pytest.mark.spark

# Positions that differ in each component, equal ones, and file names across a rotation.
POSITIONS = [("mysql-bin.000001", 4, 0), ("mysql-bin.000001", 900, 0), ("mysql-bin.000001", 900, 1),
             ("mysql-bin.000001", 1200, 0), ("mysql-bin.000002", 4, 0), ("mysql-bin.000010", 4, 0)]
PAIRS = list(itertools.product(POSITIONS, repeat=2))  # (incoming, stored)


def test_guard_is_generated_sql_that_round_trips() -> None:
    sql = to_sql(not_older())
    assert sqlglot.parse_one(sql, read=SQL_DIALECT).sql(dialect=SQL_DIALECT, identify=True) == sql
    for column in SOURCE_POSITION:
        assert f"`s`.`{column}`" in sql and f"`t`.`{column}`" in sql


def test_spark_parses_the_merge_statement(spark) -> None:
    parser = spark._jsparkSession.sessionState().sqlParser()
    for soft_delete in (False, True):
        statement = merge_statement("delta.`/lake/t`", "changes_view", merge_plan(["id", "odd`name"],
                                                                                  soft_delete=soft_delete))
        assert statement.startswith("MERGE WITH SCHEMA EVOLUTION INTO ")
        plan = parser.parsePlan(statement)  # raises ParseException on bad syntax
        assert plan.getClass().getSimpleName() == "MergeIntoTable" and plan.withSchemaEvolution()
        matched = [plan.matchedActions().apply(i).getClass().getSimpleName()
                   for i in range(plan.matchedActions().size())]
        assert matched == (["UpdateStarAction"] if soft_delete else ["DeleteAction", "UpdateStarAction"])
        assert plan.notMatchedActions().size() == 1


def test_merge_needs_keys() -> None:
    with pytest.raises(ValueError, match="key"):
        merge_plan([], soft_delete=False)


def test_guard_in_spark_sql_matches_tuple_order(spark) -> None:
    rows = [(k, *incoming, *stored) for k, (incoming, stored) in enumerate(PAIRS)]
    cols = ["k"] + [f"s_{c}" for c in SOURCE_POSITION] + [f"t_{c}" for c in SOURCE_POSITION]
    pairs = spark.createDataFrame(rows, cols)
    s = pairs.select("k", *[F.col(f"s_{c}").alias(c) for c in SOURCE_POSITION]).alias("s")
    t = pairs.select(F.col("k").alias("tk"), *[F.col(f"t_{c}").alias(c) for c in SOURCE_POSITION]).alias("t")
    got = {r["k"]: r["g"] for r in s.join(t, F.col("s.k") == F.col("t.tk"))
           .select("s.k", F.expr(to_sql(not_older())).alias("g")).collect()}
    assert got == {k: incoming >= stored for k, (incoming, stored) in enumerate(PAIRS)}


def test_guard_in_delta_rs_merge_matches_tuple_order(workdir) -> None:
    import pyarrow as pa

    def table(positions: list[tuple | None], value: str) -> pa.Table:
        n = len(positions)
        return pa.table({"k": list(range(n)), "v": [value] * n, "__op": ["u"] * n,
                         "__source_file": [p and p[0] for p in positions],
                         "__source_pos": pa.array([p and p[1] for p in positions], pa.int64()),
                         "__source_row": pa.array([p and p[2] for p in positions], pa.int32())})

    stored = [b for _, b in PAIRS] + [None]  # a stored row without a position is always replaced
    write_deltalake(str(workdir / "d"), table(stored, "stored"))
    plan = merge_plan(["k"], soft_delete=False).sql()
    (DeltaTable(str(workdir / "d")).merge(table([a for a, _ in PAIRS] + [POSITIONS[0]], "incoming"),
                                          predicate=plan["on"], source_alias="s", target_alias="t")
     .when_matched_update_all(predicate=plan["update_if"]).execute())
    got = {r["k"]: r["v"] == "incoming" for r in DeltaTable(str(workdir / "d")).to_pyarrow_table().to_pylist()}
    assert got == {**{k: a >= b for k, (a, b) in enumerate(PAIRS)}, len(PAIRS): True}


def test_later_than_and_latest_per_key_match_tuple_order(spark) -> None:
    changes = [(*p, part, offset) for p in POSITIONS for part, offset in ((0, 7), (1, 3))]
    df = spark.createDataFrame([(i % 3, *c) for i, c in enumerate(changes)], ["id", *CHANGE_ORDER])
    for pivot in changes:
        got = sorted(tuple(r)[1:] for r in df.filter(later_than(dict(zip(CHANGE_ORDER, pivot)))).collect())
        assert got == sorted(c for c in changes if c > pivot), pivot
    latest = {r["id"]: tuple(r)[1:] for r in latest_per_key(df, ["id"]).collect()}
    assert latest == {k: max(c for i, c in enumerate(changes) if i % 3 == k) for k in range(3)}


F1, F2 = "mysql-bin.000001", "mysql-bin.000002"
# (id, v, op, file, pos, row, partition, offset) per batch
BATCHES = [
    [(1, "a", "c", F1, 100, 0, 0, 0), (2, "a", "c", F1, 100, 1, 0, 1), (3, "a", "c", F1, 200, 0, 0, 2)],
    [(1, "a2", "u", F1, 100, 0, 0, 3),   # same position as stored: the incoming change wins the tie
     (2, "old", "u", F1, 50, 0, 0, 4),   # older than stored: ignored
     (3, "a", "d", F2, 4, 0, 0, 5),      # newer binlog file: deleted
     (4, "a", "c", F1, 10, 0, 0, 6),     # new key, older than other rows: inserted anyway
     (5, "x", "c", F2, 10, 0, 1, 0), (5, "y", "u", F2, 10, 0, 1, 1)],  # a tie in the batch: later offset
]
FINAL = {1: "a2", 2: "a", 4: "a", 5: "y"}


def test_every_target_orders_changes_alike(spark, workdir) -> None:
    cols = ["id", "v", "__op", *CHANGE_ORDER]
    delta, parquet = DeltaTarget(workdir / "delta"), ParquetTarget(workdir / "parquet")
    for batch_id, batch in enumerate(BATCHES):
        df = spark.createDataFrame(batch, cols).withColumn("__topic", F.lit("t")) \
            .withColumn("__source_pos", F.col("__source_pos").cast("long"))
        for target in (delta, parquet):
            apply_changes(df, target, keys=["id"], batch_id=batch_id)
    for target in (delta, parquet):
        assert {r["id"]: r["v"] for r in read_current(spark, target).collect()} == FINAL, target
