"""Binlog positions order by file number: after mysql-bin.999999 the server writes mysql-bin.1000000 (issue 24)."""
from __future__ import annotations

from connector.offsets.position import BinlogPosition, binlog_file_key


def test_file_numbers_past_999999_order_as_numbers() -> None:
    assert binlog_file_key("mysql-bin.999999") < binlog_file_key("mysql-bin.1000000")
    assert "mysql-bin.999999" > "mysql-bin.1000000"  # what comparing the text did
    assert BinlogPosition("mysql-bin.999999", 90_000) < BinlogPosition("mysql-bin.1000000", 4)
    assert BinlogPosition("mysql-bin.1000000", 4) <= BinlogPosition("mysql-bin.1000000", 4)
    assert BinlogPosition("mysql-bin.1000001", 4) > BinlogPosition("mysql-bin.1000000", 900)
    assert max(BinlogPosition("b.999999", 5), BinlogPosition("b.1000000", 4)) == BinlogPosition("b.1000000", 4)
    names = ["b.1000001", "b.999998", "b.1000000", "b.999999"]
    assert sorted(names, key=binlog_file_key) == ["b.999998", "b.999999", "b.1000000", "b.1000001"]


def test_a_name_without_a_number_does_not_crash_the_ordering() -> None:
    assert binlog_file_key("weird") == ("weird", -1)
    assert BinlogPosition("weird", 4) == BinlogPosition("weird", 4)
