"""The order of changes to one row, defined once: binlog position, then Kafka coordinates.

Every place that asks "which change is newer" uses this module: the applier (last change per
key, changes after a TRUNCATE), every target's merge guard (a change replaces a stored row only
if it is not older), and the Parquet target's compaction. The order is lexicographic over
``CHANGE_ORDER``:

* ``__source_file, __source_pos, __source_row``: where the change is in the binlog. Debezium
  gives every row event its own position (``row`` counts rows of one event); a snapshot's
  rows share the snapshot's position, one row per key. File names compare as strings, which
  holds within one server's binlog history (zero-padded suffixes), not across a failover to
  a server with other file names.
* ``__partition, __offset``: the Kafka record; breaks ties between redeliveries of the same
  change. Stored rows do not keep them, so the merge guard compares the source position only
  and lets an incoming change win a tie (re-applying a batch is a no-op).

SQL conditions are sqlglot expressions, rendered in the Spark dialect with every identifier
quoted; the same text is accepted by Spark SQL and by delta-rs (DataFusion) merge predicates.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F
from sqlglot import exp

__all__ = ["SOURCE_POSITION", "CHANGE_ORDER", "SQL_DIALECT", "latest_per_key", "newest_first", "not_older",
           "later_than", "to_sql"]

SOURCE_POSITION: tuple[str, ...] = ("__source_file", "__source_pos", "__source_row")
"""The binlog position of a change; the part of the order a stored row keeps."""

CHANGE_ORDER: tuple[str, ...] = (*SOURCE_POSITION, "__partition", "__offset")
"""Sort order of changes to one key in a batch (the Kafka offset breaks ties between duplicates)."""

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


def not_older(source: str = "s", target: str = "t") -> exp.Expression:
    """The merge guard: the change aliased `source` is at or after the stored row aliased `target`.
    A stored row without a position (written before the sink kept one) is always replaced."""
    incoming = [exp.column(c, table=source) for c in SOURCE_POSITION]
    stored = [exp.column(c, table=target) for c in SOURCE_POSITION]
    return exp.or_(stored[0].copy().is_(exp.null()), _after(incoming, stored, or_equal=True))


def later_than(position: Mapping[str, Any], columns: Sequence[str] = CHANGE_ORDER) -> Column:
    """Rows strictly after `position` (a Row or mapping holding `columns`), as a Spark Column."""
    condition = _after([exp.column(c) for c in columns], [exp.convert(position[c]) for c in columns],
                       or_equal=False)
    return F.expr(to_sql(condition))


def newest_first(columns: Sequence[str] = CHANGE_ORDER) -> list[Column]:
    """Sort keys putting the newest change first (NULL positions count as oldest)."""
    return [F.col(c).desc_nulls_last() for c in columns]


def latest_per_key(changes: DataFrame, keys: Sequence[str], order: Sequence[str] = CHANGE_ORDER) -> DataFrame:
    """Keep the last change per key by `order` (default: source position, then Kafka offset)."""
    window = Window.partitionBy(*[F.col(k) for k in keys]).orderBy(*newest_first(order))
    return changes.withColumn("__rank", F.row_number().over(window)).filter("__rank = 1").drop("__rank")
