"""The resume information a snapshot record's offset carries (snapshot/resume.py)."""
from __future__ import annotations

from connector.offsets.position import SNAPSHOT_INITIAL, SourceOffset
from schema_history.model import TableId
from snapshot.resume import RESUME_KEY, RESUME_TABLE, ResumePoint, SnapshotResume, encode_key


def test_offset_round_trip():
    base = SourceOffset(file="mariadb-bin.000001", pos=1234, ts_sec=1, snapshot=SNAPSHOT_INITIAL)
    table = TableId("shop", "or.ders")
    m = base.with_parts(SnapshotResume(table.identifier(), encode_key([7, "x"]))).to_map()
    assert m["file"] == "mariadb-bin.000001" and m["snapshot"] == "INITIAL"
    assert m[RESUME_TABLE] == '"shop"."or.ders"' and m[RESUME_KEY] == '[7,"x"]'
    point = ResumePoint.from_offset(m)
    assert point == ResumePoint(table, (7, "x"))
    # Debezium's own reading of the map is unchanged
    assert SourceOffset.from_map(m) == base
    # Read back as a part by whoever asks for it (the start decision does)
    loaded = SourceOffset.from_map(m, loaders=(SnapshotResume.load,))
    assert loaded.part(SnapshotResume) == SnapshotResume('"shop"."or.ders"', '[7,"x"]')
    assert loaded.to_map() == m and list(loaded.to_map()) == list(m)


def test_keys_that_cannot_be_compared_exactly_restart_the_table():
    from decimal import Decimal
    assert encode_key([Decimal("1.5")]) is None and encode_key([True]) is None and encode_key([b"x"]) is None
    assert ResumePoint.from_offset({"file": "f", "pos": 4, RESUME_TABLE: '"a"."b"'}) == ResumePoint(TableId("a", "b"), None)
    assert ResumePoint.from_offset({"file": "f", "pos": 4}) is None
