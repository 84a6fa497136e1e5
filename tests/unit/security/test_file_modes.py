"""Status, offsets and schema history files are created 0600 whatever the umask: they hold positions,
table names and DDL."""
from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Iterator

import pytest

from connector.offsets.file_store import write_offsets_file
from connector.ops.status import StatusFile
from schema_history.record import HistoryRecord
from schema_history.stores.file import FileHistoryStore


@pytest.fixture
def open_umask() -> Iterator[None]:
    old = os.umask(0)
    try:
        yield
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_status_file_is_private(tmp_path, open_umask):
    path = tmp_path / "status.json"
    StatusFile(path).write({"phase": "streaming"}, force=True)
    assert mode(path) == 0o600


def test_offsets_file_is_private(tmp_path, open_umask):
    path = tmp_path / "offsets.dat"
    write_offsets_file(path, [(b"k", b"v")])
    assert mode(path) == 0o600


def test_history_file_is_private(tmp_path, open_umask):
    created = FileHistoryStore(tmp_path / "history.jsonl")
    created.check_and_initialize()
    assert mode(created.path) == 0o600
    appended = FileHistoryStore(tmp_path / "appended.jsonl")  # first write without check_and_initialize
    appended.append(HistoryRecord(source={"server": "s"}, position={"file": "f", "pos": 4}, ts_ms=0,
                                  database_name="db", ddl="CREATE DATABASE db"))
    assert mode(appended.path) == 0o600
    assert [r.ddl for r in appended.records()] == ["CREATE DATABASE db"]
