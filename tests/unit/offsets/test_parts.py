"""Composed offsets: each part stores its own keys, one function renders them in Debezium's key order (§d10)."""
from __future__ import annotations

import pytest

from connector.offsets.position import SourceOffset, TransactionState
from connector.offsets.parts import IncrementalSnapshotSlot, SnapshotMarker, compose_offset
from connector.offsets.store import render_offset

TX = TransactionState("file=mysql-bin.000003,pos=154", 3, (("inventory.customers", 2), ("inventory.orders", 1)))

# (offset, expected key order): the orders observed from real Debezium, listed in debezium-contract.md §d10.
ORDERS = [
    (SourceOffset("mysql-bin.000003", 154, server_id=1, gtids="a:1-5", event=2, row=1, ts_sec=7),
     ["ts_sec", "file", "pos", "gtids", "row", "server_id", "event"]),
    (SourceOffset("mysql-bin.000003", 154, server_id=1, ts_sec=7),
     ["ts_sec", "file", "pos", "server_id"]),
    (SourceOffset("mysql-bin.000003", 154, gtids="a:1-5", ts_sec=7, snapshot="INITIAL"),
     ["ts_sec", "file", "pos", "gtids", "snapshot"]),
    (SourceOffset("mysql-bin.000003", 154, server_id=1, gtids="a:1-5", ts_sec=7,
                  transaction=TransactionState("a:6")),
     ["transaction_id", "ts_sec", "file", "pos", "gtids", "server_id"]),
]


@pytest.mark.parametrize("offset,keys", ORDERS)
def test_key_order_is_debeziums(offset: SourceOffset, keys: list[str]) -> None:
    assert list(offset.to_map()) == keys
    assert SourceOffset.from_map(offset.to_map()) == offset


def test_transaction_part_round_trips_with_its_per_table_orders() -> None:
    offset = SourceOffset("f.000001", 4, server_id=1, event=3, ts_sec=1, transaction=TX)
    m = offset.to_map()
    assert m["transaction_id"] == TX.id and m["transaction_data_collection_order_inventory.orders"] == 1
    loaded = SourceOffset.from_map(m).transaction
    # Read back in the map's order, as Debezium's TransactionContext.load does
    assert loaded is not None and (loaded.id, loaded.total_order, loaded.counts()) == (TX.id, 3, TX.counts())
    assert "transaction_id" not in offset.to_map(include_transaction=False)


def test_a_running_snapshot_stores_no_transaction_as_debeziums_get_offset() -> None:
    assert "transaction_id" not in SourceOffset("f", 4, snapshot="BLOCKING", transaction=TX).to_map()


@pytest.mark.parametrize("stored,kind", [
    ({"snapshot": "INITIAL"}, "INITIAL"), ({"snapshot": "BLOCKING"}, "BLOCKING"), ({"snapshot": True}, "INITIAL"),
    ({"snapshot": "true"}, "INITIAL"), ({"snapshot": False}, None), ({}, None),
    ({"snapshot": True, "snapshot_completed": True}, None), ({"snapshot": "true", "snapshot_completed": "true"}, None),
])
def test_snapshot_marker_reads_every_spelling(stored: dict, kind: str | None) -> None:
    marker = SnapshotMarker.load(stored)
    assert (marker.kind if marker else None) == kind
    assert SourceOffset.from_map({"file": "f", "pos": 4, **stored}).snapshot == kind


def test_incremental_snapshot_keys_survive_a_restart() -> None:
    stored = {"file": "f.000002", "pos": 900, "ts_sec": 5,
              "incremental_snapshot_correlation_id": None,
              "incremental_snapshot_maximum_key": "aced0005",
              "incremental_snapshot_collections": '[{"incremental_snapshot_collections_id":"db.t"}]',
              "incremental_snapshot_primary_key": "aced0006"}
    offset = SourceOffset.from_map(stored)
    slot = offset.part(IncrementalSnapshotSlot)
    assert slot is not None and dict(slot.values) == {k: v for k, v in stored.items() if k.startswith("incr")}
    assert offset.to_map() == stored
    # Moving on keeps the slot; the position keys change, the incremental snapshot's do not.
    moved = offset.with_(pos=1000).to_map()
    assert moved["pos"] == 1000 and moved["incremental_snapshot_maximum_key"] == "aced0005"


def test_compose_renders_like_the_store() -> None:
    offset = SourceOffset("f", 4, server_id=2, gtids="x:1", ts_sec=9, transaction=TX)
    assert render_offset(offset.to_map()) == render_offset(compose_offset(offset, None, TX))
    assert list(compose_offset(offset, TX)) == list(offset.to_map())


@pytest.mark.parametrize("offset,keys", ORDERS)
def test_offset_of_another_row_is_a_freshly_built_one(offset: SourceOffset, keys: list[str]) -> None:
    """`SourceOffset.at_row` (the next rows of one rows event) equals the offset built for that row, its map
    (cached from the first row's) included, key order too."""
    for first_map_cached in (False, True):
        if first_map_cached:
            offset.to_map()
        for row in (1, 2, 17):
            fresh = offset.with_(row=row)
            copy = offset.at_row(row)
            assert copy == fresh
            assert list(copy.to_map().items()) == list(fresh.to_map().items())
            assert list(copy.to_map(include_transaction=False).items()) == list(
                fresh.to_map(include_transaction=False).items())
