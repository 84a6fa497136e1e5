"""OffsetCommitter: interval, only acknowledged offsets, and the shutdown order (flush, commit, close)."""

from __future__ import annotations

import pytest

from connector.offsets import MemoryOffsetStore, OffsetCommitter, OffsetFlushTimeout, OffsetTracker


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _offset(pos: int) -> dict:
    return {"file": "f.000001", "pos": pos}


def test_interval_zero_commits_after_every_batch_with_new_acks() -> None:
    tracker, store = OffsetTracker(), MemoryOffsetStore()
    committer = OffsetCommitter(tracker, store, flush_interval_ms=0, clock=Clock())
    assert not committer.maybe_commit()  # nothing acknowledged yet
    tracker.ack(tracker.track(_offset(1)))
    assert committer.maybe_commit()
    assert not committer.maybe_commit()  # unchanged: not written twice
    tracker.ack(tracker.track(_offset(2)))
    assert committer.maybe_commit()
    assert store.load() == _offset(2)
    assert len(store.saved) == 2


def test_interval_limits_commit_rate() -> None:
    clock = Clock()
    tracker, store = OffsetTracker(), MemoryOffsetStore()
    committer = OffsetCommitter(tracker, store, flush_interval_ms=1000, clock=clock)
    tracker.ack(tracker.track(_offset(1)))
    assert committer.maybe_commit()
    tracker.ack(tracker.track(_offset(2)))
    clock.now += 0.5
    assert not committer.maybe_commit()
    clock.now += 0.6
    assert committer.maybe_commit()
    assert store.load() == _offset(2)


def test_never_commits_past_an_unacknowledged_record() -> None:
    tracker, store = OffsetTracker(), MemoryOffsetStore()
    committer = OffsetCommitter(tracker, store, flush_interval_ms=0)
    first = tracker.track(_offset(1))
    second = tracker.track(_offset(2))
    tracker.ack(second)
    assert not committer.commit()
    assert store.load() is None
    tracker.ack(first)
    assert committer.commit()
    assert store.load() == _offset(2)


class FlushingWriter:
    """Stands in for KafkaWriter.flush: acknowledges what it is told to, then returns or raises."""

    def __init__(self, tracker: OffsetTracker, ack: list[int], remaining: int = 0,
                 error: Exception | None = None) -> None:
        self.tracker, self.ack, self.remaining, self.error = tracker, ack, remaining, error

    def flush(self, timeout_s: float) -> int:
        for seq in self.ack:
            self.tracker.ack(seq)
        if self.error:
            raise self.error
        return self.remaining


def test_shutdown_flushes_then_commits_then_closes() -> None:
    tracker, store = OffsetTracker(), MemoryOffsetStore()
    committer = OffsetCommitter(tracker, store, flush_interval_ms=60_000)
    seqs = [tracker.track(_offset(p)) for p in (1, 2)]
    assert committer.shutdown(FlushingWriter(tracker, seqs), timeout_s=5)
    assert store.load() == _offset(2)
    assert store.closed


def test_shutdown_after_delivery_failure_commits_only_the_acknowledged_prefix() -> None:
    tracker, store = OffsetTracker(), MemoryOffsetStore()
    committer = OffsetCommitter(tracker, store, flush_interval_ms=0)
    seqs = [tracker.track(_offset(p)) for p in (1, 2, 3)]
    writer = FlushingWriter(tracker, [seqs[0], seqs[2]], error=RuntimeError("delivery to t failed"))
    with pytest.raises(RuntimeError, match="delivery"):
        committer.shutdown(writer, timeout_s=5)
    assert store.load() == _offset(1)
    assert store.closed


def test_shutdown_with_unacknowledged_records_reports_false() -> None:
    tracker, store = OffsetTracker(), MemoryOffsetStore()
    committer = OffsetCommitter(tracker, store, flush_interval_ms=0)
    seqs = [tracker.track(_offset(p)) for p in (1, 2)]
    assert not committer.shutdown(FlushingWriter(tracker, seqs[:1], remaining=1), timeout_s=0.1)
    assert store.load() == _offset(1)


class TimingOutStore(MemoryOffsetStore):
    def __init__(self) -> None:
        super().__init__()
        self.fail = True

    def save(self, offset: dict) -> None:
        if self.fail:
            raise OffsetFlushTimeout("not acknowledged")
        super().save(offset)


def test_flush_timeout_is_retried_at_the_next_interval() -> None:
    tracker, store = OffsetTracker(), TimingOutStore()
    committer = OffsetCommitter(tracker, store, flush_interval_ms=0)
    tracker.ack(tracker.track(_offset(1)))
    assert not committer.maybe_commit()
    store.fail = False
    assert committer.maybe_commit()
    assert store.load() == _offset(1)
