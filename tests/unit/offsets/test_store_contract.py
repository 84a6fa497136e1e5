"""The OffsetStore contract for the stores that need no server (Kafka's is in tests/integration/kafka)."""

from __future__ import annotations

from pathlib import Path

from connector.offsets import FileOffsetStore, MemoryOffsetStore, partition_key
from tests.unit.offsets.store_contract import check_offset_store_contract


def test_memory_store_contract() -> None:
    store = MemoryOffsetStore()
    check_offset_store_contract(lambda: store, persistent=False)
    assert store.closed
    assert store.saved[-1].startswith(b'{"ts_sec":1700000099,"file":')


def test_file_store_contract(tmp_path: Path) -> None:
    key = partition_key("binlog-cdc", "dbserver1")
    check_offset_store_contract(lambda: FileOffsetStore(tmp_path / "offsets.dat", key), persistent=True)
