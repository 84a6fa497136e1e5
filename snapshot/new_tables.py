"""Beyond Debezium (`snapshot.new.tables=incremental`): tables the filters newly match at a restart are
snapshotted incrementally beside streaming, as if an `execute-snapshot` signal had named them.

Debezium streams a table added to `table.include.list` from the stored position on, and its older rows only
come with the documented multi-step procedure (a signal, or a second connector). Here, at a start that
streams from a stored offset, the tables that

* the schema history knows at the stored position (with `store.only.captured.tables.ddl=false`, Debezium's
  default, it knows every table — so their schema is there and no snapshot of the schema is needed), and
* the current filters match, but the filters of the previous run did not,

join the incremental snapshot (snapshot/incremental/): same records (op=r, `source.snapshot=incremental`),
same `incremental_snapshot_*` offset keys, so a restart continues it after the last acknowledged chunk.
Tables created after the stored position are not among them: their CREATE and every row since are streamed.

"The filters of the previous run" are an offset key of our own (`CapturedFilters`), written in every
streaming offset while the property is on. Debezium's offset loader reads the keys it knows and ignores
this one, so a Debezium connector can still take our offsets over. A stored offset without the key (the
first run with the property, or offsets from Debezium) tells nothing about what was captured: nothing is
snapshotted then, and from then on the key is kept.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Protocol

from connector.offsets.position import SourceOffset
from connector.config.settings import FilterSettings
from connector.config.table_filter import TableFilter
from connector.offsets.parts import IncrementalSnapshotSlot
from schema_history.model import TableId
from snapshot.incremental.context import COLLECTIONS, Collection, IncrementalContext

__all__ = ["CAPTURED_FILTERS_KEY", "NEW_TABLES_CORRELATION_ID", "CapturedFilters", "NewTables"]

log = logging.getLogger(__name__)

CAPTURED_FILTERS_KEY = "captured_table_filters"
# The incremental snapshot's "signal id" for the new tables (in the offsets and the log).
NEW_TABLES_CORRELATION_ID = "new-tables-at-start"
# The FilterSettings fields that decide whether a table is captured (the column lists do not).
_TABLE_FIELDS = ("database_include", "database_exclude", "table_include", "table_exclude", "ignore_builtin")


@dataclass(frozen=True)
class CapturedFilters:
    """The offset part: the table filters of the run that wrote the offset, as compact JSON."""

    spec: str

    @staticmethod
    def of(settings: FilterSettings) -> "CapturedFilters":
        values = {name: getattr(settings, name) for name in _TABLE_FIELDS}
        return CapturedFilters(json.dumps(values, separators=(",", ":")))

    def table_filter(self) -> TableFilter:
        values = json.loads(self.spec)
        return TableFilter(FilterSettings(**{name: tuple(v) if isinstance(v, list) else v
                                             for name, v in values.items() if name in _TABLE_FIELDS}))

    def store(self, offset: dict[str, Any]) -> dict[str, Any]:
        offset[CAPTURED_FILTERS_KEY] = self.spec
        return offset

    @staticmethod
    def load(offset: Mapping[str, Any]) -> "CapturedFilters | None":
        spec = offset.get(CAPTURED_FILTERS_KEY)
        return CapturedFilters(str(spec)) if spec else None


class KnownTables(Protocol):
    """The schema as recovered at the stored offset (the schema tracker)."""

    def table_ids(self) -> list[TableId]: ...


class NewTables:
    """Adds the newly matched tables to the offset streaming starts from (the coordinator's `NewTableSnapshot`)."""

    def __init__(self, current: FilterSettings, tables: KnownTables, included: Callable[[TableId], bool]) -> None:
        self._record = CapturedFilters.of(current)
        self._tables = tables
        self._included = included

    def mark(self, start: SourceOffset) -> SourceOffset:
        """`start` recording the current filters (any start: a fresh snapshot, a resumed one)."""
        rest = tuple(p for p in start.parts if not isinstance(p, CapturedFilters))
        return start.with_parts(*rest, self._record)

    def apply(self, previous: SourceOffset, start: SourceOffset) -> SourceOffset:
        """`start` (streaming from the stored offset `previous`, its schema recovered) with the newly matched
        tables added to its incremental snapshot, and the current filters recorded."""
        prior = previous.part(CapturedFilters)
        if prior is None:
            log.info("snapshot.new.tables=incremental: the stored offset does not say which tables the previous run "
                     "captured (first run with the property); tables newly matched from now on will be snapshotted")
            return self.mark(start)
        before = prior.table_filter()
        slot = start.part(IncrementalSnapshotSlot)
        queued = _queued(slot)
        new = sorted((t for t in self._tables.table_ids()
                      if self._included(t) and not before.table_included(t) and t not in queued),
                     key=lambda t: t.dotted())
        if not new:
            return self.mark(start)
        log.info("snapshot.new.tables=incremental: snapshotting %d table(s) newly matched by the filters "
                 "incrementally beside streaming: %s", len(new), ", ".join(t.dotted() for t in new))
        if slot is not None and queued:
            # Appended to the snapshot under way, its stored keys left byte for byte as they were.
            more = IncrementalContext()
            more.add(NEW_TABLES_CORRELATION_ID, [Collection(t) for t in new])
            extra = json.loads(dict(_slot_values(more)).get(COLLECTIONS, "[]"))
            values = tuple((k, json.dumps(json.loads(str(v)) + extra, separators=(",", ":")) if k == COLLECTIONS
                            else v) for k, v in slot.values)
            new_slot = IncrementalSnapshotSlot(values)
        else:
            context = IncrementalContext()
            context.add(NEW_TABLES_CORRELATION_ID, [Collection(t) for t in new])
            new_slot = IncrementalSnapshotSlot(_slot_values(context))
        rest = tuple(p for p in start.parts if not isinstance(p, (CapturedFilters, IncrementalSnapshotSlot)))
        return start.with_parts(*rest, new_slot, self._record)


def _queued(slot: IncrementalSnapshotSlot | None) -> set[TableId]:
    """The tables the stored incremental snapshot still has to read (its keys are the engine's to decode)."""
    raw = dict(slot.values).get(COLLECTIONS) if slot is not None else None
    return {TableId.parse_identifier(c[f"{COLLECTIONS}_id"]) for c in json.loads(str(raw))} if raw else set()


def _slot_values(context: IncrementalContext) -> tuple[tuple[str, Any], ...]:
    slot = context.slot()
    assert slot is not None  # the context has collections
    return slot.values
