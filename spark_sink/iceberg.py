"""Iceberg tables as a target, written with ``pyiceberg`` from the driver (no Iceberg jars needed).

``IcebergTarget(catalog, identifier)``: `catalog` is pyiceberg's catalog properties (``type=sql`` with a SQLite
``uri`` and a ``warehouse`` directory on a laptop, ``type=rest`` and its ``uri`` on a cluster), `identifier` the
table's ``namespace.table``. The same guarantees as ``DeltaTarget``:

* exactly once per batch: the batch's deletes, inserts and the table property ``binlog-cdc.batch-id`` are one
  Iceberg transaction (one metadata commit); a batch id the table already has is skipped;
* the ordering guard: a change replaces a stored row only if it is not older (``ordering.newer_or_equal``, the
  order the merge guards of the other targets render as SQL), so re-read records cannot roll a row back;
* deletes (``d``, or with soft delete the last image with ``__deleted = true``) and TRUNCATE (every row deleted
  first, in the same transaction);
* new columns are added and widened types promoted (``union_by_name``: lenient schema evolution).

pyiceberg has no MERGE: the stored rows of the batch's keys are read (a scan filtered on the keys), the guard is
decided per key on the driver, and the winning keys are deleted and inserted again (copy-on-write).
"""

from __future__ import annotations

import functools
import operator
from typing import Any, Mapping, Sequence

import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql import DataFrame

from spark_sink.evolution import BatchSchema
from spark_sink.ordering import STORED_ORDER, newer_or_equal

__all__ = ["IcebergTarget", "BATCH_PROPERTY", "local_catalog"]

BATCH_PROPERTY = "binlog-cdc.batch-id"


def local_catalog(root: str) -> dict[str, str]:
    """A laptop's catalog: SQLite under `root`, the tables' files in `root` too."""
    return {"type": "sql", "uri": f"sqlite:///{root}/_catalog.db", "warehouse": f"file://{root}"}


class IcebergTarget:
    """The Iceberg table `identifier` (``namespace.table``) of the pyiceberg catalog with properties `catalog`."""

    def __init__(self, catalog: Mapping[str, str], identifier: str) -> None:
        self.catalog_properties = dict(catalog)
        self.identifier = identifier

    def __repr__(self) -> str:
        return f"IcebergTarget({self.identifier!r})"

    @functools.cached_property
    def catalog(self) -> Any:
        from pyiceberg.catalog import load_catalog
        return load_catalog("binlog_cdc", **self.catalog_properties)

    def table(self) -> Any:
        from pyiceberg.exceptions import NoSuchTableError
        try:
            return self.catalog.load_table(self.identifier)
        except NoSuchTableError:
            return None

    def has_batch(self, batch_id: int) -> bool:
        table = self.table()
        return table is not None and int(table.properties.get(BATCH_PROPERTY, -1)) >= batch_id

    def apply(self, latest: DataFrame, keys: Sequence[str], *, truncate: bool,
              batch_id: int | None, soft_delete: bool, changes: DataFrame | None = None,
              schema: BatchSchema | None = None) -> None:
        from pyiceberg.expressions import AlwaysTrue
        data = latest.toArrow()
        table = self.table()
        if table is None:
            self.catalog.create_namespace_if_not_exists(self.identifier.rsplit(".", 1)[0])
            table = self.catalog.create_table(self.identifier, schema=data.schema.remove_metadata())
        stored = None if truncate else _stored(table, data, keys)
        winners = data.filter(pa.array(_not_older(data, stored, keys), pa.bool_())) if stored else data
        kept = winners if soft_delete else winners.filter(pc.not_equal(winners["__op"], "d"))
        with table.transaction() as tx:
            with tx.update_schema() as update:
                update.union_by_name(data.schema.remove_metadata())
            if truncate:
                tx.delete(AlwaysTrue())
            elif stored:
                replaced = {k for k in _key_tuples(winners, keys) if k in stored}
                if replaced:  # only keys stored: a delete matching nothing still rewrites metadata
                    tx.delete(_key_filter(keys, replaced))
            if kept.num_rows:
                tx.append(kept)
            if batch_id is not None:
                tx.set_properties({BATCH_PROPERTY: str(batch_id)})


def _key_tuples(rows: pa.Table, keys: Sequence[str]) -> set[tuple]:
    return set(zip(*(rows[k].to_pylist() for k in keys)))


def _key_filter(keys: Sequence[str], values: set[tuple]) -> Any:
    """Rows whose key is one of `values`: ``k IN (...)``, or an OR of ANDs for a composite key."""
    from pyiceberg.expressions import And, EqualTo, In, Or
    if len(keys) == 1:
        return In(keys[0], {v for (v,) in values})
    terms = [functools.reduce(And, [EqualTo(k, v) for k, v in zip(keys, key)]) for key in values]
    return functools.reduce(Or, terms)


def _stored(table: Any, rows: pa.Table, keys: Sequence[str]) -> dict[tuple, dict[str, Any]]:
    """The stored ordering columns of the batch's keys: {key: {STORED_ORDER column: value}}."""
    if not rows.num_rows or table.current_snapshot() is None:
        return {}
    names = {f.name for f in table.schema().fields}
    columns = [*keys, *(c for c in STORED_ORDER if c in names)]
    found = table.scan(row_filter=_key_filter(keys, _key_tuples(rows, keys)), selected_fields=tuple(columns)).to_arrow()
    key_of = operator.itemgetter(*keys) if len(keys) > 1 else (lambda r: (r[keys[0]],))
    return {tuple(key_of(r)): r for r in found.to_pylist()}


def _not_older(rows: pa.Table, stored: Mapping[tuple, Mapping[str, Any]], keys: Sequence[str]) -> list[bool]:
    """Per incoming row: does it win over the stored row of its key (none stored, or stored without a Kafka
    position, wins too)? The rule of ``ordering.not_older``."""
    key_of = operator.itemgetter(*keys) if len(keys) > 1 else (lambda r: (r[keys[0]],))
    out = []
    for row in rows.select([*keys, *STORED_ORDER]).to_pylist():
        old = stored.get(tuple(key_of(row)))
        out.append(old is None or old.get("__offset") is None or newer_or_equal(row, old))
    return out
