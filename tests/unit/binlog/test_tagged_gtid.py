"""MySQL 8.3+ tagged GTIDs: sets with tags (text, Debezium's offset text, the dump command's bytes) and the
GTID_TAGGED_LOG_EVENT decoder, checked on the binlog real MySQL 9.7 wrote for golden gtid_tagged-mysql."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from connector.gtids.sets import GtidSet, GtidSourceFilter, split_gtid, varlen_uint
from connector.binlog.tagged_gtid import GTID_TAGGED_LOG_EVENT, TaggedGtidError, decode_tagged_gtid, read_varlen_uint

U, V = "3e11fa47-71ca-11e1-9e33-c80aa9429562", "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa"
GOLDEN = Path(__file__).resolve().parents[2] / "fixtures" / "golden" / "gtid_tagged-mysql"


@pytest.mark.parametrize("text, mysql, debezium", [
    (f"{U}:1-6:etl:1-4", f"{U}:1-6:etl:1-4", f"{U}:1-6:etl:1-4"),
    (f"{U}:ETL:3:1-2:Batch_A:7,{U}:5", f"{U}:5:batch_a:7:etl:1-3", f"{U}:5-5:batch_a:7-7:etl:1-3"),
    (f"{V}:other:3,{V}:2,{U}:x:1", f"{U}:x:1,{V}:2:other:3", f"{U}:x:1-1,{V}:2-2:other:3-3"),
    # offsets of golden gtid_tagged-mysql (Debezium 3.6.3): untagged first, tags in order, `a-a` intervals
    (f"{U}:1-7:batch_a:1-3:batch_b:1-1:etl:1-5:manual:5-5,{V}:2-2:other:3-3",
     f"{U}:1-7:batch_a:1-3:batch_b:1:etl:1-5:manual:5,{V}:2:other:3",
     f"{U}:1-7:batch_a:1-3:batch_b:1-1:etl:1-5:manual:5-5,{V}:2-2:other:3-3"),
])
def test_tagged_sets_render_as_mysql_and_as_debezium(text, mysql, debezium) -> None:
    parsed = GtidSet.parse(text)
    assert str(parsed) == mysql and parsed.client_str() == debezium
    assert GtidSet.parse(str(parsed)) == parsed == GtidSet.parse(parsed.client_str())


def test_tagged_gtids_add_contain_subtract_apart_from_untagged() -> None:
    s = GtidSet.parse(f"{U}:1-3").add(f"{U}:etl:1").add(f"{U}:ETL:2").add(f"{U}:4")
    assert str(s) == f"{U}:1-4:etl:1-2"
    assert s.contains(f"{U}:etl:2") and not s.contains(f"{U}:etl:3") and s.contains(f"{U}:3")
    assert not GtidSet.parse(f"{U}:1-4").contains(f"{U}:etl:1")
    assert str(s.subtract(GtidSet.parse(f"{U}:1-4"))) == f"{U}:etl:1-2"
    assert GtidSet.parse(f"{U}:etl:1").is_subset_of(s) and not GtidSet.parse(f"{U}:x:1").is_subset_of(s)
    assert split_gtid(f"{U}:Etl:12") == (f"{U}:etl", 12) and split_gtid(f"{U}:12") == (U, 12)


def test_a_gtid_source_filter_matches_the_uuid_of_tagged_gtids() -> None:
    only_u = GtidSourceFilter(includes=(U,))
    assert only_u.accepts(f"{U}:etl") and not only_u.accepts(f"{V}:other")
    assert str(only_u.retain(GtidSet.parse(f"{U}:1:etl:1,{V}:other:3"))) == f"{U}:1:etl:1"


@pytest.mark.parametrize("bad", [f"{U}:1-3:bad tag:1", f"{U}:1-x", f"{U}:{'t' * 33}:1"])
def test_malformed_sets_name_the_bad_part(bad) -> None:
    with pytest.raises(ValueError, match="neither an interval"):
        GtidSet.parse(bad)


def test_the_dump_command_encoding_of_tagged_sets() -> None:
    # MySQL's Gtid_set::encode: untagged sets as before (the same bytes as python-mysql-replication's) ...
    from pymysqlreplication.gtid import GtidSet as PmrGtidSet

    assert GtidSet.parse(f"{U}:1-6:8,{V}:2").encoded() == PmrGtidSet(f"{U}:1-6:8,{V}:2").encoded()
    # ... a tagged one: format 1 in the count word's top and bottom bytes, a tag (varlen length) per key
    raw = GtidSet.parse(f"{U}:1-2:etl:5").encoded()
    assert raw[:8] == ((1 << 56) | (2 << 8) | 1).to_bytes(8, "little")
    uuid = bytes.fromhex(U.replace("-", ""))
    untagged = uuid + b"\x00" + (1).to_bytes(8, "little") + (1).to_bytes(8, "little") + (3).to_bytes(8, "little")
    tagged = uuid + bytes([3 << 1]) + b"etl" + (1).to_bytes(8, "little") + (5).to_bytes(8, "little") \
        + (6).to_bytes(8, "little")
    assert raw[8:] == untagged + tagged


@pytest.mark.parametrize("value", [0, 1, 63, 64, 127, 128, 2 ** 14 - 1, 2 ** 14, 2 ** 56 - 1, 2 ** 56, 2 ** 64 - 1])
def test_varlen_integers_round_trip(value) -> None:
    encoded = varlen_uint(value)
    assert read_varlen_uint(encoded + b"\xee", 0) == (value, len(encoded))


def _binlog_events(path: Path) -> list[tuple[int, int, bytes]]:
    """(type, position, body without checksum) of every event of a binlog file (CRC32 checksums)."""
    data = path.read_bytes()
    pos, out = 4, []
    while pos + 19 <= len(data):
        kind, size = data[pos + 4], int.from_bytes(data[pos + 9:pos + 13], "little")
        out.append((kind, pos, data[pos + 19:pos + size - 4]))
        pos += size
    return out


def test_tagged_gtid_events_of_a_real_mysql_binlog_decode_to_the_gtids_debezium_reports() -> None:
    info = json.loads((GOLDEN / "run_info.json").read_text())
    decoded = [decode_tagged_gtid(body) for kind, _, body in _binlog_events(GOLDEN / "binlog" / "mysql-bin.000002")
               if kind == GTID_TAGGED_LOG_EVENT]
    gtids = [d.gtid for d in decoded]
    uuid = info["server_uuid"]
    assert gtids[:2] == [f"{uuid}:etl:1", f"{uuid}:etl:2"]  # the setup's, before the connector started
    reported = []
    for line in (GOLDEN / "events.jsonl").read_text().splitlines():
        value = json.loads(line)["value"]
        source = (value or {}).get("payload", {}).get("source") or {}
        gtid = source.get("gtid")
        if gtid and gtid.count(":") == 2 and gtid not in reported:
            reported.append(gtid)
    assert gtids[2:] == reported
    assert all(d.original_commit_us > 1_700_000_000 * 10 ** 6 and d.sequence_number > d.last_committed >= 0
               for d in decoded)


def test_a_truncated_tagged_gtid_event_is_an_error_not_a_wrong_gtid() -> None:
    body = next(body for kind, _, body in _binlog_events(GOLDEN / "binlog" / "mysql-bin.000002")
                if kind == GTID_TAGGED_LOG_EVENT)
    with pytest.raises(TaggedGtidError):
        decode_tagged_gtid(body[:20])


def test_debezium_s_offset_text_keeps_uuids_in_the_order_they_came_in() -> None:
    # golden gtid_tagged-mysql: the server's UUID (from the snapshot's set) before aaaaaaaa-..., first seen while
    # streaming, whichever sorts first; MySQL's text sorts them; a parse (a restart) sorts them again
    streamed = GtidSet.parse(f"{V}:1-2").add(f"{U}:x:5").add(f"{U}:3").add(f"{V}:other:1")
    assert streamed.client_str() == f"{V}:1-2:other:1-1,{U}:3-3:x:5-5"
    assert str(streamed) == f"{U}:3:x:5,{V}:1-2:other:1"
    assert GtidSet.parse(streamed.client_str()).client_str() == f"{U}:3-3:x:5-5,{V}:1-2:other:1-1"
    assert streamed == GtidSet.parse(str(streamed)) and hash(streamed) == hash(GtidSet.parse(str(streamed)))
