"""Schema checkpoints: recovery from the newest complete checkpoint equals a full replay."""
from __future__ import annotations

from pathlib import Path

import pytest

from schema_history import checkpoint
from schema_history.history import SchemaHistory
from schema_history.record import HistoryRecord
from schema_history.settings import SchemaHistorySettings
from schema_history.stores.file import FileHistoryStore

STATEMENTS = [
    ("CREATE DATABASE cp CHARACTER SET latin1", None),
    ("CREATE TABLE a (id INT PRIMARY KEY, s VARCHAR(5))", "cp"),
    ("CREATE TABLE b (id INT PRIMARY KEY)", "cp"),
    ("ALTER TABLE a ADD COLUMN t INT", "cp"),
    ("ALTER TABLE b ADD COLUMN u TEXT FIRST", "cp"),
    ("RENAME TABLE a TO a2", "cp"),
    ("CREATE TABLE c (x CHAR(3))", "cp"),
    ("DROP TABLE b", "cp"),
    ("ALTER TABLE a2 DROP COLUMN s", "cp"),
    ("CREATE TABLE d (y CHAR(2))", "cp"),
]


def _pos(n: int) -> dict:
    return {"file": "bin.000001", "pos": 100 * n, "server_id": 1, "ts_sec": n}


def _write(path: Path, interval: int) -> None:
    history = SchemaHistory(FileHistoryStore(path), "p", SchemaHistorySettings(checkpoint_interval=interval))
    for n, (ddl, db) in enumerate(STATEMENTS, 1):
        history.apply_ddl(ddl, db, _pos(n))


def _recover(path: Path, n: int | None) -> dict:
    history = SchemaHistory(FileHistoryStore(path), "p")
    state = history.recover(_pos(n) if n is not None else None)
    return {"tables": {t.id: t for t in state.tables}, "charsets": state.database_charsets,
            "last_ddl": {k: v for k, v in state.last_ddl.items() if k in state.tables.ids()}}


def test_checkpoints_are_written_and_recovery_matches_full_replay(tmp_path):
    plain, with_cp = tmp_path / "plain.jsonl", tmp_path / "cp.jsonl"
    _write(plain, 0)
    _write(with_cp, 3)
    records = [HistoryRecord.from_json(line) for line in with_cp.read_text().splitlines()]
    parts = [checkpoint.part_of(r) for r in records if checkpoint.is_checkpoint(r)]
    assert len(parts) == 3 and all(p.parts == 1 for p in parts)  # after statements 3, 6 and 9
    assert all(r.table_changes and all(c["type"] == "CREATE" for c in r.table_changes)
               for r in records if checkpoint.is_checkpoint(r))
    for n in [None, *range(1, len(STATEMENTS) + 1)]:
        assert _recover(with_cp, n) == _recover(plain, n), f"offset after statement {n}"
    assert set(t.table for t in _recover(with_cp, None)["tables"]) == {"a2", "c", "d"}
    assert _recover(with_cp, None)["charsets"] == {"cp": "latin1"}


def test_incomplete_checkpoint_is_ignored(tmp_path, monkeypatch):
    monkeypatch.setattr(checkpoint, "TABLES_PER_RECORD", 1)  # two tables -> two-part checkpoints
    plain, with_cp = tmp_path / "plain.jsonl", tmp_path / "cp.jsonl"
    _write(plain, 0)
    _write(with_cp, 4)
    lines = with_cp.read_text().splitlines()
    last_part = max(i for i, line in enumerate(lines) if checkpoint.is_checkpoint(HistoryRecord.from_json(line)))
    assert checkpoint.part_of(HistoryRecord.from_json(lines[last_part])).parts >= 2
    # a crash in the middle of the last checkpoint: its final part never reached the store
    del lines[last_part]
    with_cp.write_text("\n".join(lines) + "\n")
    assert _recover(with_cp, None) == _recover(plain, None)


@pytest.mark.parametrize("interval", [1, 2, 5])
def test_debezium_style_replay_of_a_checkpointed_history_is_unchanged(tmp_path, interval):
    """Readers that know nothing of checkpoints (Debezium) replay the CREATE entries: same schema."""
    from schema_history.recovery import apply_record
    from schema_history.state import SchemaState

    path = tmp_path / "cp.jsonl"
    _write(path, interval)
    state = SchemaState()
    for line in path.read_text().splitlines():
        apply_record(state, HistoryRecord.from_json(line))
    assert {t.id: t for t in state.tables} == _recover(tmp_path / "cp.jsonl", None)["tables"]


def test_last_ddl_survives_recovery_from_a_checkpoint(tmp_path):
    """TABLE_MAP mismatch errors name the last DDL of the table: a checkpoint must carry it (in its own
    `ddl` comment; the table changes stay Debezium's)."""
    path = tmp_path / "cp.jsonl"
    _write(path, 3)
    history = SchemaHistory(FileHistoryStore(path), "p")
    state = history.recover(_pos(9))  # the checkpoint written after statement 9 is the starting point
    from schema_history.model import TableId

    assert state.last_ddl[TableId("cp", "a2")] == "ALTER TABLE a2 DROP COLUMN s"
    assert state.last_ddl[TableId("cp", "c")] == "CREATE TABLE c (x CHAR(3))"
    cp = [HistoryRecord.from_json(line) for line in path.read_text().splitlines()][-2]
    assert checkpoint.is_checkpoint(cp) and '"last_ddl"' in cp.ddl
    assert all(set(c) >= {"type", "id", "table"} and "last_ddl" not in str(c) for c in cp.table_changes)
