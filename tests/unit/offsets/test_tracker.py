"""OffsetTracker: only an unbroken prefix of acknowledged records makes an offset committable."""

from __future__ import annotations

import threading

import pytest

from connector.offsets import OffsetTracker


def _offset(pos: int) -> dict:
    return {"file": "mariadb-bin.000001", "pos": pos}


def test_nothing_committable_before_any_ack() -> None:
    tracker = OffsetTracker()
    tracker.track(_offset(1))
    assert tracker.committable() is None
    assert tracker.in_flight() == 1


def test_out_of_order_acks_wait_for_the_gap() -> None:
    tracker = OffsetTracker()
    seqs = [tracker.track(_offset(p)) for p in (10, 20, 30, 40)]
    tracker.ack(seqs[2])
    tracker.ack(seqs[1])
    assert tracker.committable() is None  # record 0 still in flight
    tracker.ack(seqs[0])
    assert tracker.committable() == _offset(30)
    assert tracker.in_flight() == 1
    tracker.ack(seqs[3])
    assert tracker.committable() == _offset(40)
    assert tracker.in_flight() == 0


def test_records_without_offset_do_not_move_it_but_do_not_block() -> None:
    tracker = OffsetTracker()
    a = tracker.track(_offset(1))
    b = tracker.track(None)  # e.g. a tombstone following its delete
    c = tracker.track(None)
    tracker.ack(c)
    tracker.ack(a)
    assert tracker.committable() == _offset(1)
    tracker.ack(b)
    assert tracker.committable() == _offset(1)
    assert tracker.in_flight() == 0


def test_observed_offset_waits_for_earlier_records() -> None:
    tracker = OffsetTracker()
    seq = tracker.track(_offset(1))
    tracker.observe(_offset(5))  # e.g. an event of an excluded table
    assert tracker.committable() is None
    tracker.ack(seq)
    assert tracker.committable() == _offset(5)
    tracker.observe(_offset(9))
    assert tracker.committable() == _offset(9)


def test_failed_record_blocks_everything_after_it() -> None:
    tracker = OffsetTracker()
    seqs = [tracker.track(_offset(p)) for p in (1, 2, 3)]
    tracker.ack(seqs[0])
    tracker.ack(seqs[2])  # seqs[1] failed: never acknowledged
    assert tracker.committable() == _offset(1)


def test_committable_is_a_copy_and_offsets_are_snapshotted() -> None:
    tracker = OffsetTracker()
    offset = _offset(1)
    tracker.ack(tracker.track(offset))
    offset["pos"] = 999  # the caller reuses its dict
    got = tracker.committable()
    assert got == _offset(1)
    got["pos"] = 5
    assert tracker.committable() == _offset(1)


def test_version_changes_only_when_offset_advances() -> None:
    tracker = OffsetTracker()
    v0, _ = tracker.committable_versioned()
    tracker.ack(tracker.track(None))
    assert tracker.committable_versioned()[0] == v0
    tracker.ack(tracker.track(_offset(2)))
    assert tracker.committable_versioned() == (v0 + 1, _offset(2))


def test_unknown_or_repeated_ack_is_an_error() -> None:
    tracker = OffsetTracker()
    seq = tracker.track(_offset(1))
    tracker.ack(seq)
    with pytest.raises(ValueError):
        tracker.ack(seq)
    with pytest.raises(ValueError):
        tracker.ack(42)


def test_acks_from_another_thread() -> None:
    tracker = OffsetTracker()
    n = 5000
    seqs = [tracker.track(_offset(i)) for i in range(n)]
    # Ack odd then even from two threads racing each other.
    threads = [threading.Thread(target=lambda part=part: [tracker.ack(s) for s in seqs[part::2]])
               for part in (1, 0)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert tracker.committable() == _offset(n - 1)
    assert tracker.in_flight() == 0


class CountingOffset:
    """An `OffsetSource` that counts how often its map is built."""

    def __init__(self, pos: int) -> None:
        self.pos = pos
        self.maps = 0

    def to_map(self) -> dict:
        self.maps += 1
        return {"pos": self.pos}


def test_offset_sources_render_their_map_only_when_read() -> None:
    tracker = OffsetTracker()
    offsets = [CountingOffset(pos) for pos in (10, 20, 30)]
    seqs = [tracker.track_source(offset) for offset in offsets]
    for seq in seqs[:2]:
        tracker.ack(seq)
    assert [o.maps for o in offsets] == [0, 0, 0]  # tracked and acked: no map yet
    assert tracker.committable() == {"pos": 20}
    assert tracker.newest() == {"pos": 30}
    assert [o.maps for o in offsets] == [0, 1, 1]
    version, committed = tracker.committable_versioned()
    assert committed == {"pos": 20} and committed is not tracker.committable()  # a new map per read
