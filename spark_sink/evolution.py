"""What a table does when its source table's schema changes (``--schema-evolution``).

The batch's rows carry every schema version they were written with (``TableLayout``: the union of the versions'
columns, a later version's type winning); the source's schema now is the batch's newest version. Against the
stored table's columns that gives the columns added, dropped and retyped; a rename is told from a drop plus an add
by the DDL in the schema-change topic (``ALTER TABLE ... RENAME COLUMN a TO b`` / ``CHANGE a b ...``).

* ``evolve``: the table follows the source: added columns appear, dropped ones go, renamed ones keep their
  values under the new name, widened ones (INT -> BIGINT, VARCHAR(10) -> VARCHAR(20), ...) get the new type;
* ``lenient`` (default): added and widened as in ``evolve``; dropped columns stay (null in new rows), a renamed
  column is kept under its old name beside the new one;
* ``ignore``: the table keeps the columns it was created with: new columns are not written, a renamed column's
  values go on under its old name, a dropped one is null in new rows; a widened column is widened (its new values
  would not fit the old type);
* ``fail``: the first batch that holds a schema change stops the mirror with the DDL and its binlog position.

Dropping, renaming and retyping a stored column rewrites the table (one overwrite commit before the batch's merge;
a re-run finds the table already evolved). DDL is rare; tables are rewritten only when it happens.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Iterable, Mapping, Sequence

import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.pandas.types import from_arrow_type

from spark_sink.connect_schema import ConnectField
from spark_sink.decoder import TableLayout
from spark_sink.semantic_types import TimeMode

__all__ = ["SchemaEvolution", "SchemaChangeRefused", "TableDdl", "ColumnChanges", "BatchSchema", "table_ddls",
           "column_changes", "prepare_delta"]


class SchemaEvolution(StrEnum):
    EVOLVE = "evolve"
    LENIENT = "lenient"
    IGNORE = "ignore"
    FAIL = "fail"


class SchemaChangeRefused(RuntimeError):
    """``fail`` mode met a schema change; the message is the one line the mirror logs."""


@dataclass(frozen=True)
class TableDdl:
    """One schema-change record of a table: its DDL, where it was in the binlog, the columns after it."""

    ddl: str
    position: str  # file:pos
    columns: tuple[str, ...]
    renames: Mapping[str, str] = field(default_factory=dict)  # old name -> new name


_NAME = r"`?([A-Za-z0-9_$]+)`?"
_RENAMES = (re.compile(rf"RENAME\s+COLUMN\s+(?:IF\s+EXISTS\s+)?{_NAME}\s+TO\s+{_NAME}", re.I),
            re.compile(rf"CHANGE\s+(?:COLUMN\s+)?(?:IF\s+EXISTS\s+)?{_NAME}\s+{_NAME}", re.I))


def renames_in(ddl: str) -> dict[str, str]:
    """Column renames an ALTER TABLE makes (``CHANGE a a ...`` only retypes: not a rename)."""
    out = {}
    for pattern in _RENAMES:
        for old, new in pattern.findall(ddl):
            if old != new:
                out[old] = new
    return out


def table_ddls(payloads: Iterable[Mapping[str, Any]], topic_prefix: str) -> dict[str, list[TableDdl]]:
    """Schema-change payloads (oldest first) → the DDLs per data topic, oldest first."""
    out: dict[str, list[TableDdl]] = {}
    for payload in payloads:
        source = payload.get("source") or {}
        position = f"{source.get('file')}:{source.get('pos')}"
        for change in payload.get("tableChanges") or ():
            db, table = (part.strip('"') for part in change["id"].split('"."'))
            columns = tuple(c["name"] for c in sorted((change.get("table") or {}).get("columns") or (),
                                                      key=lambda c: c["position"]))
            out.setdefault(".".join((topic_prefix, db, table)), []).append(
                TableDdl(payload.get("ddl", ""), position, columns, renames_in(payload.get("ddl", ""))))
    return out


@dataclass(frozen=True)
class ColumnChanges:
    """The stored table against the source's newest version (data columns only)."""

    added: tuple[str, ...]
    dropped: tuple[str, ...]
    retyped: tuple[str, ...]
    renamed: Mapping[str, str]  # stored name -> new name

    def __bool__(self) -> bool:
        return bool(self.added or self.dropped or self.retyped or self.renamed)


def column_changes(stored: Mapping[str, Any], newest: Mapping[str, Any], ddls: Sequence[TableDdl]) -> ColumnChanges:
    """`stored` and `newest` map column name → type (any comparable type objects)."""
    renamed = {}
    for ddl in ddls:
        for old, new in ddl.renames.items():
            first = next((o for o, n in renamed.items() if n == old), old)  # a -> b, then b -> c: a -> c
            renamed.pop(first, None)
            renamed[first] = new
    renamed = {o: n for o, n in renamed.items() if o in stored and n in newest and n not in stored}
    added = tuple(c for c in newest if c not in stored and c not in renamed.values())
    dropped = tuple(c for c in stored if c not in newest and c not in renamed)
    retyped = tuple(c for c in newest if c in stored and stored[c] != newest[c])
    return ColumnChanges(added, dropped, retyped, renamed)


def refusal(topic: str, changes: ColumnChanges, stored: Sequence[str], ddls: Sequence[TableDdl]) -> str:
    """The one line of ``fail`` mode, quoting the first DDL after the one that made the stored columns (else the
    last DDL of the table)."""
    made = next((i for i, d in enumerate(ddls) if d.columns == tuple(stored)), None)
    ddl = ddls[made + 1] if made is not None and made + 1 < len(ddls) else (ddls[-1] if ddls else None)
    what = ", ".join(f"{k} {v}" for k, v in (("added", changes.added), ("dropped", changes.dropped),
                                             ("retyped", changes.retyped), ("renamed", changes.renamed)) if v)
    where = f": {ddl.ddl} at {ddl.position}" if ddl else " (no DDL found in the schema-change topic)"
    return (f"schema change of {topic} refused (--schema-evolution fail){where}; columns {what}. "
            "Fix: mirror with another --schema-evolution mode, or into a new target")


@dataclass(frozen=True)
class BatchSchema:
    """What a target needs to follow one topic's schema changes in a batch."""

    topic: str
    mode: SchemaEvolution
    oldest: Mapping[str, pa.DataType]  # the batch's first schema version: column -> Arrow type
    newest: Mapping[str, pa.DataType]  # its last (the source's schema now)
    ddls: Sequence[TableDdl] = ()

    @classmethod
    def of(cls, topic: str, mode: SchemaEvolution, versions: Sequence[ConnectField],
           ddls: Sequence[TableDdl] = ()) -> "BatchSchema":
        def columns(version: ConnectField) -> dict[str, pa.DataType]:
            return {c.name: c.arrow_type for c in TableLayout.of([version], TimeMode.MICROS).columns}
        return cls(topic, mode, columns(versions[0]), columns(versions[-1]), tuple(ddls))


def _kind(t: pa.DataType) -> object:
    """Types compared for a schema change, as Spark names them: Delta reads strings back as large or view strings,
    names list elements and may not keep nested nullability, none of which is a change (nor is VARCHAR(10) ->
    VARCHAR(20) to a lake table)."""
    if pa.types.is_string_view(t) or pa.types.is_binary_view(t):  # Spark has no name for views
        t = pa.string() if pa.types.is_string_view(t) else pa.binary()
    try:
        return from_arrow_type(t).simpleString()  # without nullability, which Delta may not keep as written
    except (TypeError, NotImplementedError):  # a type Spark has no name for: compared as Arrow's
        return str(t)


def _data_columns(schema: pa.Schema) -> dict[str, pa.DataType]:
    return {f.name: f.type for f in schema if not f.name.startswith("__")}


def prepare_delta(path: str, rows: DataFrame, batch: BatchSchema, storage_options: Mapping[str, str] | None = None,
                  *, keep_old_columns: bool = False) -> DataFrame:
    """Bring the Delta table at `path` and the batch's `rows` to the columns `batch.mode` asks for; the rows to
    merge come back. `keep_old_columns` (a history table: old versions keep their columns) turns ``evolve`` into
    ``lenient``."""
    from deltalake import DeltaTable, write_deltalake
    table = DeltaTable(path, storage_options=storage_options) \
        if DeltaTable.is_deltatable(path, storage_options=storage_options) else None
    stored = _data_columns(pa.schema(table.schema().to_arrow())) if table is not None else dict(batch.oldest)
    changes = column_changes({c: _kind(t) for c, t in stored.items()},
                             {c: _kind(t) for c, t in batch.newest.items()}, batch.ddls)
    mode = SchemaEvolution.LENIENT if keep_old_columns and batch.mode is SchemaEvolution.EVOLVE else batch.mode
    if not changes:
        return rows
    if mode is SchemaEvolution.FAIL:
        raise SchemaChangeRefused(refusal(batch.topic, changes, list(stored), batch.ddls))
    evolve = mode is SchemaEvolution.EVOLVE
    renamed = dict(changes.renamed) if evolve else {}
    dropped = changes.dropped if evolve else ()
    if table is not None and (renamed or dropped or changes.retyped):
        data = table.to_pyarrow_table()
        for c in changes.retyped:
            data = data.set_column(data.schema.get_field_index(c), c, data.column(c).cast(batch.newest[c]))
        data = data.drop_columns(list(dropped))
        data = data.rename_columns([renamed.get(c, c) for c in data.column_names])
        write_deltalake(path, data, mode="overwrite", schema_mode="overwrite", storage_options=storage_options)
    if mode is SchemaEvolution.IGNORE:
        # The table's columns, a renamed one under its old name; a widened one widened too (new values would not
        # fit the old type).
        keep = []
        for c, t in stored.items():
            new = changes.renamed.get(c)
            value = F.coalesce(*[F.col(n) for n in (new, c) if n is not None and n in rows.columns], F.lit(None))
            keep.append(value.cast(from_arrow_type(batch.newest[c] if c in changes.retyped else t)).alias(c))
        return rows.select(*keep, *[c for c in rows.columns if c.startswith("__")])
    for old, new in renamed.items():  # rows written before the rename carry the value under the old name
        rows = rows.withColumn(new, F.coalesce(F.col(new), F.col(old))) if old in rows.columns else rows
    if evolve:
        rows = rows.drop(*[c for c in rows.columns if not c.startswith("__") and c not in batch.newest])
    return rows
