"""The decisions behind --transaction-topic (spark_sink/transactions.py) without Spark: which transactions a batch
may apply, and which pending state a re-run batch reads. The mirror runs end to end in
test_lake_features.py::test_transaction_consistent_tables."""
from __future__ import annotations

import pyarrow as pa
import pytest

pytest.importorskip("pyspark")
pytest.importorskip("deltalake")

from deltalake import CommitProperties, Transaction, write_deltalake  # noqa: E402

from spark_sink.kafka_source import _SPLIT_ARROW_SCHEMA  # noqa: E402
from spark_sink.transactions import TransactionGate  # noqa: E402

GATE = TransactionGate("p.transaction", r"p\.db\.(a|b)", "unused")


def _end(txid: str, offset: int, **counts: int) -> dict:
    return {"__txid": txid, "partition": 0, "offset": offset, "__micros": offset,
            "collections": [{"data_collection": f"db.{t}", "event_count": n} for t, n in counts.items()]}


def _applied(ends: list[dict], seen: dict[tuple[str, str], int]) -> list[str]:
    applied, held = GATE._complete_prefix(ends, seen)
    assert not {e["__txid"] for e in applied} & {e["__txid"] for e in held}
    return [e["__txid"] for e in applied]


def test_a_prefix_of_complete_transactions() -> None:
    ends = [_end("t2", 5, a=1), _end("t1", 2, a=1, b=2), _end("t3", 9, b=1)]  # listed out of order
    seen = {("t1", "db.a"): 1, ("t1", "db.b"): 2, ("t2", "db.a"): 1, ("t3", "db.b"): 1}
    assert _applied(ends, seen) == ["t1", "t2", "t3"]
    # t1's second event in b not read yet: t1 waits, and t2, t3 (complete) wait behind it
    assert _applied(ends, {**seen, ("t1", "db.b"): 1}) == []
    assert _applied(ends, {**seen, ("t3", "db.b"): 0}) == ["t1", "t2"]


def test_tables_not_mirrored_are_not_waited_for_and_a_repeated_end_counts_once() -> None:
    ends = [_end("t1", 1, a=1, c=4), _end("t1", 3, a=1, c=4), _end("t2", 4, c=1)]
    assert _applied(ends, {("t1", "db.a"): 1}) == ["t1", "t2"]  # db.c is not in the pattern


def _write(path: str, batch_id: int, offsets: list[int]) -> None:
    rows = pa.table({n: pa.nulls(len(offsets), _SPLIT_ARROW_SCHEMA.field(n).type) for n in _SPLIT_ARROW_SCHEMA.names})
    rows = rows.set_column(3, "offset", pa.array(offsets, pa.int64())).cast(_SPLIT_ARROW_SCHEMA)
    write_deltalake(path, rows, mode="overwrite",
                    commit_properties=CommitProperties(app_transactions=[Transaction("binlog-cdc-spark-sink",
                                                                                     batch_id)]))


class _Spark:
    """Stands in for the session: the pending rows as Arrow."""

    def createDataFrame(self, data: pa.Table, schema: object) -> pa.Table:  # noqa: N802
        return data


def test_a_rerun_batch_reads_the_pending_state_before_its_own(tmp_path) -> None:
    gate = TransactionGate("p.transaction", r"p\..*", str(tmp_path / "pending"))
    assert gate._pending_before(_Spark(), 0) is None
    _write(gate.pending_path, 0, [1, 2])
    _write(gate.pending_path, 1, [2, 7])
    assert gate._pending_before(_Spark(), 2)["offset"].to_pylist() == [2, 7]  # the next batch: the newest state
    assert gate._pending_before(_Spark(), 1)["offset"].to_pylist() == [1, 2]  # batch 1 again: the state before it
    with pytest.raises(RuntimeError, match="different runs"):
        gate._pending_before(_Spark(), 0)
