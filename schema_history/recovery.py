"""Rebuild the schema from stored history up to a resume offset.

Follows Debezium's `AbstractSchemaHistory.recover`: every record whose position is at or before
the offset (`BinlogHistoryRecordComparator.isPositionAtOrBefore`) is applied in order; records
with `tableChanges` are applied as stored (no parsing, unless `prefer_ddl`), records without
(USE, CREATE/DROP DATABASE, SET character_set_server, CREATE INDEX...) are re-parsed so database
charsets, server charset, current database and dropped databases are right afterwards.
"""

from __future__ import annotations

import collections
import logging
import re
from typing import Any, Callable, Iterable, Mapping

from connector.gtids.sets import GtidSet, gtid_source
from schema_history import checkpoint
from schema_history.changes import TableChangeType
from schema_history.ddl.filters import DdlFilter
from schema_history.ddl.parser import apply_ddl
from schema_history.errors import DdlParseError
from schema_history.record import HistoryRecord
from schema_history.state import SchemaState

log = logging.getLogger(__name__)


# -- GTID sets ---------------------------------------------------------------------------------

def _mariadb_gtids(text: str) -> dict[int, tuple[int, int]]:
    out: dict[int, tuple[int, int]] = {}
    for part in re.split(r",\s*", text.strip()):
        if part:
            domain, server, seq = (int(x) for x in part.split("-"))
            out[domain] = (server, seq)
    return out


def _is_mariadb(text: str) -> bool:
    return bool(re.fullmatch(r"\s*\d+-\d+-\d+(\s*,\s*\d+-\d+-\d+)*\s*", text))


def gtid_set_contained(recorded: str, desired: str) -> bool:
    """Is every transaction of `recorded` also in `desired`? (MySQL `uuid:1-5` or MariaDB `d-s-n` sets.)"""
    if _is_mariadb(recorded) and _is_mariadb(desired):
        want = _mariadb_gtids(desired)
        return all(d in want and seq <= want[d][1] for d, (_, seq) in _mariadb_gtids(recorded).items())
    return GtidSet.parse(recorded).is_subset_of(GtidSet.parse(desired))


def _same_gtids(a: str, b: str) -> bool:
    if _is_mariadb(a) and _is_mariadb(b):
        return _mariadb_gtids(a) == _mariadb_gtids(b)
    return GtidSet.parse(a) == GtidSet.parse(b)


def _int(doc: Mapping[str, Any], key: str, default: int) -> int:
    value = doc.get(key)
    return default if value is None else int(value)


def _is_snapshot(doc: Mapping[str, Any]) -> bool:
    """Offsets carry `snapshot` while the snapshot runs (`"INITIAL"`, older versions `true`)."""
    value = doc.get("snapshot")
    return value is not None and str(value).lower() not in ("false", "")


def _binlog_file(name: str) -> tuple[str, int]:
    base, dot, ext = str(name).rpartition(".")
    if not dot or not ext.isdigit():
        raise ValueError(f"binlog file name has no numeric extension: {name!r}")
    return base, int(ext)


def _gtid_source(part: str) -> str:
    """The source a GTID-set element belongs to, as `gtid.source.includes` names it: the server UUID of a
    MySQL `uuid:1-5` (or tagged `uuid:1-5:etl:1-2`), the `domain-server` of a MariaDB `domain-server-seq`."""
    part = part.strip()
    if ":" in part:
        return gtid_source(part)
    return part.rpartition("-")[0]


def _retain_gtid_sources(text: str, accepts: Callable[[str], bool]) -> str:
    """The elements of a GTID set whose source `accepts` (Debezium's `GtidSet.retainAll(filter)`)."""
    return ",".join(p.strip() for p in re.split(r",\s*", text.strip()) if p.strip() and accepts(_gtid_source(p)))


def is_at_or_before(recorded: Mapping[str, Any], desired: Mapping[str, Any],
                    gtid_source_filter: Callable[[str], bool] | None = None) -> bool:
    """`BinlogHistoryRecordComparator.isPositionAtOrBefore`: is a history record's position at or
    before the connector offset we resume from?

    With `gtid.source.includes/excludes` both GTID sets keep only the followed sources before they are
    compared, as Debezium does: the snapshot records the server's whole executed set, while streaming
    offsets never add the GTIDs of sources that are not followed."""
    rec_gtids, want_gtids = recorded.get("gtids"), desired.get("gtids")
    if want_gtids is not None:
        if rec_gtids is None:
            return True  # GTIDs get enabled, rarely disabled: a record without them is older
        if gtid_source_filter is not None:
            rec_gtids = _retain_gtid_sources(rec_gtids, gtid_source_filter)
            want_gtids = _retain_gtid_sources(want_gtids, gtid_source_filter)
        if _same_gtids(rec_gtids, want_gtids):
            if not _is_snapshot(recorded) and _is_snapshot(desired):
                return False
            return _int(recorded, "event", 0) <= _int(desired, "event", 0)
        return gtid_set_contained(rec_gtids, want_gtids)
    if rec_gtids is not None:
        return False
    if _int(recorded, "server_id", 0) != _int(desired, "server_id", 0):
        # binlog coordinates of different servers are unrelated: fall back to timestamps
        return _int(recorded, "ts_sec", 0) <= _int(desired, "ts_sec", 0)
    rec_base, rec_ext = _binlog_file(recorded.get("file", ""))
    want_base, want_ext = _binlog_file(desired.get("file", ""))
    if rec_base != want_base:
        raise ValueError(f"cannot compare binlog files {recorded.get('file')!r} and {desired.get('file')!r}")
    if rec_ext != want_ext:
        return rec_ext < want_ext
    for key in ("pos", "event"):
        diff = _int(recorded, key, 0) - _int(desired, key, 0)
        if diff:
            return diff < 0
    return _int(recorded, "row", 0) <= _int(desired, "row", 0)


# -- replay ------------------------------------------------------------------------------------

def apply_record(state: SchemaState, record: HistoryRecord, prefer_ddl: bool = False,
                 ddl_filter: DdlFilter | None = None, skip_unparseable_ddl: bool = False) -> None:
    changes = record.parsed_table_changes()
    if changes and not prefer_ddl:
        for change in changes:
            if record.ddl is not None:
                state.last_ddl[change.id] = record.ddl
            if change.type is TableChangeType.DROP:
                state.tables.remove(change.id)
                continue
            if change.table is not None:
                state.tables.put(change.table)
            if change.previous_id is not None:
                state.tables.remove(change.previous_id)
        return
    if record.ddl is None:
        return
    if ddl_filter is not None and ddl_filter.skips(record.ddl):
        return
    try:
        apply_ddl(state, record.ddl, record.database_name or None)
    except DdlParseError:
        if not skip_unparseable_ddl:
            raise
        log.warning("Skipping unparseable DDL while recovering schema history: %s", record.ddl)


def recover(records: Iterable[HistoryRecord | str], offset: Mapping[str, Any] | None, prefer_ddl: bool = False,
            ddl_filter: DdlFilter | None = None, skip_unparseable_ddl: bool = False,
            state: SchemaState | None = None, tail: "collections.deque[HistoryRecord] | None" = None,
            gtid_source_filter: Callable[[str], bool] | None = None) -> SchemaState:
    """Replay `records` (oldest first) that are at or before `offset` (all of them if None), starting
    from the newest complete schema checkpoint at or before `offset` when there is one."""
    state = state or SchemaState()
    records = list(records)
    start = 0
    found = checkpoint.latest_complete(
        records, lambda r: offset is None or is_at_or_before(r.position, offset, gtid_source_filter))
    if found is not None:
        first, chunk = found
        state = checkpoint.state_from(chunk, state.include_comments)
        start = first + len(chunk)
        log.info("Schema history checkpoint at record %d: %d tables; replaying the %d records after it",
                 first, len(state.tables), len(records) - start)
    applied = 0
    for item in records[start:]:
        record = checkpoint.parsed(item)
        if offset is not None and not is_at_or_before(record.position, offset, gtid_source_filter):
            continue
        if checkpoint.is_checkpoint(record):
            continue  # an incomplete checkpoint, or one the chosen one supersedes: nothing new in it
        apply_record(state, record, prefer_ddl, ddl_filter, skip_unparseable_ddl)
        applied += 1
        if tail is not None:
            tail.append(record)
    log.info("Recovered schema history: %d records applied, %d tables", applied, len(state.tables))
    return state
