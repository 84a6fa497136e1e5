"""The behaviour every OffsetStore must show; each store's tests call `check_offset_store_contract`."""

from __future__ import annotations

from typing import Callable

from connector.offsets import OffsetStore

FIRST = {"server_id": 1, "pos": 4, "file": "mariadb-bin.000001", "ts_sec": 1700000000}
SECOND = {"server_id": 1, "event": 2, "row": 1, "gtids": "0-1-42", "pos": 1234, "file": "mariadb-bin.000002",
          "ts_sec": 1700000099}
# Debezium's HashMap iteration order (debezium-contract.md §d10).
SECOND_ORDER = ["ts_sec", "file", "pos", "gtids", "row", "server_id", "event"]


def check_offset_store_contract(open_store: Callable[[], OffsetStore], persistent: bool) -> None:
    """`open_store()` must return a store on a fresh, empty backing the first time, the same backing later."""
    store = open_store()
    assert isinstance(store, OffsetStore)
    assert store.load() is None
    store.save(FIRST)
    assert store.load() == FIRST
    store.save(SECOND)
    loaded = store.load()
    assert loaded == SECOND
    assert list(loaded) == SECOND_ORDER
    store.close()
    if persistent:
        reopened = open_store()
        assert reopened.load() == SECOND
        assert list(reopened.load()) == SECOND_ORDER
        reopened.close()
