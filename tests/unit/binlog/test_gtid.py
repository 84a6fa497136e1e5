"""GTID values: MySQL GTID sets and MariaDB GTID positions."""
from __future__ import annotations

import pytest

from connector.gtids.sets import GtidSet, GtidSourceFilter, MariaGtidPosition

U, V = "3e11fa47-71ca-11e1-9e33-c80aa9429562", "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"


@pytest.mark.parametrize("text, rendered", [
    (f"{U}:1-5:7, {U.upper()}:6", f"{U}:1-7"),
    (f"{V}:3,{U}:1-2\n", f"{U}:1-2,{V}:3"),
    ("", ""),
])
def test_mysql_sets_render_sorted_and_merged(text, rendered) -> None:
    assert str(GtidSet.parse(text)) == rendered


def test_client_rendering_writes_every_interval_as_a_range() -> None:
    # what Debezium's streaming GtidSet (mysql-binlog-connector-java) writes into offsets: golden
    # snapshot-config-stream-mysql has `uuid:1-1` for a set of one transaction
    assert GtidSet.parse(f"{U}:1:3-4,{V}:7").client_str() == f"{U}:1-1:3-4,{V}:7-7"
    assert GtidSet.parse("").client_str() == ""


@pytest.mark.parametrize("a, b, difference", [
    (f"{U}:1-10", f"{U}:3-4:8", f"{U}:1-2:5-7:9-10"),
    (f"{U}:1-10,{V}:1-3", f"{U}:1-10", f"{V}:1-3"),
    (f"{U}:1-3", f"{U}:1-5,{V}:1", ""),
])
def test_mysql_subtract(a, b, difference) -> None:
    result = GtidSet.parse(a).subtract(GtidSet.parse(b))
    assert str(result) == difference
    assert result.union(GtidSet.parse(b)).is_subset_of(GtidSet.parse(a).union(GtidSet.parse(b)))
    assert not any(result.contains(f"{u}:{n}") for u, spans in GtidSet.parse(b).intervals
                   for lo, hi in spans for n in range(lo, hi + 1))


def test_mysql_add_union_contains() -> None:
    s = GtidSet.parse(f"{U}:1-3").add(f"{U}:4").add(f"{V}:9")
    assert str(s) == f"{U}:1-4,{V}:9"
    assert s.contains(f"{U.upper()}:2") and not s.contains(f"{U}:5")
    assert str(s.union(GtidSet.parse(f"{U}:5-6"))) == f"{U}:1-6,{V}:9"
    assert GtidSet.parse(f"{U}:2-3").is_subset_of(s) and not s.is_subset_of(GtidSet.parse(f"{U}:1-4"))


def test_mariadb_position_parse_render_add() -> None:
    p = MariaGtidPosition.parse("1-3-7,0-1-42\n")
    assert str(p) == "0-1-42,1-3-7"
    assert str(p.add("0-2-43")) == "0-2-43,1-3-7"  # a new server in the domain (after a failover)
    assert str(p.add("5-1-1")) == "0-1-42,1-3-7,5-1-1"
    assert str(MariaGtidPosition.parse("0-1-5,0-1-9")) == "0-1-9"  # a repeated domain: the last wins
    assert not MariaGtidPosition.parse("") and str(MariaGtidPosition.parse(None)) == ""


def test_mariadb_position_compare_merge_subtract() -> None:
    a, b = MariaGtidPosition.parse("0-1-42,1-3-7"), MariaGtidPosition.parse("0-2-50")
    assert str(a.merge(b)) == "0-2-50,1-3-7"
    assert str(a.subtract(b)) == "1-3-7"  # domain 1 is unknown to b
    assert str(b.subtract(a)) == "0-2-50"
    assert not MariaGtidPosition.parse("0-1-40").subtract(a)
    assert MariaGtidPosition.parse("0-1-40").is_subset_of(a) and not a.is_subset_of(b)
    assert a.contains("0-9-42") and not a.contains("0-1-43") and not a.contains("2-1-1")
    assert a.sources() == ("0-1", "1-3")


def test_source_filter_on_mysql_sets() -> None:
    f = GtidSourceFilter(includes=("3E11FA47-.*",))
    assert f.accepts(U) and not f.accepts(V)
    done = GtidSet.parse(f"{U}:1-5,{V}:1-3")
    assert str(f.retain(done)) == f"{U}:1-5"
    assert str(f.merged_for_connect(done, GtidSet.parse(f"{U}:1-9,{V}:1-20"))) == f"{U}:1-5,{V}:1-20"
