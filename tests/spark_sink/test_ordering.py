"""One ordering of changes (spark_sink.ordering), checked where it is evaluated: Spark SQL, the
delta-rs merge, the applier and the Parquet compaction must all agree with ``ordering.newer_or_equal``
(Kafka order as written: the offset within a partition, write time then binlog position across
partitions), including across a failover (file names that sort backwards) and the binlog rotation
``mysql-bin.999999`` -> ``mysql-bin.1000000``."""

from __future__ import annotations

import datetime as dt
import itertools

import pytest

pytest.importorskip("pyspark")
pytest.importorskip("deltalake")

import sqlglot  # noqa: E402
from deltalake import DeltaTable, write_deltalake  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402
from pyspark.sql import types as T  # noqa: E402

from spark_sink import DeltaTarget, ParquetTarget, apply_changes, read_current  # noqa: E402
from spark_sink.merge_sql import merge_plan, merge_statement  # noqa: E402
from spark_sink.ordering import (SQL_DIALECT, STORED_ORDER, latest_per_key, later_than,  # noqa: E402
                                 newer_or_equal, not_older, to_sql)

pytestmark = pytest.mark.spark


def _ts(ms: int) -> dt.datetime:
    return dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(milliseconds=ms)


# (partition, offset, Kafka time, file, pos, row), as STORED_ORDER. Within a partition the time
# never decreases with the offset (one writer, in order), as on a real topic.
CHANGES = [
    (0, 10, _ts(1000), "replica-bin.000007", 900, 0),
    (0, 11, _ts(1000), "replica-bin.000007", 900, 1),
    (0, 12, _ts(1500), "mariadb-bin.000002", 4, 0),   # after a failover: the file sorts lower
    (0, 13, _ts(2000), "mysql-bin.999999", 500, 0),
    (0, 14, _ts(2001), "mysql-bin.1000000", 4, 0),    # rotation past 999999: sorts lower as text
    (1, 5, _ts(1000), "replica-bin.000007", 950, 0),  # another partition, same ms: the position decides
    (1, 6, _ts(2000), "mysql-bin.999999", 400, 0),    # same ms as (0, 13), earlier position
    (1, 7, _ts(2500), "mariadb-bin.000001", 4, 0),
]
ROWS = [dict(zip(STORED_ORDER, c)) for c in CHANGES]
PAIRS = list(itertools.product(ROWS, repeat=2))  # (incoming, stored)
SCHEMA = T.StructType([T.StructField("__partition", T.IntegerType()), T.StructField("__offset", T.LongType()),
                       T.StructField("__timestamp", T.TimestampType()),
                       T.StructField("__source_file", T.StringType()), T.StructField("__source_pos", T.LongType()),
                       T.StructField("__source_row", T.IntegerType())])


def test_the_order_is_kafka_order_not_the_binlog_position() -> None:
    after_failover, before = ROWS[2], ROWS[1]
    assert newer_or_equal(after_failover, before) and not newer_or_equal(before, after_failover)
    assert newer_or_equal(ROWS[4], ROWS[3]) and not newer_or_equal(ROWS[3], ROWS[4])
    assert newer_or_equal(ROWS[3], ROWS[6]) and not newer_or_equal(ROWS[6], ROWS[3])


def test_guard_is_generated_sql_that_round_trips() -> None:
    sql = to_sql(not_older())
    assert sqlglot.parse_one(sql, read=SQL_DIALECT).sql(dialect=SQL_DIALECT, identify=True) == sql
    for column in STORED_ORDER:
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


def test_guard_in_spark_sql_matches_the_order(spark) -> None:
    rows = [(k, *[a[c] for c in STORED_ORDER], *[b[c] for c in STORED_ORDER]) for k, (a, b) in enumerate(PAIRS)]
    schema = T.StructType([T.StructField("k", T.IntegerType())]
                          + [T.StructField(f"s{f.name}", f.dataType) for f in SCHEMA]
                          + [T.StructField(f"t{f.name}", f.dataType) for f in SCHEMA])
    pairs = spark.createDataFrame(rows, schema)
    s = pairs.select("k", *[F.col(f"s{c}").alias(c) for c in STORED_ORDER]).alias("s")
    t = pairs.select(F.col("k").alias("tk"), *[F.col(f"t{c}").alias(c) for c in STORED_ORDER]).alias("t")
    got = {r["k"]: r["g"] for r in s.join(t, F.col("s.k") == F.col("t.tk"))
           .select("s.k", F.expr(to_sql(not_older())).alias("g")).collect()}
    assert got == {k: newer_or_equal(a, b) for k, (a, b) in enumerate(PAIRS)}


def test_guard_in_delta_rs_merge_matches_the_order(workdir) -> None:
    import pyarrow as pa

    def table(rows: list[dict | None], value: str) -> pa.Table:
        n = len(rows)
        columns = {"k": list(range(n)), "v": [value] * n, "__op": ["u"] * n}
        types = {"__partition": pa.int32(), "__offset": pa.int64(), "__timestamp": pa.timestamp("us", tz="UTC"),
                 "__source_file": pa.string(), "__source_pos": pa.int64(), "__source_row": pa.int32()}
        columns.update({c: pa.array([r and r[c] for r in rows], t) for c, t in types.items()})
        return pa.table(columns)

    stored = [b for _, b in PAIRS] + [None]  # a stored row without a position is always replaced
    write_deltalake(str(workdir / "d"), table(stored, "stored"))
    plan = merge_plan(["k"], soft_delete=False).sql()
    (DeltaTable(str(workdir / "d")).merge(table([a for a, _ in PAIRS] + [ROWS[0]], "incoming"),
                                          predicate=plan["on"], source_alias="s", target_alias="t")
     .when_matched_update_all(predicate=plan["update_if"]).execute())
    got = {r["k"]: r["v"] == "incoming" for r in DeltaTable(str(workdir / "d")).to_pyarrow_table().to_pylist()}
    assert got == {**{k: newer_or_equal(a, b) for k, (a, b) in enumerate(PAIRS)}, len(PAIRS): True}


def _aware(row: tuple) -> tuple:
    """collect() gives naive local times; the test's are UTC instants."""
    return tuple(v.astimezone(dt.timezone.utc) if isinstance(v, dt.datetime) else v for v in row)


def test_later_than_and_latest_per_key_match_the_order(spark) -> None:
    schema = T.StructType([T.StructField("id", T.IntegerType()), *SCHEMA.fields])
    df = spark.createDataFrame([(i % 3, *c) for i, c in enumerate(CHANGES)], schema)
    for pivot in ROWS:
        got = sorted(_aware(tuple(r)[1:]) for r in df.filter(later_than(pivot)).collect())
        assert got == sorted(c for c, r in zip(CHANGES, ROWS) if not newer_or_equal(pivot, r)), pivot
    latest = {r["id"]: _aware(tuple(r)[1:]) for r in latest_per_key(df, ["id"]).collect()}
    for key in range(3):
        group = [r for i, r in enumerate(ROWS) if i % 3 == key]
        newest = [r for r in group if all(newer_or_equal(r, other) for other in group)]
        assert latest[key] == tuple(newest[0][c] for c in STORED_ORDER), key


def _newest(group: list[tuple], by_tie: bool) -> tuple:
    """The spec of ``latest_per_key`` in plain Python, for rows (partition, offset, time, file, pos,
    row, tie): per partition the last offset (a null offset is oldest; then the higher tie), then
    across partitions the greatest (time, file, pos, row, tie, partition), nulls lowest."""
    def low(v: object) -> tuple:
        return (v is not None, v)
    tie = (lambda r: r[6]) if by_tie else (lambda r: 0)
    heads = [max((r for r in group if r[0] == p), key=lambda r: (low(r[1]), tie(r))) for p in {r[0] for r in group}]
    return max(heads, key=lambda r: (*(low(v) for v in r[2:6]), tie(r), r[0]))


@pytest.mark.parametrize("by_tie", [False, True], ids=["changes", "stored-vs-incoming"])
def test_latest_per_key_keeps_what_the_two_level_order_keeps(spark, by_tie: bool) -> None:
    """Keys in one or several partitions (a re-partitioned topic), positions out of text order,
    equal times, null positions and keys (a TRUNCATE), stored/incoming ties: one pass keeps the
    same row and count per key as the spec (per partition by offset, then across by WRITE_ORDER)."""
    import random
    rnd = random.Random(25)
    rows, offsets = [], itertools.count()
    for _ in range(600):
        key = rnd.choice([None, *range(40)])
        tie = rnd.randint(0, 1)
        offset = None if rnd.random() < 0.05 else next(offsets) // (2 if by_tie else 1)
        rows.append((key, rnd.choice([0, 0, 0, 1, 2]), offset, _ts(rnd.randint(0, 30)),
                     rnd.choice(["mysql-bin.999999", "mysql-bin.1000000", None]), rnd.choice([4, 90, None]),
                     rnd.randint(0, 1), tie))
    # Exact duplicates of the order columns are one record seen twice: which copy is kept is free.
    seen: set[tuple] = set()
    rows = [r for r in rows if not (r[:3] + r[-1:] in seen or seen.add(r[:3] + r[-1:]))]
    schema = T.StructType([T.StructField("id", T.IntegerType()), *SCHEMA.fields, T.StructField("tie", T.IntegerType())])
    df = spark.createDataFrame(rows, schema)
    got = {r["id"]: (_aware(tuple(r)[1:8]), r["n"])
           for r in latest_per_key(df, ["id"], tie="tie" if by_tie else None, count_as="n").collect()}
    expected = {}
    for key in {r[0] for r in rows}:
        group = [r[1:] for r in rows if r[0] == key]
        expected[key] = (_newest(group, by_tie), len(group))
    assert got == expected


F1, F2 = "replica-bin.000009", "mariadb-bin.000001"  # the connector moved from the replica to the source
# (id, v, op, file, pos, row, partition, offset, ms) per batch
BATCHES = [
    [(1, "a", "c", F1, 100, 0, 0, 0, 1000), (2, "a", "c", F1, 200, 0, 0, 1, 1000),
     (3, "a", "c", F1, 300, 0, 0, 2, 1000)],
    [(1, "a2", "u", F2, 4, 0, 0, 3, 2000),       # after the failover: the file sorts lower, but it is newer
     (2, "older", "u", F1, 50, 0, 1, 0, 900),    # another partition, written earlier: ignored
     (3, "a", "d", F2, 50, 0, 0, 4, 2000),       # deleted after the failover
     (4, "a", "c", F2, 10, 0, 0, 5, 2000),       # a new key
     (5, "x", "c", F2, 60, 0, 1, 1, 2000), (5, "y", "u", F2, 60, 0, 1, 2, 2000),  # same position: later offset
     (6, "p", "c", "mysql-bin.999999", 9000, 0, 0, 6, 2001),
     (6, "q", "u", "mysql-bin.1000000", 4, 0, 0, 7, 2002),                       # rotation past 999999
     (7, "first", "c", F2, 70, 0, 0, 8, 2003), (7, "moved", "u", F2, 80, 0, 2, 0, 2004)],  # topic re-partitioned
]
FINAL = {1: "a2", 2: "a", 4: "a", 5: "y", 6: "q", 7: "moved"}
# A TRUNCATE (no key) in partition 1; same millisecond as a change in partition 0: the position decides.
TRUNCATE = [(None, None, "t", F2, 100, 0, 1, 3, 3000), (8, "after", "c", F2, 200, 0, 0, 9, 3000),
            (9, "before", "c", F2, 90, 0, 2, 1, 2999)]


def test_every_target_orders_changes_alike(spark, workdir) -> None:
    cols = ["id", "v", "__op", "__source_file", "__source_pos", "__source_row", "__partition", "__offset", "ms"]
    delta, parquet = DeltaTarget(workdir / "delta"), ParquetTarget(workdir / "parquet")

    def apply(batch_id: int, batch: list[tuple]) -> None:
        df = (spark.createDataFrame(batch, cols).withColumn("__topic", F.lit("t"))
              .withColumn("__timestamp", F.timestamp_millis(F.lit(_ts(0).timestamp() * 1000).cast("long") + F.col("ms")))
              .drop("ms").withColumn("__source_pos", F.col("__source_pos").cast("long"))
              .withColumn("__partition", F.col("__partition").cast("int")))
        for target in (delta, parquet):
            apply_changes(df, target, keys=["id"], batch_id=batch_id)

    for batch_id, batch in enumerate(BATCHES):
        apply(batch_id, batch)
    for target in (delta, parquet):
        assert {r["id"]: r["v"] for r in read_current(spark, target).collect()} == FINAL, target
    apply(len(BATCHES), TRUNCATE)
    for target in (delta, parquet):
        assert {r["id"]: r["v"] for r in read_current(spark, target).collect()} == {8: "after"}, target
