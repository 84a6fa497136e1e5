"""OffsetCommitter: interval, only acknowledged offsets, and the shutdown order (flush, commit, close)."""

from __future__ import annotations

import threading

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


class GatedStore(MemoryOffsetStore):
    """Its `save` waits until the test opens the gate (a slow disk), or raises `failure` when set."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.failure: Exception | None = None

    def save(self, offset: dict) -> None:
        self.gate.wait()
        if self.failure is not None:
            raise self.failure
        super().save(offset)


def test_write_behind_saves_on_its_thread_and_names_an_offset_committed_once_saved() -> None:
    tracker, store = OffsetTracker(), GatedStore()
    committer = OffsetCommitter(tracker, store, flush_interval_ms=0, write_behind=True)
    tracker.ack(tracker.track(_offset(1)))
    assert committer.maybe_commit()  # handed over: returns while the save waits
    assert committer.last_committed is None and store.load() is None
    tracker.ack(tracker.track(_offset(2)))
    assert not committer.maybe_commit()  # one save at a time
    store.gate.set()
    assert committer.commit()  # waits for the save in flight, then saves offset 2 in place
    assert len(store.saved) == 2 and store.load() == _offset(2) and committer.last_committed == _offset(2)
    committer.close_writer()


def test_write_behind_failure_raises_on_the_callers_thread() -> None:
    tracker, store = OffsetTracker(), GatedStore()
    committer = OffsetCommitter(tracker, store, flush_interval_ms=0, write_behind=True)
    store.failure = OffsetFlushTimeout("slow")
    tracker.ack(tracker.track(_offset(1)))
    assert committer.maybe_commit()
    store.gate.set()
    committer.close_writer()  # the save ran and failed
    assert not committer.maybe_commit()  # a flush timeout: warned, retried at the next interval
    store.failure = OSError("disk full")
    assert committer.maybe_commit()
    with pytest.raises(OSError, match="disk full"):
        committer.commit()
    assert committer.last_committed is None
    committer.close_writer()
