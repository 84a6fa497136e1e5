"""The order of changes to one row, defined once: the order the connector wrote them to Kafka.

Every place that asks "which change is newer" uses this module: the applier (last change per
key, changes after a TRUNCATE), every target's merge guard (a change replaces a stored row only
if it is not older), and the Parquet target's compaction.

Why Kafka order and not the binlog position: the connector (binlog-cdc or Debezium) writes the
changes of one key to one partition (the key's hash), in commit order, whatever it reads from.
That order survives what a binlog position does not: a failover to a replica whose binlog has
other file names and positions (the connector moves by GTID, nothing lost or repeated), the
rotation ``mysql-bin.999999`` -> ``mysql-bin.1000000`` (text order would put it first), a
re-snapshot (its ``op=r`` rows are written after every change they include and before every
change after them), and the mirror re-reading a topic (the same records have the same offsets).
Positions are kept in the table as information, but decide only ties across partitions.

Two changes ``a``, ``b`` of one key compare as follows (``newer_or_equal``):

* same partition (the normal case): by ``__offset``; exact, no clock involved;
* different partitions, which happens for a key only when the topic got more partitions (the
  key's hash lands elsewhere from then on), and for a TRUNCATE, which has no key and may sit in
  any partition: by ``WRITE_ORDER`` = the Kafka record time (when the connector wrote it), then
  the binlog position for records written in the same millisecond (then by one server).

Limits (docs/SPARK.md): with at-least-once delivery a connector crash replays its last records;
a micro-batch ending inside the replay shows the replayed (older) change until the batch with
the rest of the replay, which always follows (exactly-once delivery has no replays). A topic
deleted and created again restarts its offsets: mirror it into a new target with a new checkpoint.

SQL conditions are sqlglot expressions, rendered in the Spark dialect with every identifier
quoted; the same text is accepted by Spark SQL and by delta-rs (DataFusion) merge predicates.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Mapping, Sequence

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F
from sqlglot import exp

__all__ = ["SOURCE_POSITION", "KAFKA_POSITION", "WRITE_ORDER", "STORED_ORDER", "SQL_DIALECT", "latest_per_key",
           "not_older", "later_than", "newer_or_equal", "to_sql"]

SOURCE_POSITION: tuple[str, ...] = ("__source_file", "__source_pos", "__source_row")
"""The binlog position of a change (information; decides only same-millisecond ties across partitions)."""

WRITE_ORDER: tuple[str, ...] = ("__timestamp", *SOURCE_POSITION)
"""Order of changes in different partitions: Kafka record time, then binlog position."""

KAFKA_POSITION: tuple[str, str] = ("__partition", "__offset")

STORED_ORDER: tuple[str, ...] = (*KAFKA_POSITION, *WRITE_ORDER)
"""The columns a stored row keeps so that the guard can order an incoming change against it."""

SQL_DIALECT = "spark"


def to_sql(condition: exp.Expression) -> str:
    """Render a condition for Spark SQL and delta-rs predicates (both accept backtick quoting)."""
    return condition.sql(dialect=SQL_DIALECT, identify=True)


def _after(newer: Sequence[exp.Expression], older: Sequence[exp.Expression], *, or_equal: bool) -> exp.Expression:
    """`newer` > `older` (>= if `or_equal`), lexicographically: built from the last column out,
    ``n0 > o0 OR (n0 = o0 AND (n1 > o1 OR (n1 = o1 AND ...)))``. A NULL on either side makes a
    comparison unknown, i.e. not after."""
    pairs = list(zip(newer, older, strict=True))
    last_new, last_old = pairs[-1]
    condition: exp.Expression = (exp.GTE if or_equal else exp.GT)(this=last_new, expression=last_old)
    for new, old in reversed(pairs[:-1]):
        condition = exp.or_(exp.GT(this=new.copy(), expression=old.copy()),
                            exp.and_(exp.EQ(this=new.copy(), expression=old.copy()), condition))
    return condition


def _kafka_after(newer: Mapping[str, exp.Expression], older: Mapping[str, exp.Expression], *,
                 or_equal: bool) -> exp.Expression:
    """Same partition: by offset; different partitions: by WRITE_ORDER."""
    same = exp.EQ(this=newer["__partition"].copy(), expression=older["__partition"].copy())
    differ = exp.NEQ(this=newer["__partition"].copy(), expression=older["__partition"].copy())
    by_offset = (exp.GTE if or_equal else exp.GT)(this=newer["__offset"].copy(), expression=older["__offset"].copy())
    by_time = _after([newer[c] for c in WRITE_ORDER], [older[c] for c in WRITE_ORDER], or_equal=or_equal)
    return exp.or_(exp.and_(same, by_offset), exp.and_(differ, by_time))


def not_older(source: str = "s", target: str = "t") -> exp.Expression:
    """The merge guard: the change aliased `source` is at or after the stored row aliased `target`
    (a tie is the same record applied again: it wins, so re-applying a batch is a no-op).
    A stored row without a Kafka position (written before the sink kept one) is always replaced."""
    incoming = {c: exp.column(c, table=source) for c in STORED_ORDER}
    stored = {c: exp.column(c, table=target) for c in STORED_ORDER}
    return exp.or_(stored["__offset"].copy().is_(exp.null()), _kafka_after(incoming, stored, or_equal=True))


def _literal(value: Any) -> exp.Expression:
    if isinstance(value, dt.datetime):
        # collect() hands timestamps back as naive local time: as an instant (epoch µs), not as
        # text that the session time zone would read differently.
        instant = value if value.tzinfo else value.astimezone()
        micros = (instant - _EPOCH) // dt.timedelta(microseconds=1)
        return exp.Anonymous(this="timestamp_micros", expressions=[exp.convert(micros)])
    return exp.convert(value)


_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


def later_than(position: Mapping[str, Any], prefix: str = "") -> Column:
    """Rows strictly after `position` (a Row or mapping holding ``STORED_ORDER``, e.g. a collected
    TRUNCATE), as a Spark Column; the row's position is in the columns ``<prefix><c>``."""
    condition = _kafka_after({c: exp.column(prefix + c) for c in STORED_ORDER},
                             {c: _literal(position[c]) for c in STORED_ORDER}, or_equal=False)
    return F.expr(to_sql(condition))


def newer_or_equal(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """The order in plain Python (for tests and for reasoning): is change `a` at or after `b`?"""
    if a["__partition"] == b["__partition"]:
        return a["__offset"] >= b["__offset"]
    return tuple(a[c] for c in WRITE_ORDER) >= tuple(b[c] for c in WRITE_ORDER)


def latest_per_key(changes: DataFrame, keys: Sequence[str], tie: str | None = None,
                   count_as: str | None = None) -> DataFrame:
    """Keep the last change per key: the last offset of each partition the key is in, then, if
    the key is in several partitions, the last of those by WRITE_ORDER. `tie` (a column, higher
    wins) breaks exact ties, e.g. a stored row against the same record arriving again. With
    `count_as`, that column holds how many changes the key had."""
    key_columns = [F.col(k) for k in keys]
    tail = [F.col(tie).desc()] if tie else []
    # One sort of every change (by key, partition, offset); the second window only sees one row
    # per key and partition. A count per key is summed from the per-partition counts.
    by_partition = Window.partitionBy(*key_columns, F.col("__partition"))
    newest = changes.withColumn("__rank", F.row_number().over(by_partition.orderBy(
        F.col("__offset").desc_nulls_last(), *tail)))
    if count_as:
        newest = newest.withColumn(count_as, F.count(F.lit(1)).over(by_partition))
    newest = newest.filter("__rank = 1")
    across = Window.partitionBy(*key_columns)
    if count_as:
        newest = newest.withColumn(count_as, F.sum(count_as).over(across))
    ranked = newest.withColumn("__rank", F.row_number().over(across.orderBy(
        *[F.col(c).desc_nulls_last() for c in WRITE_ORDER], *tail, F.col("__partition").desc_nulls_last())))
    return ranked.filter("__rank = 1").drop("__rank")
