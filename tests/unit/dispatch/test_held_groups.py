"""Small groups held and sent together (connector/dispatch/sender.py `hold_groups`): the records reach the sink in
the order they were emitted, as one group carrying the offset of the last held group that had one, and that
offset is committable only once every record of the combined group is acknowledged."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

from connector.dispatch.sender import HELD_BYTES, HELD_RECORDS, DispatchCounters, RecordSender
from connector.kafka.writer import OutRecord
from connector.offsets.tracker import OffsetTracker


@dataclass
class GroupSink:
    """Records as the Kafka writer gets them: groups with one acknowledgement each, and single records."""

    sent: list[tuple[str, list[bytes | None]]] = field(default_factory=list)
    acks: list[Callable[[], None]] = field(default_factory=list)

    def send(self, record: OutRecord, on_ack: Callable[[], None]) -> None:
        self.sent.append(("one", [record.value]))
        self.acks.append(on_ack)

    def send_group(self, records: Sequence[OutRecord], on_ack: Callable[[], None]) -> None:
        self.sent.append(("group", [r.value for r in records]))
        self.acks.append(on_ack)

    def ack(self, index: int) -> None:
        self.acks[index]()


def _sender() -> tuple[RecordSender, GroupSink, OffsetTracker, DispatchCounters]:
    sink, tracker, counters = GroupSink(), OffsetTracker(), DispatchCounters()
    encoder = None  # records here are already encoded: send/send_group never call it
    return RecordSender(encoder, sink, tracker, counters, hold_groups=True), sink, tracker, counters  # type: ignore[arg-type]


def _rec(value: str) -> OutRecord:
    return OutRecord("t", b"k", value.encode(), [])


def test_small_groups_are_held_and_sent_as_one_group_with_the_last_offset() -> None:
    sender, sink, tracker, counters = _sender()
    sender.send_group([_rec("a"), OutRecord("t", b"k", None, [])], {"pos": 1})
    sender.send_group([_rec("b")], {"pos": 2})
    sender.send_group([_rec("c")], None)  # its offset is carried by a later record: pos 2 still holds
    assert sink.sent == [] and sender.holding and counters.records_sent == 0
    sender.flush_held()
    assert sink.sent == [("group", [b"a", None, b"b", b"c"])]
    assert not sender.holding and counters.records_sent == 4
    assert tracker.committable() is None
    sink.ack(0)
    assert tracker.committable() == {"pos": 2} and counters.records_acked == 4


def test_any_other_record_sends_the_held_ones_first() -> None:
    sender, sink, tracker, _ = _sender()
    sender.send_group([_rec("a")], {"pos": 1})
    sender.send(_rec("b"), {"pos": 2})
    big = [_rec(f"r{i}") for i in range(HELD_RECORDS)]  # a group this large is not held
    sender.send_group([_rec("c")], {"pos": 3})
    sender.send_group(big, {"pos": 4})
    assert [kind for kind, _ in sink.sent] == ["group", "one", "group", "group"]
    assert [values[0] for _, values in sink.sent] == [b"a", b"b", b"c", b"r0"]
    assert not sender.holding
    sink.ack(3)
    sink.ack(2)
    assert tracker.committable() is None  # pos 1 and 2 not acknowledged yet
    sink.ack(0)
    sink.ack(1)
    assert tracker.committable() == {"pos": 4}


def test_held_records_go_once_they_reach_the_count_or_byte_bound() -> None:
    sender, sink, _, _ = _sender()
    for i in range(HELD_RECORDS):
        sender.send_group([_rec(str(i))], {"pos": i})
    assert len(sink.sent) == 1 and len(sink.sent[0][1]) == HELD_RECORDS and not sender.holding
    sender.send_group([OutRecord("t", b"k", b"x" * HELD_BYTES, [])], {"pos": 99})
    assert len(sink.sent) == 2 and not sender.holding


def test_a_map_offset_is_copied_when_held() -> None:
    sender, sink, tracker, _ = _sender()
    offset = {"pos": 1}
    sender.send_group([_rec("a")], offset)
    offset["pos"] = 2  # the caller reuses its map
    sender.flush_held()
    sink.ack(0)
    assert tracker.committable() == {"pos": 1}
