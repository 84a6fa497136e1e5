"""Schema checkpoints (beyond Debezium): the whole schema as one run of history records.

Debezium recovers by replaying every history record up to the resume offset, so recovery time grows
with the length of the history (each ALTER stores the full table again). A checkpoint records the
complete in-memory schema at one position, in chunks of tables; recovery starts from the newest
complete checkpoint at or before the offset and replays only what follows, so its cost grows with
the number of tables, not with the number of DDL statements ever seen.

Each chunk is an ordinary history record, at the position of the DDL that triggered the checkpoint,
whose `tableChanges` are CREATE entries of full tables, so Debezium (and `prefer.ddl=false` readers)
can replay a history that contains checkpoints: re-creating a table with its current definition
changes nothing. The `ddl` is an SQL comment carrying what the chunk is, the last statement applied to
each of its tables (`last_ddl`, for error messages) and, in the first chunk, the non-table state
(database charsets, system variables, current database):

    /* binlog-cdc schema checkpoint {"id": "...", "part": 1, "parts": 3, ...} */
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence, Union

from schema_history.changes import TableChange, TableChangeType
from schema_history.model import TableId
from schema_history.record import HistoryRecord
from schema_history.state import SchemaState

PREFIX = "/* binlog-cdc schema checkpoint "
SUFFIX = " */"
TABLES_PER_RECORD = 200  # keeps a chunk well under Kafka's default 1 MB message size
LAST_DDL_CHARS = 2000  # per table, so the last-DDL texts cannot push a chunk past that size either


@dataclass(frozen=True)
class Part:
    id: str
    part: int
    parts: int
    meta: Mapping[str, Any]


def part_of(record: HistoryRecord) -> Part | None:
    ddl = record.ddl
    if not ddl or not ddl.startswith(PREFIX) or not ddl.endswith(SUFFIX):
        return None
    try:
        meta = json.loads(ddl[len(PREFIX):-len(SUFFIX)])
        return Part(str(meta["id"]), int(meta["part"]), int(meta["parts"]), meta)
    except (ValueError, KeyError, TypeError):
        return None


def checkpoint_records(state: SchemaState, source: Mapping[str, Any], position: Mapping[str, Any],
                       ts_ms: int) -> list[HistoryRecord]:
    """The records of one checkpoint of `state` (none when there is no table to record)."""
    tables = sorted(state.tables, key=lambda t: (t.id.database, t.id.table))
    if not tables:
        return []
    chunks = [tables[i:i + TABLES_PER_RECORD] for i in range(0, len(tables), TABLES_PER_RECORD)]
    cid = uuid.uuid4().hex
    out = []
    for n, chunk in enumerate(chunks, 1):
        meta: dict[str, Any] = {"id": cid, "part": n, "parts": len(chunks)}
        # The statement that last changed each table (named in TABLE_MAP mismatch errors) is not in the
        # table changes; without it a restart from a checkpoint would forget it. Capped: it only feeds messages.
        last_ddl = {t.id.identifier(): state.last_ddl[t.id][:LAST_DDL_CHARS] for t in chunk if t.id in state.last_ddl}
        if last_ddl:
            meta["last_ddl"] = last_ddl
        if n == 1:
            meta.update(tables=len(tables), charsets=state.database_charsets, variables=state.variables,
                        database=state.current_database)
        changes = tuple(TableChange(TableChangeType.CREATE, t.id, t).to_history_json() for t in chunk)
        out.append(HistoryRecord(source=dict(source), position=dict(position), ts_ms=ts_ms, database_name="",
                                 ddl=PREFIX + json.dumps(meta, sort_keys=True) + SUFFIX, table_changes=changes))
    return out


RawOrRecord = Union[str, HistoryRecord]
_MARK = "binlog-cdc schema checkpoint"


def parsed(item: RawOrRecord) -> HistoryRecord:
    """Stores may hand recovery the records' JSON text, so that records before a checkpoint are never parsed."""
    return item if isinstance(item, HistoryRecord) else HistoryRecord.from_json(item)


def _part(item: RawOrRecord) -> tuple[HistoryRecord, Part] | None:
    if isinstance(item, str) and _MARK not in item:
        return None  # the cheap test that keeps the backwards scan from parsing JSON
    record = parsed(item)
    part = part_of(record)
    return None if part is None else (record, part)


def latest_complete(records: Sequence[RawOrRecord], usable: Callable[[HistoryRecord], bool]
                    ) -> tuple[int, list[HistoryRecord]] | None:
    """(index of the first record, the records) of the newest complete checkpoint `usable` accepts."""
    for i in range(len(records) - 1, -1, -1):
        found = _part(records[i])
        if found is None or found[1].part != found[1].parts or not usable(found[0]):
            continue
        last, part = found
        first = i - part.parts + 1
        chunk: list[HistoryRecord] = []
        for k in range(part.parts):
            other = _part(records[first + k]) if first >= 0 else None
            if other is None or other[1].id != part.id or other[1].part != k + 1:
                break
            chunk.append(other[0])
        else:
            return first, chunk
    return None


def state_from(records: Sequence[HistoryRecord], include_comments: bool = False) -> SchemaState:
    """The schema a complete checkpoint (its records, in order) describes."""
    first = part_of(records[0])
    assert first is not None
    meta = first.meta
    state = SchemaState(database_charsets=dict(meta.get("charsets") or {}),
                        variables=dict(meta.get("variables") or {}), current_database=meta.get("database"),
                        include_comments=include_comments)
    for record in records:
        for change in record.parsed_table_changes():
            if change.table is not None:
                state.tables.put(change.table)
        part = part_of(record)
        for identifier, ddl in ((part.meta.get("last_ddl") or {}) if part else {}).items():
            state.last_ddl[TableId.parse_identifier(identifier)] = ddl
    return state


def is_checkpoint(record: HistoryRecord) -> bool:
    return record.ddl is not None and record.ddl.startswith(PREFIX) and part_of(record) is not None


__all__ = ["checkpoint_records", "latest_complete", "state_from", "is_checkpoint", "part_of", "parsed"]
