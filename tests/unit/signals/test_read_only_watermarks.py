"""The GTID watermarks of read-only incremental snapshots (the records: golden signals_control-readonly-mysql)."""

from __future__ import annotations

from connector.gtids.sets import GtidSet
from snapshot.incremental.read_only import GtidWatermarks

U = "3f1c0000-0000-0000-0000-000000000001"


def marks(low: str, high: str) -> GtidWatermarks:
    return GtidWatermarks(GtidSet.parse(low), GtidSet.parse(high))


def test_a_change_past_the_low_watermark_opens_the_window_and_one_past_the_high_closes_it():
    m = marks(f"{U}:1-10", f"{U}:11-12")  # 11 and 12 committed while the chunk was read
    assert m.update_window_state(f"{U}:10") is False and not m.window_opened  # the chunk saw it
    assert m.update_window_state(f"{U}:11") is False and m.window_opened  # de-duplicate against the window
    assert m.update_window_state(f"{U}:12") is False and m.window_opened
    assert m.update_window_state(f"{U}:13") is True  # past the high watermark: send the window first
    assert not m.active and not m.window_opened


def test_nothing_committed_during_the_chunk_closes_at_the_first_change_after_it():
    m = marks(f"{U}:1-10", "")
    assert m.update_window_state(f"{U}:11") is True


def test_a_commit_or_heartbeat_closes_the_window_once_the_high_watermark_is_reached():
    m = marks(f"{U}:1-10", f"{U}:11-12")
    assert not m.reached_high_watermark(f"{U}:11")
    assert m.reached_high_watermark(f"{U}:12")
    empty = marks(f"{U}:1-10", "")  # nothing happened: the low watermark's last transaction counts
    assert not empty.reached_high_watermark(f"{U}:9") and empty.reached_high_watermark(f"{U}:10")
    assert not GtidWatermarks().reached_high_watermark(f"{U}:10")  # no window


def test_tagged_gtids_count_per_tag():
    """MySQL 8.3+ tagged transactions (`uuid:etl:n`) in the watermarks: a tag's numbers are its own."""
    m = marks(f"{U}:1-10:etl:1-4", f"{U}:etl:5")  # a tagged transaction committed while the chunk was read
    assert m.update_window_state(f"{U}:etl:4") is False and not m.window_opened  # the chunk saw it
    assert m.update_window_state(f"{U}:etl:5") is False and m.window_opened
    assert not m.reached_high_watermark(f"{U}:10")  # untagged 10 is not the high watermark's etl:5
    assert m.reached_high_watermark(f"{U}:etl:5")
    assert m.update_window_state(f"{U}:11") is True  # untagged 11 is not in the high watermark: it closes
