"""snapshot.new.tables=incremental: the property is refused without a signal table; at a restart the tables the
current filters match but the stored filters did not join the incremental snapshot (snapshot/new_tables.py)."""
from __future__ import annotations

import json

import pytest

from connector.offsets.position import SourceOffset
from connector.config import load_config
from connector.config.modes import NewTablesMode
from connector.config.settings import FilterSettings
from connector.config.table_filter import TableFilter
from connector.errors import ConfigError
from connector.offsets.parts import IncrementalSnapshotSlot
from schema_history.model import TableId
from snapshot.incremental.context import COLLECTIONS, CORRELATION_ID, PRIMARY_KEY
from snapshot.new_tables import CAPTURED_FILTERS_KEY, CapturedFilters, NewTables
from tests.unit.config.test_config import SERVER, write
from connector.transforms.config import transform_settings

A, B, C = (TableId("db", name) for name in ("a", "b", "c"))


class Tables:
    def table_ids(self) -> list[TableId]:
        return [A, B, C]


def new_tables(include: tuple[str, ...]) -> NewTables:
    filters = FilterSettings(table_include=include)
    return NewTables(filters, Tables(), TableFilter(filters).table_included)


def stored(include: tuple[str, ...] | None, *parts) -> SourceOffset:
    record = (CapturedFilters.of(FilterSettings(table_include=include)),) if include is not None else ()
    return SourceOffset(file="b.000001", pos=400, parts=(*parts, *record))


def collections(offset: SourceOffset) -> list[str]:
    slot = offset.part(IncrementalSnapshotSlot)
    return [] if slot is None else [c[f"{COLLECTIONS}_id"] for c in json.loads(dict(slot.values)[COLLECTIONS])]


def test_newly_matched_tables_join_an_incremental_snapshot_and_the_filters_are_recorded():
    previous = stored(("db.a",))
    start = new_tables(("db.a", "db.b")).apply(previous, previous)
    assert collections(start) == ["db.b"]
    assert dict(start.part(IncrementalSnapshotSlot).values)[CORRELATION_ID] == "new-tables-at-start"
    assert start.to_map()[CAPTURED_FILTERS_KEY] == CapturedFilters.of(FilterSettings(table_include=("db.a", "db.b"))).spec
    # the next restart with the same filters finds nothing new (the slot it stored continues the snapshot)
    again = new_tables(("db.a", "db.b")).apply(start, start.with_parts(start.part(CapturedFilters)))
    assert collections(again) == []


def test_without_a_record_of_the_previous_filters_nothing_is_snapshotted():
    previous = stored(None)
    start = new_tables(("db.a", "db.b")).apply(previous, previous)
    assert collections(start) == [] and start.part(CapturedFilters) is not None


def test_new_tables_are_appended_to_a_snapshot_under_way_keeping_its_keys():
    running = IncrementalSnapshotSlot(((PRIMARY_KEY, "aced00"), (COLLECTIONS, json.dumps(
        [{f"{COLLECTIONS}_id": "db.c", f"{COLLECTIONS}_additional_condition": None,
          f"{COLLECTIONS}_surrogate_key": None}])), (CORRELATION_ID, "signal-7")))
    previous = stored(("db.a",), running)
    start = new_tables(("db.*",)).apply(previous, previous)
    values = dict(start.part(IncrementalSnapshotSlot).values)
    assert collections(start) == ["db.c", "db.b"]  # c already queued, not twice
    assert values[PRIMARY_KEY] == "aced00" and values[CORRELATION_ID] == "signal-7"


def settings(tmp_path, extra: str):
    return load_config(write(tmp_path, SERVER + extra), environ={}).settings(transform_settings)


def test_the_property_needs_a_signal_table_and_the_full_schema_history(tmp_path):
    assert settings(tmp_path, "").snapshot.new_tables is NewTablesMode.OFF
    with pytest.raises(ConfigError, match="signal.data.collection"):
        settings(tmp_path, "debezium.source.snapshot.new.tables=incremental\n")
    with pytest.raises(ConfigError, match="store.only.captured.tables.ddl=false"):
        settings(tmp_path, "debezium.source.snapshot.new.tables=incremental\n"
                           "debezium.source.signal.data.collection=db.sig\n"
                           "debezium.source.schema.history.internal.store.only.captured.tables.ddl=true\n")
    s = settings(tmp_path, "debezium.source.snapshot.new.tables=incremental\n"
                           "debezium.source.signal.data.collection=db.sig\n")
    assert s.snapshot.new_tables is NewTablesMode.INCREMENTAL
