"""TimezoneConverter rules and zones, and SimpleDateFormat parsing for TimestampConverter: the parts the goldens
`xform_tz*`/`xform_tstr*` cannot pin (start-up refusals, the wall clock, dates the servers cannot store)."""
from __future__ import annotations

import datetime as dt

import pytest

from connector.events.kinds import ConnectRecord
from connector.serde.connect_schema import ConnectSchema, Type, struct
from connector.transforms.date_parse import ParseError, compile_parser
from connector.transforms.timezone import Rules, TimezoneConverter, parse_zone

_MS = ConnectSchema(Type.INT64, optional=True, name="io.debezium.time.Timestamp", version=1)
_ZT = ConnectSchema(Type.STRING, optional=True, name="io.debezium.time.ZonedTime", version=1)
_ZTS = ConnectSchema(Type.STRING, optional=True, name="io.debezium.time.ZonedTimestamp", version=1)
ROW = struct("s.db.t.Value", [("a", _MS), ("b", _ZTS), ("c", _ZT)], optional=True)
SOURCE = struct("io.debezium.connector.mysql.Source", [("table", ConnectSchema(Type.STRING, optional=True))])
ENVELOPE = struct("s.db.t.Envelope", [("before", ROW), ("after", ROW), ("source", SOURCE)])
FIXED_NOW = lambda: dt.datetime(2024, 1, 15, tzinfo=dt.timezone.utc)  # noqa: E731


def _after(tc: TimezoneConverter, after: list, topic: str = "s.db.t") -> list:
    out = tc.apply(ConnectRecord(topic, None, None, None, ENVELOPE, [None, after, ["t"]], []))
    assert out is not None
    return out.value[1]


def test_parse_zone_accepts_debezium_forms_and_refuses_the_rest() -> None:
    assert parse_zone("+05:30").utcoffset(None) == dt.timedelta(hours=5, minutes=30)
    assert parse_zone("-01:02:03").utcoffset(None) == -dt.timedelta(hours=1, minutes=2, seconds=3)
    assert str(parse_zone("Europe/Paris")) == "Europe/Paris"
    for bad in ("+5:30", "PST8", "Mars/Olympus", "+19:00", "", "localtime"):
        with pytest.raises(ValueError, match="converted.timezone"):
            parse_zone(bad)


def test_rules_validate_like_debezium_and_carry_the_prefix() -> None:
    rules = Rules.parse("include.list", ["source:t:after.a", "u:b", "topic:s.db.v", "w:c"])
    assert rules.tables == {"t": {"after.a"}, "u": {"b"}}
    assert rules.topics == {"s.db.v": set(), "w": {"c"}}  # `w:c` follows `topic:`, so it names a topic
    assert Rules.parse("include.list", ["SOURCE:t"]).bare == {"t": set()}  # filed case-sensitively
    for bad in (["source:t:a", "source:u:b"], ["t"], ["source:my-table"]):
        with pytest.raises(ValueError, match="Invalid include list format"):
            Rules.parse("include.list", bad)


def test_timezone_converter_moves_wall_times_and_keeps_zoned_instants() -> None:
    tc = TimezoneConverter(parse_zone("America/New_York"), None, None, now=FIXED_NOW)
    # 2024-07-01T12:00Z read as New York wall time (EDT, -04:00) is 16:00Z
    assert _after(tc, [1719835200000, "2024-07-01T12:00:00.500000Z", "10:15:30.25Z"]) == [
        1719849600000, "2024-07-01T08:00:00.5-04:00", "05:15:30.25-05:00"]  # ZonedTime: the offset of "now" (EST)
    # gap (02:30 on 2024-03-10 does not exist in New York): the offset before the transition, as Java's
    gap = int(dt.datetime(2024, 3, 10, 2, 30, tzinfo=dt.timezone.utc).timestamp() * 1000)
    assert _after(tc, [gap, None, None])[0] == gap + 5 * 3600 * 1000


def test_timezone_converter_include_and_exclude_select_fields() -> None:
    inc = TimezoneConverter(parse_zone("+01:00"), Rules.parse("include.list", ["source:t:a"]), None)
    assert _after(inc, [0, "1970-01-01T00:00:00Z", None]) == [-3600000, "1970-01-01T00:00:00Z", None]
    exc = TimezoneConverter(parse_zone("+01:00"), None, Rules.parse("exclude.list", ["topic:s.db.t:a"]))
    assert _after(exc, [0, "1970-01-01T00:00:00Z", None]) == [0, "1970-01-01T01:00:00+01:00", None]
    assert _after(exc, [0, None, None], topic="s.db.other") == [-3600000, None, None]
    whole = TimezoneConverter(parse_zone("+01:00"), None, Rules.parse("exclude.list", ["topic:s.db.t"]))
    assert _after(whole, [0, None, None]) == [0, None, None]


@pytest.mark.parametrize("pattern, text, expected", [
    ("yyyy-MM-dd HH:mm:ss", "2024-01-02 03:04:05", "2024-01-02T03:04:05"),
    ("yyyy-MM-dd", "2024-13-45 and more", "2025-02-14T00:00:00"),  # lenient roll-over, trailing text ignored
    ("ss.SSS", "01.123456", "1970-01-01T00:02:04.456"),  # SSS is a count of milliseconds
    ("yyyyMMddHHmmssSSS", "20240102030405678", "2024-01-02T03:04:05.678"),  # abutting numbers take their width
    ("hh:mm a", "12:30 am", "1970-01-01T00:30:00"),
    ("K:mm a", "11:59 PM", "1970-01-01T23:59:00"),
    ("kk", "24", "1970-01-01T00:00:00"),
    ("EEE, d MMM yy z", "Tue, 9 Jul 24 GMT-02:30", "2024-07-09T02:30:00"),
    ("dd MMMM yyyy HH:mm Z", "01 january 2000 10:00 +0530", "2000-01-01T04:30:00"),
    ("HH:mmX", "10:00Z", "1970-01-01T10:00:00"),
    ("yy", "50", "1950-01-01T00:00:00"),  # the century starting 80 years before "now" (2024): 1944..2043
])
def test_simple_date_format_parsing(pattern: str, text: str, expected: str) -> None:
    ms = compile_parser(pattern, now=lambda: dt.datetime(2024, 1, 1))(text)
    got = dt.datetime(1970, 1, 1) + dt.timedelta(milliseconds=ms)
    assert got.isoformat(timespec="milliseconds") == dt.datetime.fromisoformat(expected).isoformat(
        timespec="milliseconds")


def test_simple_date_format_parse_errors_and_refusals() -> None:
    with pytest.raises(ParseError):
        compile_parser("yyyy-MM-dd")("2024/01/02")
    with pytest.raises(ValueError, match="letter 'w' is not implemented"):
        compile_parser("ww")
    with pytest.raises(ValueError, match="weekday"):
        compile_parser("d EEE")


def test_timestamp_router_formats_the_record_timestamp_and_stops_without_one() -> None:
    from connector.transforms.catalog import TRANSFORMS
    from connector.transforms.headers import HeaderCodec
    from connector.events.records import HeaderFormat

    kind = TRANSFORMS["TimestampRouter"]
    router = kind.build({k: v for k, v in kind.options.items() if v is not None}, HeaderCodec(HeaderFormat.JSON))
    record = ConnectRecord("outbox.event.order", None, None, None, None, "x", [("h", b"1")], timestamp=1714979289123)
    out = router.apply(record)
    assert out is not None and (out.topic, out.value, out.headers, out.timestamp) == (
        "outbox.event.order-20240506", "x", [("h", b"1")], 1714979289123)
    with pytest.raises(ValueError, match="Timestamp missing on record"):
        router.apply(ConnectRecord("dbserver1.db.t", None, None, None, None, "x", []))


def test_values_beyond_python_datetime_stop_the_record_with_a_value_error() -> None:
    tc = TimezoneConverter(parse_zone("+01:00"), None, None)
    with pytest.raises(ValueError, match="outside the years"):
        _after(tc, [10 ** 15, None, None])
