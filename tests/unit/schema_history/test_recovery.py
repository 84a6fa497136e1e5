"""Recovery: which records apply for an offset, and the rebuilt schema (incl. charsets, USE)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from schema_history.ddl.parser import apply_ddl
from schema_history.record import HistoryRecord, to_compact_json
from schema_history.recovery import gtid_set_contained, is_at_or_before, recover
from schema_history.state import SchemaState

GOLDEN = Path(__file__).resolve().parents[2] / "fixtures" / "golden"


def _records(name: str) -> list[HistoryRecord]:
    path = GOLDEN / name / "schema_history.jsonl"
    return [HistoryRecord.from_json(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


@pytest.mark.parametrize("recorded, desired, expected", [
    ({"file": "b.000001", "pos": 10}, {"file": "b.000002", "pos": 4}, True),
    ({"file": "b.000001", "pos": 10, "row": 1}, {"file": "b.000001", "pos": 10, "row": 1}, True),
    ({"file": "b.000002", "pos": 10}, {"file": "b.000001", "pos": 400}, False),
    ({"file": "b.000001", "pos": 10}, {"file": "b.000001", "pos": 10}, True),
    ({"file": "b.000001", "pos": 11}, {"file": "b.000001", "pos": 10}, False),
    ({"file": "b.000001", "pos": 10, "event": 2}, {"file": "b.000001", "pos": 10, "event": 1}, False),
    ({"file": "b.000001", "pos": 10, "event": 1, "row": 3}, {"file": "b.000001", "pos": 10, "event": 1, "row": 2}, False),
    ({"file": "b.000001", "pos": 10, "event": 1}, {"file": "b.000001", "pos": 10, "event": 2}, True),
    # different server ids (snapshot records carry none): compare ts_sec
    ({"ts_sec": 5, "file": "b.000009", "pos": 10}, {"ts_sec": 6, "file": "b.000001", "pos": 4, "server_id": 1}, True),
    ({"ts_sec": 7, "file": "b.000001", "pos": 10}, {"ts_sec": 6, "file": "b.000009", "pos": 4, "server_id": 1}, False),
    # GTIDs decide when both have them
    ({"gtids": "u:1-11", "file": "b.9", "pos": 1}, {"gtids": "u:1-15", "file": "b.1", "pos": 1}, True),
    ({"gtids": "u:1-17", "file": "b.1", "pos": 1}, {"gtids": "u:1-15", "file": "b.9", "pos": 1}, False),
    ({"gtids": "u:1-17"}, {"gtids": "u:1-17", "event": 1}, True),
    ({"gtids": "u:1-17", "event": 2}, {"gtids": "u:1-17", "event": 1}, False),
    ({"gtids": "u:1-17"}, {"gtids": "u:1-17", "snapshot": "INITIAL"}, False),
    ({"gtids": "u:1-17", "snapshot": "INITIAL"}, {"gtids": "u:1-17", "snapshot": "INITIAL"}, True),
    # file names compare by their numeric extension, not as text
    ({"file": "b.999999", "pos": 10}, {"file": "b.1000000", "pos": 4}, True),
    ({"file": "b.1", "pos": 1}, {"gtids": "u:1-3", "file": "b.1", "pos": 0}, True),
    ({"gtids": "u:1-3", "file": "b.1", "pos": 0}, {"file": "b.1", "pos": 9}, False),
])
def test_is_at_or_before(recorded, desired, expected) -> None:
    assert is_at_or_before(recorded, desired) is expected


@pytest.mark.parametrize("recorded, desired, expected", [
    # the snapshot recorded the server's whole set, streaming offsets only the followed source's
    ({"gtids": "own:1-8,foreign:1501-1502", "snapshot": "INITIAL"}, {"gtids": "own:1-9", "event": 2}, True),
    ({"gtids": "own:1-8,foreign:1501-1502"}, {"gtids": "own:1-8"}, True),
    ({"gtids": "own:1-10,foreign:1"}, {"gtids": "own:1-9,foreign:1-5"}, False),
    # MariaDB: the source of `domain-server-seq` is `domain-server`
    ({"gtids": "0-1-8,1-7-99"}, {"gtids": "0-1-9"}, True),
    ({"gtids": "0-1-10,1-7-1"}, {"gtids": "0-1-9,1-7-5"}, False),
])
def test_is_at_or_before_compares_only_followed_gtid_sources(recorded, desired, expected) -> None:
    """gtid.source.includes/excludes: Debezium's comparator retains the followed sources on both sides."""
    followed = {"own", "0-1"}.__contains__
    assert is_at_or_before(recorded, desired, followed) is expected
    if expected:
        assert not is_at_or_before(recorded, desired)  # without the filter the foreign GTIDs decide


def test_binlog_files_of_different_base_names_are_not_comparable() -> None:
    with pytest.raises(ValueError):
        is_at_or_before({"file": "a.000001", "pos": 1}, {"file": "b.000001", "pos": 1})


def test_gtid_sets() -> None:
    assert gtid_set_contained("a:1-5,b:1-2", "A:1-9, b:1-2:4-6")
    assert not gtid_set_contained("a:1-5,c:1", "a:1-9")
    assert gtid_set_contained("0-1-10", "0-1-12,1-1-3")
    assert not gtid_set_contained("0-1-13", "0-1-12")


@pytest.mark.parametrize("name", ["ddl_heavy", "ddl_heavy-mysql", "ddl_mysql9"])
def test_recovery_then_parsing_matches_every_golden_record(name: str) -> None:
    """After recovering records[:k] (tableChanges applied, DDL-only records re-parsed), parsing
    record k reproduces Debezium's tableChanges: charsets, current database and dropped
    databases survive recovery."""
    records = _records(name)
    for k in range(1, len(records)):
        state = recover(records[:k], None)
        record = records[k]
        changes = apply_ddl(state, record.ddl, record.database_name or None)
        assert to_compact_json(changes[0].table_changes_json()) == to_compact_json(list(record.table_changes)), record.ddl


def test_recovered_tables_equal_parsed_tables() -> None:
    records = _records("ddl_heavy")
    parsed = SchemaState()
    for r in records:
        apply_ddl(parsed, r.ddl, r.database_name or None)
    recovered = recover(records, None)
    # ALTER ... RENAME TO has no previousId, so (as in Debezium) recovery keeps the old name too
    stale = {t for t in recovered.tables.ids() if t not in parsed.tables}
    assert {t.table for t in stale} <= {"s1_renamed", "s1"}
    for table in parsed.tables:
        assert recovered.tables.get(table.id) == table
    assert recovered.database_charsets == parsed.database_charsets
    assert recovered.server_charset() == "utf8mb4"


@pytest.mark.parametrize("pos, has_phone", [(7000, False), (7726, True), (9000, True)])
def test_recover_up_to_offset_mariadb(pos: int, has_phone: bool) -> None:
    records = _records("basic")
    offset = {"ts_sec": 1795213760, "file": "mariadb-bin.000001", "pos": pos, "server_id": 1}
    state = recover(records, offset)
    customers = [t for t in state.tables if t.id.table == "customers"][0]
    assert (customers.column("phone") is not None) is has_phone
    assert len(state.tables) == 4


def test_recover_up_to_offset_mysql_gtids() -> None:
    records = _records("basic-mysql")
    uuid = records[0].position["gtids"].split(":")[0]
    before = recover(records, {"file": "mysql-bin.000002", "pos": 9999, "gtids": f"{uuid}:1-15", "server_id": 1})
    after = recover(records, {"file": "mysql-bin.000002", "pos": 1, "gtids": f"{uuid}:1-17", "server_id": 1})
    pick = lambda s: [t for t in s.tables if t.id.table == "customers"][0]  # noqa: E731
    assert pick(before).column("phone") is None
    assert pick(after).column("phone") is not None


def test_prefer_ddl_reparses_everything() -> None:
    records = _records("ddl_heavy")
    by_changes = recover(records, None)
    by_ddl = recover(records, None, prefer_ddl=True)
    for table in by_ddl.tables:
        assert by_changes.tables.get(table.id) == table


def test_records_without_offset_filtering_keep_order() -> None:
    records = _records("basic")
    assert json.loads(records[0].to_compact_json())["ddl"].startswith("SET character_set_server")
