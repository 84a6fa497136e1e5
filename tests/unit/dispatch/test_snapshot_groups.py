"""The snapshot's raw rows sent as groups (connector/dispatch/snapshot_text_rows.py): the same records byte for
byte as one row at a time, one tracker entry and one acknowledgement per group, and the group's offset committable
only once every record of it is acknowledged."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

import pytest

from connector.errors import RowValueError
from connector.kafka.writer import OutRecord
from connector.offsets.position import SourceOffset
from schema_history.model import TableId
from tests.unit.dispatch.test_dispatcher import MemorySink, _dispatcher, _offset, _source

T = TableId("inventory", "customers")
DDL = "CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(20), amount DECIMAL(8,2), score DOUBLE)"
DECODERS = [("ascii", int), ("utf8", None), ("ascii", __import__("decimal").Decimal), ("ascii", float)]
ROWS = [[str(i).encode(), f"n{i}".encode(), f"{i}.5{i % 10}".encode(), None if i % 3 else b"1.25"]
        for i in range(1, 8)]


@dataclass
class GroupMemorySink(MemorySink):
    """A `GroupSink` as the Kafka writer is: one acknowledgement per group."""

    groups: list[int] = field(default_factory=list)

    def send_group(self, records: Sequence[OutRecord], on_ack: Callable[[], None]) -> None:
        self.sent.extend(records)
        self.groups.append(len(records))
        self._acks.append(on_ack)


def _text_rows(sink_class: type = MemorySink):
    dispatcher, sink, tracker = _dispatcher()
    dispatcher.ddl(DDL, "inventory", _source(100), _offset(100))
    sink.ack_all()  # the schema change record
    if sink_class is not MemorySink:  # the sender picks the group path from its sink
        sink = sink_class()
        dispatcher._sender._sink = dispatcher._sender._group_sink = sink
    sink.sent.clear()
    emit = dispatcher.snapshot_text_rows(T, DECODERS)
    assert emit is not None
    return emit, sink, tracker


def _snapshot_offset(row: int) -> SourceOffset:
    return SourceOffset(file="bin.000001", pos=500 + row, snapshot="true")


def test_a_group_renders_the_same_records_as_one_row_at_a_time() -> None:
    first, rest = _source(500, snapshot="first"), _source(500, snapshot="true")
    one, one_sink, _ = _text_rows()
    for i, raw in enumerate(ROWS):
        one(raw, first if i == 0 else rest, _snapshot_offset(i))
    grouped, group_sink, _ = _text_rows(GroupMemorySink)
    grouped.group(ROWS, first, rest, _snapshot_offset(len(ROWS) - 1))
    # (headers: each dispatcher has its own context id)
    assert [(r.topic, r.key, r.value, [h[0] for h in r.headers]) for r in group_sink.sent] == \
        [(r.topic, r.key, r.value, [h[0] for h in r.headers]) for r in one_sink.sent]
    assert b'"snapshot":"first"' in group_sink.sent[0].value and b'"snapshot":"true"' in group_sink.sent[1].value
    assert group_sink.groups == [len(ROWS)]


def test_the_group_offset_commits_once_every_record_of_it_is_acknowledged() -> None:
    emit, sink, tracker = _text_rows(GroupMemorySink)
    emit(ROWS[0], _source(500, snapshot="first"), _snapshot_offset(0))
    emit.group(ROWS[1:4], _source(500, snapshot="true"), _source(500, snapshot="true"), _snapshot_offset(3))
    emit.group(ROWS[4:], _source(500, snapshot="true"), _source(500, snapshot="true"), _snapshot_offset(6))
    assert sink.groups == [3, 3] and len(sink.sent) == 7
    first_ack, *rest = sink._acks
    first_ack()
    assert tracker.committable()["pos"] == 500
    rest[0]()
    assert tracker.committable()["pos"] == 503
    rest[1]()
    assert tracker.committable()["pos"] == 506


def test_without_a_group_sink_only_the_last_record_of_a_group_carries_its_offset() -> None:
    emit, sink, tracker = _text_rows()
    emit.group(ROWS, _source(500, snapshot="first"), _source(500, snapshot="true"), _snapshot_offset(6))
    assert len(sink.sent) == len(ROWS)
    sink.ack_all()
    assert tracker.committable()["pos"] == 506


def test_a_bad_value_in_a_group_names_its_column() -> None:
    emit, _, _ = _text_rows(GroupMemorySink)
    bad = [*ROWS[:2], [b"9", b"n9", b"1.00", b"abc"]]
    with pytest.raises(RowValueError) as failed:
        emit.group(bad, _source(700, snapshot="true"), _source(700, snapshot="true"), _snapshot_offset(2))
    line = str(failed.value)
    assert "\n" not in line and "column score (DOUBLE" in line and "bin.000001:700" in line, line
