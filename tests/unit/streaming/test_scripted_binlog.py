"""Scripted binlog events → records and offsets, and the resume contract (debezium-contract.md §d10): a restart
from the offset of any record skips exactly the events and rows already emitted, nothing more, nothing less."""
from __future__ import annotations

import pytest

from connector.offsets.position import SourceOffset
from connector.offsets.memory_store import MemoryOffsetStore
from schema_history.stores.memory import MemoryHistoryStore
from tests.unit.streaming.scripted import Binlog, Pipeline, Sent, settings

CREATE = "CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(20))"
START = SourceOffset("mysql-bin.000001", 4)


def workload() -> Binlog:
    b = Binlog()
    b.ddl(CREATE)
    # One transaction, several rows events over two tables' worth of changes, several rows each.
    b.begin().insert("customers", [1, "a"], [2, "b"], [3, "c"]).update("customers", ([2, "b"], [2, "bb"]))
    b.insert("customers", [4, "d"], [5, "e"]).commit()
    b.rotate("mysql-bin.000002")
    b.ddl("ALTER TABLE customers ADD COLUMN vip BOOLEAN")
    b.begin().delete("customers", [1, "a", None]).insert("customers", [6, "f", 1]).commit()
    return b


def run(props: dict[str, str], binlog: Binlog, store: MemoryOffsetStore, history: MemoryHistoryStore) -> Pipeline:
    pipeline = Pipeline(settings(**props), history, store)
    pipeline.stream(binlog, pipeline.start_offset(START))
    pipeline.committer.commit()
    return pipeline


def comparable(sent: list[Sent]) -> list[tuple]:
    """Records as (summary, value); a schema change's `source.row` is the last row this process emitted (Debezium's
    SourceInfo keeps it, and so starts at 0 after a restart), so it is left out of the comparison."""
    out = []
    for s in sent:
        value = s.value
        if value is not None and s.summary()[1] == "ddl":
            value["payload"]["source"].pop("row")
        out.append((s.summary(), value))
    return out


PLAIN: dict[str, str] = {}
TX_METADATA = {"provide.transaction.metadata": "true"}


def test_records_and_offsets_of_a_full_run() -> None:
    store = MemoryOffsetStore()
    sent = run(PLAIN, workload(), store, MemoryHistoryStore()).sink.sent
    kinds = [s.summary()[1] for s in sent]
    assert kinds == ["ddl", "c", "c", "c", "u", "c", "c", "ddl", "d", "tombstone", "c"]
    offsets = [s.offset for s in sent]
    # Inside the first transaction: restart at its BEGIN (pos 104), skip `event` events and `row` rows.
    # A rows event's records go to Kafka as one group: only the last carries an offset (that of its last row).
    assert [o and (o["pos"], o.get("event"), o.get("row")) for o in offsets[1:7]] == [
        None, None, (104, 2, 3), (104, 4, 1), None, (104, 6, 2)]
    # After the rotate: the new file. Only offsets of emitted records are committed (as Debezium), so the
    # last one is that of the last row: its transaction's BEGIN, 4 events and the event's one row done.
    last = store.load()
    assert last == sent[-1].offset
    assert last is not None and (last["file"], last["pos"], last["event"], last["row"]) == ("mysql-bin.000002",
                                                                                          104, 4, 1)
    assert list(last) == ["ts_sec", "file", "pos", "row", "server_id", "event"]  # Debezium's HashMap order


@pytest.mark.parametrize("props", [PLAIN, TX_METADATA], ids=["plain", "transaction-metadata"])
def test_restart_after_any_record_emits_exactly_the_rest(props: dict[str, str]) -> None:
    history = MemoryHistoryStore()
    full = run(props, workload(), MemoryOffsetStore(), history).sink.sent
    expected = comparable(full)
    assert len(expected) > 10
    for k, crashed_after in enumerate(full):
        if crashed_after.offset is None:
            continue
        # The connector died once record k (and all before it) was acknowledged and its offset committed.
        store = MemoryOffsetStore(crashed_after.offset)
        rest = run(props, workload(), store, history).sink.sent
        assert comparable(rest) == expected[k + 1:], f"restart after record {k}"


def test_transaction_boundaries_with_metadata() -> None:
    sent = run(TX_METADATA, workload(), MemoryOffsetStore(), MemoryHistoryStore()).sink.sent
    kinds = [s.summary()[1] for s in sent]
    assert kinds == ["ddl", "BEGIN", "c", "c", "c", "u", "c", "c", "END",
                     "ddl", "BEGIN", "d", "tombstone", "c", "END"]
    begin, end = sent[1], sent[8]
    assert begin.value is not None and end.value is not None
    assert end.value["payload"]["event_count"] == 6
    tx_id = "file=mysql-bin.000001,pos=104"
    assert begin.value["payload"]["id"] == end.value["payload"]["id"] == tx_id
    assert sent[2].offset is None  # a rows event's records are one group: its last row's offset covers them
    assert sent[4].offset is not None and sent[4].offset["transaction_id"] == tx_id
    assert sent[4].offset["transaction_data_collection_order_inventory.customers"] == 3


def repeated_tables() -> Binlog:
    """Transactions of one row change each: every one repeats its table's TABLE_MAP, as a single-row OLTP load does."""
    b = Binlog()
    b.ddl(CREATE)
    for n in range(1, 5):
        b.begin().insert("customers", [n, "a"]).update("customers", ([n, "a"], [n, "b"])).commit()
    b.ddl("ALTER TABLE customers ADD COLUMN vip BOOLEAN")
    b.begin().delete("customers", [1, "b", None]).commit()
    b.begin().insert("customers", [9, "z", 1]).delete("customers", [2, "b", None]).commit()
    return b


@pytest.mark.parametrize("props", [PLAIN, TX_METADATA], ids=["plain", "transaction-metadata"])
def test_table_maps_the_reader_holds_back_count_as_events(props: dict[str, str]) -> None:
    """The reader yields a repeated TABLE_MAP with the next event instead of as one (`PositionedEvent.absorbed`):
    the records and every offset (the events counted since BEGIN) are those of the TABLE_MAPs yielded, and a
    restart after any record emits exactly the rest."""
    history = MemoryHistoryStore()
    absorbing = repeated_tables().absorbing()
    assert sum(pe.absorbed is not None for pe in absorbing.events) == 9  # all but the first after each DDL
    plain = run(props, repeated_tables(), MemoryOffsetStore(), history).sink.sent
    held = run(props, absorbing, MemoryOffsetStore(), MemoryHistoryStore()).sink.sent
    assert [(s.summary(), s.value, s.offset) for s in held] == [(s.summary(), s.value, s.offset) for s in plain]
    expected = comparable(plain)
    for k, crashed_after in enumerate(held):
        if crashed_after.offset is not None:
            rest = run(props, repeated_tables().absorbing(), MemoryOffsetStore(crashed_after.offset), history)
            assert comparable(rest.sink.sent) == expected[k + 1:], f"restart after record {k}"
