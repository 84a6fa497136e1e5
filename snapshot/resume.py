"""Resuming an interrupted initial snapshot (beyond Debezium, which starts it over from zero).

While a snapshot runs, every data record's offset also says how far the snapshot got:
`snapshot_resume_table` (the table being read, `"db"."table"`) and `snapshot_resume_key` (the primary key
of that record's row, a JSON list). Tables are read in a fixed order and each table in primary-key
order, so "the record for key K of table T is acknowledged" means: every table before T, and every
row of T up to K, are in Kafka. The keys disappear from the offset when the snapshot completes.

Why resuming is safe (the consistency argument):
* Let P1 be the binlog position of the interrupted snapshot. Its schema records (all at P1) are
  already in the schema history, and its rows so far describe the database at P1.
* The resumed run recovers that history, opens a *new* consistent snapshot (same lock sequence; its
  own position P2 >= P1 is only logged), reads the remaining rows (T after K, then the later tables),
  which describe the database at P2, and then streams from **P1**, not P2.
* Every change between P1 and P2 is therefore streamed again after the snapshot. Each change event
  carries the full row image, so for every key the last event a consumer sees is its latest state:
  a row read at P2 and followed by replayed P1..P2 changes ends at the P2 state or later, a row
  deleted before P2 is deleted by the replayed delete, and a row inserted before P2 is read (op=r)
  and then created again (op=c). The result is the same at-least-once contract as streaming after a
  crash: nothing is lost, some changes are seen twice, keyed upserts converge.
* The schema is the P1 schema plus the replayed DDL. Rows read at P2 are decoded with the P1
  schema, which is only right if no DDL changed a remaining table between P1 and P2: the resumed
  run compares each remaining table's columns with the history and starts over when they differ.
* Keys are compared as MySQL compares them (the keyset query of snapshot/chunks.py, `(pk...) > (K...)
  ORDER BY pk...`): integers and strings only; a table whose key has other types, or no primary key, or
  an overridden statement that cannot be chunked safely (snapshot/chunks.py), is read again from its
  start (its already-sent rows are sent again: at-least-once).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import pymysql
from sqlglot import exp

from connector.binlog.position import SourceOffset
from schema_history.model import TableId
from snapshot.chunks import DIALECT, table_expression
from snapshot.emitter import TableSchemas

if TYPE_CHECKING:
    from snapshot.plan import TableRead

log = logging.getLogger(__name__)

RESUME_TABLE = "snapshot_resume_table"
RESUME_KEY = "snapshot_resume_key"
RESUMABLE_KEY_TYPES = (int, str)


class ResumeInvalid(Exception):
    """The interrupted snapshot cannot be resumed safely: take a new one."""


@dataclass(frozen=True)
class ResumePoint:
    table: TableId
    key: tuple | None  # None: read the table from its start

    @staticmethod
    def from_offset(stored: Mapping[str, Any] | None) -> "ResumePoint | None":
        part = SnapshotResume.load(stored) if stored else None
        return part.point() if part is not None else None


@dataclass(frozen=True, slots=True)
class SnapshotResume:
    """The offset part saying where an interrupted snapshot got to: the table being read and, if it has a
    resumable key, the key of the row the record carries (both as stored, so the per-row cost is nil)."""

    table: str
    key: str | None

    def store(self, offset: dict[str, Any]) -> dict[str, Any]:
        offset[RESUME_TABLE] = self.table
        if self.key is not None:
            offset[RESUME_KEY] = self.key
        return offset

    @staticmethod
    def load(offset: Mapping[str, Any]) -> "SnapshotResume | None":
        table = offset.get(RESUME_TABLE)
        if not table:
            return None
        key = offset.get(RESUME_KEY)
        return SnapshotResume(str(table), str(key) if key else None)

    def point(self) -> ResumePoint:
        key = tuple(json.loads(self.key)) if self.key else None
        return ResumePoint(TableId.parse_identifier(self.table), key)


class ResumeOffsets:
    """The offsets of one snapshot's records: `offset` with a `SnapshotResume` part per record."""

    __slots__ = ("_offset",)

    def __init__(self, offset: SourceOffset) -> None:
        self._offset = offset

    def at(self, table: str, key: str | None) -> SourceOffset:
        return self._offset.with_parts(SnapshotResume(table, key))


def encode_key(values: Sequence[Any]) -> str | None:
    """The key as JSON, or None when a value is of a type the resumed range query cannot compare exactly."""
    if len(values) == 1 and type(values[0]) is int:  # the common case, once per snapshot row: keep it cheap
        return f"[{values[0]}]"
    if not all(type(v) in RESUMABLE_KEY_TYPES for v in values):  # type(), not isinstance(): bool is no key
        return None
    return json.dumps(list(values), separators=(",", ":"))


def remaining_reads(conn: pymysql.connections.Connection, reads: Sequence[TableRead], point: ResumePoint,
                    schemas: TableSchemas) -> list[TableRead]:
    """The reads from the interrupted table on, the first one after the resume key; ResumeInvalid when the
    table is gone from the plan or a remaining table's columns differ from the history's (docstring)."""
    names = [r.table_id for r in reads]
    if point.table not in names:
        raise ResumeInvalid(f"table {point.table.dotted()} is no longer part of the snapshot")
    remaining = list(reads[names.index(point.table):])
    for read in remaining:
        columns, _ = schemas.table_columns(read.table_id)
        with conn.cursor() as cur:
            cur.execute(exp.select(exp.Star()).from_(table_expression(read.table_id)).limit(0).sql(dialect=DIALECT))
            now = [d[0] for d in cur.description]
        if [c.lower() for c in now] != [c.lower() for c in columns]:
            raise ResumeInvalid(f"the columns of {read.table_id.dotted()} changed since the snapshot was interrupted")
    first = remaining[0]
    if point.key is not None and first.scan.keyed and len(point.key) == len(first.scan.key):
        remaining[0] = replace(first, scan=replace(first.scan, after=point.key), streaming=True)
        log.info("Resumed read of %s: %s", first.table_id.dotted(), remaining[0].select)
    return remaining
