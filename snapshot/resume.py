"""Where an interrupted initial snapshot got to (beyond Debezium, which starts it over from zero).

While a snapshot runs, every data record's offset also says how far the snapshot got:
`snapshot_resume_table` (the table being read, `"db"."table"`) and `snapshot_resume_key` (the primary key
of that record's row, a JSON list). Tables are read in a fixed order and each table in primary-key
order, so "the record for key K of table T is acknowledged" means: every table before T, and every
row of T up to K, are in Kafka. The keys disappear from the offset when the snapshot completes.

How a restart uses them (snapshot/remainder.py, the start decision in snapshot/start_decision.py):
* Let P1 be the binlog position of the interrupted snapshot. Its schema records (all at P1) are in the
  schema history, and its rows so far describe the database at P1.
* The restart opens **no** new consistent snapshot. It recovers the history at P1 (no CREATE is recorded
  again), streams from P1, and reads the rest (T after K, then the later tables) as an incremental snapshot
  beside streaming: chunk by chunk between watermarks (rows written to the signal table, or, without one or
  with read.only=true, the server's own state: snapshot/incremental/read_only.py). A chunk's rows are
  read after its open watermark; a binlog change of one of its keys before the close watermark drops that
  row (the change is newer); the rest are emitted at the close watermark. So every key's records follow
  commit order: its P1 read (if any), the changes after P1 in binlog order, and its chunk read where it
  falls among them. Deletes and DDL after P1 are streamed: no ghost rows, and no ALTER forces a start over.
* The remainder's records are op=r with `source.snapshot=incremental` (their offsets carry Debezium's
  `incremental_snapshot_*` keys, not these), so a kill during the remainder continues it after the last
  acknowledged chunk row, as any incremental snapshot.
* Keys are compared as MySQL compares them (snapshot/chunks.py): integers and strings only; a key of
  another type is not stored, and the interrupted table is then read again from its start (at-least-once).
* On MySQL without GTIDs and without a signal table the connector can write, when the binlog at P1 is
  purged, or when a remaining table cannot be read in chunks (no primary key, a select override), the
  snapshot is taken again from the start, as Debezium does, with a warning.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from connector.offsets.position import SourceOffset
from schema_history.model import TableId

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
