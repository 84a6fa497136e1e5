"""The watermarks that write nothing: GTID sets of read-only incremental snapshots (the records: golden
signals_control-readonly-mysql) and MariaDB's consistent-view positions (snapshot/incremental/view_position.py)."""

from __future__ import annotations

from connector.offsets.position import SourceOffset
from connector.gtids.sets import GtidSet
from connector.events.changes import EventSource
from snapshot.incremental.read_only import GtidWatermarks
from snapshot.incremental.view_position import ViewPositionWatermarks, binlog_order

U = "3f1c0000-0000-0000-0000-000000000001"
NOWHERE = SourceOffset(file="bin.000001", pos=4)


def marks(low: str, high: str) -> GtidWatermarks:
    return GtidWatermarks(GtidSet.parse(low), GtidSet.parse(high))


def gtid(value: str) -> EventSource:
    return EventSource(ts_ms=0, db="d", table="t", server_id=1, gtid=value, file="bin.000001", pos=4, row=0,
                       thread=None)


def at(file: str, pos: int) -> EventSource:
    return EventSource(ts_ms=0, db="d", table="t", server_id=1, gtid=None, file=file, pos=pos, row=0, thread=None)


def test_a_change_past_the_low_watermark_opens_the_window_and_one_past_the_high_closes_it():
    m = marks(f"{U}:1-10", f"{U}:11-12")  # 11 and 12 committed while the chunk was read
    assert m.update_window_state(gtid(f"{U}:10"), NOWHERE) is False and not m.window_opened  # the chunk saw it
    assert m.update_window_state(gtid(f"{U}:11"), NOWHERE) is False and m.window_opened  # de-duplicate
    assert m.update_window_state(gtid(f"{U}:12"), NOWHERE) is False and m.window_opened
    assert m.update_window_state(gtid(f"{U}:13"), NOWHERE) is True  # past the high watermark: window first
    assert not m.active and not m.window_opened


def test_nothing_committed_during_the_chunk_closes_at_the_first_change_after_it():
    m = marks(f"{U}:1-10", "")
    assert m.update_window_state(gtid(f"{U}:11"), NOWHERE) is True


def test_a_commit_or_heartbeat_closes_the_window_once_the_high_watermark_is_reached():
    m = marks(f"{U}:1-10", f"{U}:11-12")
    assert not m.reached_high_watermark(gtid(f"{U}:11"), NOWHERE)
    assert m.reached_high_watermark(gtid(f"{U}:12"), NOWHERE)
    empty = marks(f"{U}:1-10", "")  # nothing happened: the low watermark's last transaction counts
    assert not empty.reached_high_watermark(gtid(f"{U}:9"), NOWHERE)
    assert empty.reached_high_watermark(gtid(f"{U}:10"), NOWHERE)
    assert not GtidWatermarks().reached_high_watermark(gtid(f"{U}:10"), NOWHERE)  # no window


def test_tagged_gtids_count_per_tag():
    """MySQL 8.3+ tagged transactions (`uuid:etl:n`) in the watermarks: a tag's numbers are its own."""
    m = marks(f"{U}:1-10:etl:1-4", f"{U}:etl:5")  # a tagged transaction committed while the chunk was read
    assert m.update_window_state(gtid(f"{U}:etl:4"), NOWHERE) is False and not m.window_opened  # the chunk saw it
    assert m.update_window_state(gtid(f"{U}:etl:5"), NOWHERE) is False and m.window_opened
    assert not m.reached_high_watermark(gtid(f"{U}:10"), NOWHERE)  # untagged 10 is not the high watermark's etl:5
    assert m.reached_high_watermark(gtid(f"{U}:etl:5"), NOWHERE)
    assert m.update_window_state(gtid(f"{U}:11"), NOWHERE) is True  # untagged 11 is not in the high watermark


def test_binlog_positions_compare_by_file_sequence_then_position():
    assert binlog_order("mariadb-bin.000010", 4) > binlog_order("mariadb-bin.000009", 99999)
    assert binlog_order("mariadb-bin.000002", 500) < binlog_order("mariadb-bin.000002", 501)


def test_a_view_position_window_closes_before_the_first_transaction_at_or_after_the_view():
    m = ViewPositionWatermarks(view=binlog_order("b.000002", 1000), window_opened=True)
    # a transaction that started before the view: the chunk saw it; its changes still drop keys from the window
    assert m.update_window_state(at("b.000002", 900), SourceOffset(file="b.000002", pos=800)) is False
    assert m.window_opened
    assert m.update_window_state(at("b.000002", 1100), SourceOffset(file="b.000002", pos=1000)) is True
    assert not m.active


def test_a_view_position_window_closes_at_a_commit_or_heartbeat_past_the_view():
    m = ViewPositionWatermarks(view=binlog_order("b.000002", 1000), window_opened=True)
    assert not m.reached_high_watermark(at("b.000002", 970), NOWHERE)  # the commit event of the view's last tx
    assert m.reached_high_watermark(at("b.000002", 1000), NOWHERE)  # a heartbeat at the next position
    assert m.reached_high_watermark(at("b.000003", 4), NOWHERE)  # after a rotation
    assert not ViewPositionWatermarks().reached_high_watermark(at("b.000009", 4), NOWHERE)


def test_a_heartbeat_without_a_gtid_closes_the_window_only_once_streaming_has_both_watermarks():
    m = marks(f"{U}:1-10", f"{U}:11-12")
    idle = at("bin.000001", 4)
    # streaming far behind the chunk (a resumed snapshot's remainder): MySQL's heartbeats while it skips
    assert not m.reached_high_watermark(idle, SourceOffset(file="bin.000001", pos=4, gtids=f"{U}:1-5"))
    assert not m.reached_high_watermark(idle, SourceOffset(file="bin.000001", pos=4, gtids=f"{U}:1-11"))
    assert m.reached_high_watermark(idle, SourceOffset(file="bin.000001", pos=4, gtids=f"{U}:1-12"))
