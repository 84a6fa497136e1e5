"""History of a table (slowly changing dimension, type 2): every version of every row, with when it was valid.

A version is one insert, update or snapshot read of a row. Each stored version has the row's columns, the
sink's meta columns of the change that made it, and:

* ``__valid_from`` / ``__valid_to``: the source time (``source.ts_ms``, the binlog event's time) of the change
  that made the version and of the next change to the key (update, delete, or a TRUNCATE); ``__valid_to`` is
  null while the version is current;
* ``__valid_from_position`` / ``__valid_to_position``: the same two changes' binlog positions,
  ``file:pos:row`` (information: which server and where; order is Kafka order, as everywhere in the sink);
* ``__current``: true for the one version of a live key that is valid now.

A delete writes no version: it closes the key's current one. A TRUNCATE closes every current version.
Versions of one key are ordered as ``ordering`` orders changes (Kafka order as written).

``HistoryTarget`` writes a Delta table with ``deltalake``: per batch one MERGE (the batch's versions inserted,
each key's stored current version closed by the batch's first change to it or by a TRUNCATE before that, every
other current version closed by a TRUNCATE) committed with the Delta
transaction id ``(app_id, batch_id)``, so a re-run batch is skipped, as by ``DeltaTarget``.
"""

from __future__ import annotations

import os
from typing import Any, Sequence

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from spark_sink.evolution import BatchSchema, prepare_delta
from spark_sink.ordering import STORED_ORDER, later_than, not_older, to_sql
from spark_sink.targets import DeltaTarget

__all__ = ["HistoryTarget", "versions", "VALID_FROM", "VALID_TO", "VALID_FROM_POSITION", "VALID_TO_POSITION",
           "CURRENT"]

VALID_FROM = "__valid_from"
VALID_TO = "__valid_to"
VALID_FROM_POSITION = "__valid_from_position"
VALID_TO_POSITION = "__valid_to_position"
CURRENT = "__current"

_NEXT = "__next"  # prefix of the next change's columns
_PART_START = "__part_start"
_DROPPED = ("__topic", "__changes", "__deleted")


def _position(prefix: str = "") -> Column:
    return F.concat_ws(":", F.col(prefix + "__source_file"), F.col(prefix + "__source_pos").cast("string"),
                       F.col(prefix + "__source_row").cast("string"))


def _key_order(keys: Sequence[str]) -> Window:
    """Changes of one key in Kafka order: by offset within a partition; a key's partitions (more only after a
    topic got more partitions) by the time the key first appears in each."""
    return Window.partitionBy(*keys).orderBy(_PART_START, "__partition", "__offset")


def versions(changes: DataFrame, keys: Sequence[str], truncate: Any | None = None) -> DataFrame:
    """The batch's changes → its versions: one row per insert/update/read, closed by the key's next change in the
    batch (or by `truncate`, the batch's last TRUNCATE as a Row, if that comes first); still-open versions of the
    key's last change are current."""
    rows = changes.filter(F.col("__op") != "t").withColumn(
        _PART_START, F.min("__timestamp").over(Window.partitionBy(*keys, "__partition")))
    order = _key_order(keys)
    for c in (*STORED_ORDER, "__source_ts_ms", "__op"):
        rows = rows.withColumn(_NEXT + c, F.lead(c).over(order))
    valid_to = F.timestamp_millis(F.col(_NEXT + "__source_ts_ms"))
    valid_to_position = F.when(F.col(_NEXT + "__op").isNotNull(), _position(_NEXT))
    if truncate is not None:
        # A version made before the TRUNCATE and not replaced before it ends with it.
        ended = ~later_than(truncate) & (F.col(_NEXT + "__op").isNull() | later_than(truncate, prefix=_NEXT))
        valid_to = F.when(ended, F.timestamp_millis(F.lit(truncate["__source_ts_ms"]))).otherwise(valid_to)
        valid_to_position = F.when(ended, F.lit(_truncate_position(truncate))).otherwise(valid_to_position)
    out = (rows.withColumn(VALID_FROM, F.timestamp_millis("__source_ts_ms"))
           .withColumn(VALID_TO, valid_to)
           .withColumn(VALID_FROM_POSITION, _position())
           .withColumn(VALID_TO_POSITION, valid_to_position)
           .withColumn(CURRENT, F.col(VALID_TO).isNull() & F.col(VALID_TO_POSITION).isNull())
           .filter(F.col("__op") != "d"))
    return out.drop(_PART_START, *[c for c in out.columns if c.startswith(_NEXT)],
                    *[c for c in _DROPPED if c in out.columns])


def _truncate_position(truncate: Any) -> str:
    return ":".join(str(truncate[c]) for c in ("__source_file", "__source_pos", "__source_row"))


def _closers(changes: DataFrame, keys: Sequence[str], truncate: Any | None) -> DataFrame:
    """Each key's first change of the batch (a delete too), or `truncate` if that comes first, as a merge source
    row that closes the key's stored current version; ``__current`` null marks it: it is never inserted."""
    rows = changes.filter(F.col("__op") != "t").withColumn(
        _PART_START, F.min("__timestamp").over(Window.partitionBy(*keys, "__partition")))
    first = rows.withColumn("__rank", F.row_number().over(_key_order(keys))).filter("__rank = 1")
    ends, where = F.timestamp_millis("__source_ts_ms"), _position()
    if truncate is not None:
        ends = F.when(later_than(truncate), F.timestamp_millis(F.lit(truncate["__source_ts_ms"]))).otherwise(ends)
        where = F.when(later_than(truncate), F.lit(_truncate_position(truncate))).otherwise(where)
    return (first.withColumn(VALID_FROM, ends)
            .withColumn(VALID_TO, F.lit(None).cast("timestamp"))
            .withColumn(VALID_FROM_POSITION, where)
            .withColumn(VALID_TO_POSITION, F.lit(None).cast("string"))
            .withColumn(CURRENT, F.lit(None).cast("boolean"))
            .drop("__rank", _PART_START, *[c for c in _DROPPED if c in first.columns]))


def _q(column: str, alias: str) -> str:
    return f"{alias}.`{column}`"


class HistoryTarget:
    """Every version of every row of one table, as a Delta table at `path` (written with ``deltalake``)."""

    def __init__(self, path: str | os.PathLike, app_id: str = "binlog-cdc-spark-sink-history",
                 storage_options: dict[str, str] | None = None) -> None:
        self._delta = DeltaTarget(path, app_id=app_id, storage_options=storage_options)
        self.path = self._delta.path

    def __repr__(self) -> str:
        return f"HistoryTarget({self.path!r})"

    def has_batch(self, batch_id: int) -> bool:
        return self._delta.has_batch(batch_id)

    def apply(self, latest: DataFrame, keys: Sequence[str], *, truncate: bool,
              batch_id: int | None, soft_delete: bool, changes: DataFrame | None = None,
              schema: BatchSchema | None = None) -> None:
        if changes is None:
            raise ValueError("HistoryTarget needs every change of the batch (changes=)")
        if schema is not None:  # old versions keep the columns they had: never dropped or renamed
            changes = prepare_delta(self.path, changes, schema, self._delta.storage_options, keep_old_columns=True)
        changes = changes.persist()  # read three times below: decoded once
        try:
            self._apply(changes, keys, truncate, batch_id)
        finally:
            changes.unpersist()

    def _apply(self, changes: DataFrame, keys: Sequence[str], truncate: bool, batch_id: int | None) -> None:
        from deltalake import CommitProperties, Transaction, write_deltalake
        last_truncate = None
        if truncate:
            last_truncate = changes.filter(F.col("__op") == "t").select(
                F.max(F.struct(*STORED_ORDER, "__source_ts_ms", "__source_file", "__source_pos", "__source_row"))
                .alias("t")).collect()[0]["t"]
        new = versions(changes, keys, last_truncate)
        source = new.unionByName(_closers(changes, keys, last_truncate), allowMissingColumns=True).toArrow()
        commit = CommitProperties(app_transactions=[Transaction(self._delta.app_id, batch_id)]) \
            if batch_id is not None else None
        table = self._delta._table()
        if table is None:
            write_deltalake(self.path, new.limit(0).toArrow(), mode="append",
                            storage_options=self._delta.storage_options)
            table = self._delta._table()
        s, t = "s", "t"
        same_key = " AND ".join(f"{_q(k, t)} = {_q(k, s)}" for k in keys)
        on = (f"{same_key} AND (({_q(CURRENT, s)} IS NULL AND {_q(CURRENT, t)}) OR ({_q(CURRENT, s)} IS NOT NULL"
              f" AND {_q('__partition', t)} = {_q('__partition', s)} AND {_q('__offset', t)} = {_q('__offset', s)}))")
        guard = to_sql(not_older(s, t))
        merge = (table.merge(source, predicate=on, source_alias=s, target_alias=t, merge_schema=True,
                             commit_properties=commit)
                 .when_matched_update(updates={VALID_TO: _q(VALID_FROM, s),
                                               VALID_TO_POSITION: _q(VALID_FROM_POSITION, s), CURRENT: "false"},
                                      predicate=f"{_q(CURRENT, s)} IS NULL AND ({guard})")
                 .when_not_matched_insert_all(predicate=f"{_q(CURRENT, s)} IS NOT NULL"))
        if last_truncate is not None:
            # The current versions of keys the batch does not change end with the TRUNCATE (in the same commit).
            merge = merge.when_not_matched_by_source_update(
                updates={VALID_TO: f"to_timestamp_millis({int(last_truncate['__source_ts_ms'])})",
                         VALID_TO_POSITION: f"'{_truncate_position(last_truncate)}'", CURRENT: "false"},
                predicate=_q(CURRENT, t))
        merge.execute()
