"""Where applied changes go. A ``Target`` takes the last change per key of one batch.

* ``DeltaTarget``: a Delta table written with the ``deltalake`` package (delta-rs) from the
  driver — for clusters and laptops without the Delta Lake jars. Each batch commits with a
  Delta transaction id ``(app_id, batch_id)``, so a re-run batch is recognised and skipped.
* ``SparkDeltaTarget``: a Delta table through Spark SQL ``MERGE INTO`` (needs delta-spark
  configured on the cluster); the same merge conditions, executed by the cluster.
* ``ParquetTarget``: an append-only changelog (``changelog/batch_id=N``, rewritten whole if
  the batch is re-run) plus a compacted current-state table (``current/v=N``) published by
  atomically replacing a pointer file; read it with ``read_current``.

All three keep ``META_COLUMNS`` in the table and order changes as ``ordering`` defines: a change
replaces a stored row only if it is not older than the row's (Kafka order as written).
"""

from __future__ import annotations

import os
import shutil
import uuid
from pathlib import Path
from typing import Any, Protocol, Sequence, runtime_checkable

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from spark_sink.evolution import BatchSchema, prepare_delta
from spark_sink.merge_sql import SOURCE_ALIAS, TARGET_ALIAS, merge_plan, merge_statement
from spark_sink.ordering import latest_per_key

__all__ = ["Target", "ArrowMerge", "DeltaTarget", "SparkDeltaTarget", "ParquetTarget", "FanOut", "target_for",
           "read_current"]


class Target(Protocol):
    def has_batch(self, batch_id: int) -> bool:
        """True if this batch id was already applied (re-run after a failure)."""

    def apply(self, latest: DataFrame, keys: Sequence[str], *, truncate: bool,
              batch_id: int | None, soft_delete: bool, changes: DataFrame | None = None,
              schema: BatchSchema | None = None) -> None:
        """Empty the table if `truncate`, then merge `latest` (one row per key). `changes` is
        every change of the batch in order, for targets that keep a changelog; `schema` says how the
        table follows the source's schema changes (targets without one keep every column: lenient)."""


@runtime_checkable
class ArrowMerge(Target, Protocol):
    """A target that merges a pyarrow Table in the driver: the applier reads the rows into Arrow once and counts
    them there, instead of caching them in Spark for a count job and reading the cache again."""

    def prepare(self, rows: DataFrame, schema: BatchSchema | None) -> DataFrame:
        """`rows` brought to the table's columns as `schema` asks (may change the table first)."""

    def merge(self, data: Any, keys: Sequence[str], *, truncate: bool, batch_id: int | None,
              soft_delete: bool) -> None:
        """Empty the table if `truncate`, then merge `data` (a pyarrow Table from ``prepare``'s rows)."""


class DeltaTarget:
    """Delta table at `path` (local or any URI delta-rs supports), written with ``deltalake``."""

    def __init__(self, path: str | os.PathLike, app_id: str = "binlog-cdc-spark-sink",
                 storage_options: dict[str, str] | None = None) -> None:
        self.path = str(path)
        self.app_id = app_id
        self.storage_options = storage_options

    def __repr__(self) -> str:
        return f"DeltaTarget({self.path!r})"

    def _table(self) -> Any:
        from deltalake import DeltaTable
        if DeltaTable.is_deltatable(self.path, storage_options=self.storage_options):
            return DeltaTable(self.path, storage_options=self.storage_options)
        return None

    def has_batch(self, batch_id: int) -> bool:
        table = self._table()
        if table is None:
            return False
        version = table.transaction_version(self.app_id)
        return version is not None and version >= batch_id

    def apply(self, latest: DataFrame, keys: Sequence[str], *, truncate: bool,
              batch_id: int | None, soft_delete: bool, changes: DataFrame | None = None,
              schema: BatchSchema | None = None) -> None:
        self.merge(self.prepare(latest, schema).toArrow(), keys, truncate=truncate, batch_id=batch_id,
                   soft_delete=soft_delete)

    def prepare(self, rows: DataFrame, schema: BatchSchema | None) -> DataFrame:
        return rows if schema is None else prepare_delta(self.path, rows, schema, self.storage_options)

    def merge(self, data: Any, keys: Sequence[str], *, truncate: bool, batch_id: int | None,
              soft_delete: bool) -> None:
        """Empty the table if `truncate`, then merge `data` (a pyarrow Table, one row per key, already brought to
        the table's columns) in one Delta commit that records `batch_id`."""
        from deltalake import CommitProperties, Transaction, write_deltalake
        commit = CommitProperties(app_transactions=[Transaction(self.app_id, batch_id)]) \
            if batch_id is not None else None
        table = self._table()
        if table is None:
            write_deltalake(self.path, data.slice(0, 0), mode="append",
                            storage_options=self.storage_options)
            table = self._table()
        if truncate:
            table.delete()  # a delete of everything: readers of older versions keep their data
            table = self._table()
        plan = merge_plan(keys, soft_delete=soft_delete).sql()
        merger = table.merge(data, predicate=plan["on"], source_alias=SOURCE_ALIAS, target_alias=TARGET_ALIAS,
                             merge_schema=True, commit_properties=commit)
        if plan["delete_if"] is not None:
            merger = merger.when_matched_delete(predicate=plan["delete_if"])
        merger.when_matched_update_all(predicate=plan["update_if"]).when_not_matched_insert_all(
            predicate=plan["insert_if"]).execute()


class SparkDeltaTarget:
    """Delta table `table` (a name, or ``delta.`/path```) merged with Spark SQL ``MERGE INTO``."""

    def __init__(self, table: str) -> None:
        self.table = table

    def has_batch(self, batch_id: int) -> bool:
        return False  # idempotence comes from the position guard of the MERGE

    def apply(self, latest: DataFrame, keys: Sequence[str], *, truncate: bool,
              batch_id: int | None, soft_delete: bool, changes: DataFrame | None = None,
              schema: BatchSchema | None = None) -> None:
        spark = latest.sparkSession
        view = f"binlog_cdc_changes_{uuid.uuid4().hex[:8]}"
        latest.createOrReplaceTempView(view)
        spark.sql(f"CREATE TABLE IF NOT EXISTS {self.table} USING DELTA AS SELECT * FROM {view} WHERE false")
        if truncate:
            spark.sql(f"DELETE FROM {self.table}")
        spark.sql(merge_statement(self.table, view, merge_plan(keys, soft_delete=soft_delete)))
        spark.catalog.dropTempView(view)


class FanOut:
    """Several targets fed the same batch (the current state and its history): each one skips a batch it already
    has, so after a crash between two of them the batch is re-run for the one that misses it."""

    def __init__(self, *targets: Target) -> None:
        self.targets = targets

    def __repr__(self) -> str:
        return f"FanOut{self.targets!r}"

    def has_batch(self, batch_id: int) -> bool:
        return all(t.has_batch(batch_id) for t in self.targets)

    def apply(self, latest: DataFrame, keys: Sequence[str], *, truncate: bool,
              batch_id: int | None, soft_delete: bool, changes: DataFrame | None = None,
              schema: BatchSchema | None = None) -> None:
        for target in self.targets:
            if batch_id is None or not target.has_batch(batch_id):
                target.apply(latest, keys, truncate=truncate, batch_id=batch_id, soft_delete=soft_delete,
                             changes=changes, schema=schema)


_INCOMING = "__incoming"  # 1 for the batch's rows, 0 for the stored state's


class ParquetTarget:
    """Changelog + compacted current state as Parquet under `root` (a local directory)."""

    def __init__(self, root: str | os.PathLike, keep_versions: int = 2) -> None:
        self.root = Path(root)
        self.keep_versions = keep_versions

    def __repr__(self) -> str:
        return f"ParquetTarget({str(self.root)!r})"

    @property
    def _pointer(self) -> Path:
        return self.root / "_current"

    def current_version(self) -> int | None:
        return int(self._pointer.read_text()) if self._pointer.exists() else None

    def has_batch(self, batch_id: int) -> bool:
        version = self.current_version()
        return version is not None and version >= batch_id

    def apply(self, latest: DataFrame, keys: Sequence[str], *, truncate: bool,
              batch_id: int | None, soft_delete: bool, changes: DataFrame | None = None,
              schema: BatchSchema | None = None) -> None:
        spark = latest.sparkSession
        previous = self.current_version()
        version = batch_id if batch_id is not None else (previous or 0) + 1
        log = latest if changes is None else changes
        log.write.mode("overwrite").parquet(str(self.root / "changelog" / f"batch_id={version}"))
        # On a tie of positions the batch's row wins over the stored one, as in the Delta guard.
        state = latest.withColumn(_INCOMING, F.lit(1))
        if previous is not None and not truncate:
            old = spark.read.parquet(str(self.root / "current" / f"v={previous}")).withColumn(_INCOMING, F.lit(0))
            state = old.unionByName(state, allowMissingColumns=True)
        state = latest_per_key(state, keys, tie=_INCOMING).drop(_INCOMING)
        if not soft_delete:
            state = state.filter(F.col("__op") != "d")
        out = self.root / "current" / f"v={version}"
        state.write.mode("overwrite").parquet(str(out))
        tmp = self.root / f"_current.{uuid.uuid4().hex}"
        tmp.write_text(str(version))
        os.replace(tmp, self._pointer)  # the commit point: readers switch to v=version
        self._cleanup(version)

    def _cleanup(self, version: int) -> None:
        versions = sorted(int(p.name[2:]) for p in (self.root / "current").glob("v=*"))
        for old in versions[:-self.keep_versions]:
            if old != version:
                shutil.rmtree(self.root / "current" / f"v={old}", ignore_errors=True)


def read_current(spark: SparkSession, target: ParquetTarget | DeltaTarget) -> DataFrame:
    """The current state of a target as a DataFrame (the sink's meta columns included)."""
    if isinstance(target, ParquetTarget):
        version = target.current_version()
        if version is None:
            raise FileNotFoundError(f"{target}: nothing applied yet")
        return spark.read.parquet(str(target.root / "current" / f"v={version}"))
    from deltalake import DeltaTable
    return spark.createDataFrame(DeltaTable(target.path).to_pyarrow_table())


def target_for(path: str) -> Target:
    """A path string means a Delta table written with the deltalake package."""
    return DeltaTarget(path)
