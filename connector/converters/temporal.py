"""DATE, TIME, DATETIME, TIMESTAMP and YEAR under `time.precision.mode`.

Representations (debezium-contract.md §d5): DATE → days since epoch; TIME → a duration (µs, may be
negative or above 24h); DATETIME → the wall-clock value read *as UTC* since epoch (ms for fsp ≤ 3, µs
above, in the adaptive modes); TIMESTAMP → UTC ISO-8601 string with exactly fsp fraction digits
(`ZonedTimestamp`); YEAR → int32.

Binlog inputs are python-mysql-replication's `date`/`timedelta`/naive `datetime` (TIMESTAMP already
in UTC). Snapshot inputs are the server's text (PyMySQL with `snapshot_conv`), which is exact and
avoids Python's datetime range limits; the snapshot session must use `time_zone='+00:00'` so that
TIMESTAMP text is UTC.
"""

from __future__ import annotations

import datetime as _dt
import re
from typing import Any, Callable

from connector.config.modes import TimePrecisionMode
from connector.converters.base import Kind, UnsupportedColumnType, ValueSettings
from connector.converters.temporal_text import fast_date, fast_datetime, fast_timestamp
from connector.java.calendar import civil_from_days
from connector.serde.connect_schema import ConnectSchema, Type
from schema_history.model import Column

_EPOCH_ORDINAL = _dt.date(1970, 1, 1).toordinal()
_US = 1_000_000


# ---------------------------------------------------------------- two-digit years
def _adjust_year(year: int) -> int:
    """enable.time.adjuster: years 0-69 → 2000-2069, 70-99 → 1970-1999 (Debezium adjustTemporal)."""
    if year < 70:
        return year + 2000
    if year < 100:
        return year + 1900
    return year


# ---------------------------------------------------------------- parsing the server's text
def _days_from_text(text: str, adjust: bool = True) -> int | None:
    year, month, day = int(text[0:4]), int(text[5:7]), int(text[8:10])
    if month == 0 or day == 0:  # zero dates: JDBC's zeroDateTimeBehavior=CONVERT_TO_NULL
        return None
    if adjust and year < 100:
        year = _adjust_year(year)
    return _days_from_civil(year, month, day)


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 in the proleptic Gregorian calendar, year 0 included (Python's date has
    no year 0, Java's LocalDate has: a snapshot DATE '0000-01-01' without the adjuster is -719528)."""
    y = year - (month <= 2)
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _fraction_us(text: str) -> int:
    # ".123" → 123000 µs
    return int((text + "000000")[:6]) if text else 0


def _datetime_us_from_text(text: str, adjust: bool = True) -> int | None:
    days = _days_from_text(text, adjust)
    if days is None:
        return None
    hh, mm, ss = int(text[11:13]), int(text[14:16]), int(text[17:19])
    frac = _fraction_us(text[20:]) if len(text) > 19 else 0
    return (days * 86400 + hh * 3600 + mm * 60 + ss) * _US + frac


def _time_us_from_text(text: str) -> int:
    negative = text.startswith("-")
    body = text[1:] if negative else text
    hms, _, frac = body.partition(".")
    h, m, s = hms.split(":")
    us = (int(h) * 3600 + int(m) * 60 + int(s)) * _US + _fraction_us(frac)
    return -us if negative else us


# BinlogDefaultValueConverter.convertToDuration: a TIME default written as a datetime keeps its time
# part ('0000-00-00 01:00:00.000' → 01:00:00); stringToDuration then allows HH:MM without seconds.
_DATETIME_TEXT = re.compile(r"[0-9]*-[0-9]*-[0-9]* ([0-9]*:[0-9]*:[0-9]*(?:\.[0-9]*)?)")
_TIME_DEFAULT = re.compile(r"(-?[0-9]*):([0-9]*)(?::([0-9]*))?(?:\.([0-9]*))?")


_NUMERIC_TIME = re.compile(r"(-?)([0-9]+)(?:\.([0-9]*))?")


def _time_default_us(text: str) -> int:
    dated = _DATETIME_TEXT.fullmatch(text)
    if dated:
        text = dated.group(1)
    numeric = _NUMERIC_TIME.fullmatch(text)
    if numeric:
        # MySQL's numeric TIME ([H]HMMSS, DEFAULT 0): Debezium's stringToDuration refuses it (its parser then
        # stops); read it as the server does instead, so the column keeps its default
        sign, digits, frac = numeric.groups()
        digits = digits.rjust(6, "0")
        text = f"{sign}{digits[:-4]}:{digits[-4:-2]}:{digits[-2:]}" + (f".{frac}" if frac else "")
    m = _TIME_DEFAULT.fullmatch(text)
    if m is None:
        raise ValueError(f"unexpected format for a TIME default: {text!r}")
    negative = text.startswith("-")
    hours = abs(int(m.group(1) or "0"))
    us = (hours * 3600 + int(m.group(2) or "0") * 60 + int(m.group(3) or "0")) * _US + _fraction_us(m.group(4) or "")
    return -us if negative else us


def _jdbc_year_zero(text: str) -> str:
    # JDBC reads a DATETIME of year 0 as year 1 (java.sql.Timestamp has no year 0): the reference
    # snapshot gives '0000-12-31 00:00:00' as 2001-12-31 after the two-digit-year adjuster
    return "0001" + text[4:] if text.startswith("0000-") and text[5:10] != "00-00" else text


# ---------------------------------------------------------------- python-mysql-replication values
def _ordinal(value: _dt.date, adjust: bool) -> int:
    if adjust and value.year < 100:
        return value.replace(year=_adjust_year(value.year)).toordinal()
    return value.toordinal()


def _days_from_date(value: _dt.date, adjust: bool = True) -> int:
    return _ordinal(value, adjust) - _EPOCH_ORDINAL


def _datetime_us(value: _dt.datetime, adjust: bool = True) -> int:
    return ((_ordinal(value, adjust) - _EPOCH_ORDINAL) * 86400 + value.hour * 3600 + value.minute * 60
            + value.second) * _US + value.microsecond


def _time_us(value: _dt.timedelta) -> int:
    return (value.days * 86400 + value.seconds) * _US + value.microseconds


def _time_us_from_b6_binlog(value: _dt.timedelta) -> int:
    us = (value.days * 86400 + value.seconds) * _US + value.microseconds
    if us < 0:
        # python-mysql-replication B6: a negative TIME(n) with a fraction comes back with the
        # fraction complemented (-01:02:03.456 → -01:02:03.544); undo it.
        magnitude = -us
        frac = magnitude % _US
        if frac:
            us = -((magnitude - frac) + (_US - frac))
    return us


_EPOCH_NAIVE = _dt.datetime(1970, 1, 1)


def _iso_utc(us: int, fsp: int | None = None) -> str:
    """UTC ISO-8601 with `Z`. Without fsp (snapshot values) like ISO_OFFSET_DATE_TIME: the fraction only
    when non-zero, trailing zeros dropped (`…06.789Z`); with fsp (binlog values, DDL defaults) exactly
    fsp digits (`…06.789000Z`)."""
    seconds, frac = divmod(us, _US)
    stamp = _dt.datetime(1970, 1, 1) + _dt.timedelta(seconds=seconds)
    text = f"{stamp.year:04d}-{stamp.month:02d}-{stamp.day:02d}T{stamp.hour:02d}:{stamp.minute:02d}:{stamp.second:02d}"
    if fsp:
        text += "." + f"{frac:06d}"[:fsp]
    elif frac:
        text += "." + f"{frac:06d}".rstrip("0")
    return text + "Z"


# ---------------------------------------------------------------- schemas
def _named(connect_type: Type, name: str) -> ConnectSchema:
    return ConnectSchema(connect_type, name=name, version=1)


DATE = _named(Type.INT32, "io.debezium.time.Date")
CONNECT_DATE = _named(Type.INT32, "org.apache.kafka.connect.data.Date")
TIME_MS = _named(Type.INT32, "io.debezium.time.Time")
MICRO_TIME = _named(Type.INT64, "io.debezium.time.MicroTime")
NANO_TIME = _named(Type.INT64, "io.debezium.time.NanoTime")
CONNECT_TIME = _named(Type.INT32, "org.apache.kafka.connect.data.Time")
TIMESTAMP_MS = _named(Type.INT64, "io.debezium.time.Timestamp")
MICRO_TIMESTAMP = _named(Type.INT64, "io.debezium.time.MicroTimestamp")
NANO_TIMESTAMP = _named(Type.INT64, "io.debezium.time.NanoTimestamp")
CONNECT_TIMESTAMP = _named(Type.INT64, "org.apache.kafka.connect.data.Timestamp")
ZONED_TIMESTAMP = _named(Type.STRING, "io.debezium.time.ZonedTimestamp")
YEAR = _named(Type.INT32, "io.debezium.time.Year")

ISO_DATE = _named(Type.STRING, "io.debezium.time.IsoDate")
ISO_TIME = _named(Type.STRING, "io.debezium.time.IsoTime")
ISO_TIMESTAMP = _named(Type.STRING, "io.debezium.time.IsoTimestamp")

Scale = Callable[[int], Any]  # µs (or days, for DATE) → the Connect value
_DAY_US = 86400 * _US


def _ms(us: int) -> int:
    return us // 1000


_LONG_MIN, _LONG_MAX = -(1 << 63), (1 << 63) - 1


def _ns(us: int) -> int | None:
    # NanoTimestamp is a Java long: outside ~1677-2262 Debezium's conversion overflows, it logs
    # "Failed to convert value" and emits null (reference run, DATETIME '1000-01-01' / '9999-12-31')
    ns = us * 1000
    return ns if _LONG_MIN <= ns <= _LONG_MAX else None


def _same(us: int) -> int:
    return us


def _time_of_day_ms(us: int) -> int | None:
    # Kafka's Time is a time of day: durations outside [0, 24h) have no value (Debezium emits null)
    return us // 1000 if 0 <= us < _DAY_US else None


def _fraction_text(frac_us: int) -> str:
    return ("." + f"{frac_us:06d}".rstrip("0")) if frac_us else ""


def _iso_time(us: int) -> str | None:
    if not 0 <= us < _DAY_US:
        return None
    seconds, frac = divmod(us, _US)
    return f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}{_fraction_text(frac)}Z"


def _iso_timestamp(us: int) -> str:
    seconds, frac = divmod(us, _US)
    stamp = _dt.datetime(1970, 1, 1) + _dt.timedelta(seconds=seconds)
    return (f"{stamp.year:04d}-{stamp.month:02d}-{stamp.day:02d}T{stamp.hour:02d}:{stamp.minute:02d}:"
            f"{stamp.second:02d}{_fraction_text(frac)}Z")


def _iso_date(days: int) -> str:
    year, month, day = civil_from_days(days)
    return f"{year:04d}-{month:02d}-{day:02d}Z"


_M = TimePrecisionMode
Rule = tuple[ConnectSchema, Scale]
# mode → (rule for fsp ≤ 3, rule for fsp > 3). `adaptive` is refused by Debezium 3.6's MySQL connector
# ("no longer supported") but is kept here for completeness.
_TIME_RULES: dict[TimePrecisionMode, tuple[Rule, Rule]] = {
    _M.ADAPTIVE_TIME_MICROSECONDS: ((MICRO_TIME, _same), (MICRO_TIME, _same)),
    _M.CONNECT: ((CONNECT_TIME, _time_of_day_ms), (CONNECT_TIME, _time_of_day_ms)),
    _M.MICROSECONDS: ((MICRO_TIME, _same), (MICRO_TIME, _same)),
    _M.NANOSECONDS: ((NANO_TIME, _ns), (NANO_TIME, _ns)),
    _M.ISOSTRING: ((ISO_TIME, _iso_time), (ISO_TIME, _iso_time)),
}
_DATETIME_RULES: dict[TimePrecisionMode, tuple[Rule, Rule]] = {
    _M.ADAPTIVE_TIME_MICROSECONDS: ((TIMESTAMP_MS, _ms), (MICRO_TIMESTAMP, _same)),
    _M.CONNECT: ((CONNECT_TIMESTAMP, _ms), (CONNECT_TIMESTAMP, _ms)),
    _M.MICROSECONDS: ((MICRO_TIMESTAMP, _same), (MICRO_TIMESTAMP, _same)),
    _M.NANOSECONDS: ((NANO_TIMESTAMP, _ns), (NANO_TIMESTAMP, _ns)),
    _M.ISOSTRING: ((ISO_TIMESTAMP, _iso_timestamp), (ISO_TIMESTAMP, _iso_timestamp)),
}
_DATE_RULES: dict[TimePrecisionMode, Rule] = {
    _M.CONNECT: (CONNECT_DATE, _same),
    _M.ISOSTRING: (ISO_DATE, _iso_date),
}


def _rule(table: dict, column: Column, settings: ValueSettings) -> Rule:
    rules = table.get(settings.time_precision_mode)
    if rules is None:
        raise UnsupportedColumnType(f"time.precision.mode={settings.time_precision_mode.value} is not supported yet")
    fsp = column.length or 0
    return rules[0] if fsp <= 3 else rules[1]


def _opt(fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda value: None if value is None else fn(value)


def _is_now(expr: str) -> bool:
    text = expr.strip().upper()
    return text.startswith("CURRENT_TIMESTAMP") or text.startswith("NOW(") or text.startswith("LOCALTIME")


def _text_default(parse: Callable[[str], Any]) -> Callable[[str, Column], Any]:
    def default(expr: str, column: Column) -> Any:
        text = expr.strip().strip("'")
        if not text or text.upper() == "NULL" or _is_now(text):
            return None
        return parse(text)

    return default


# ---------------------------------------------------------------- families
def date(column: Column, settings: ValueSettings) -> Kind:
    schema, scale = _DATE_RULES.get(settings.time_precision_mode, (DATE, _same))
    adjust = settings.enable_time_adjuster

    def from_text(text: str) -> Any:
        days = _days_from_text(text, adjust)
        return None if days is None else scale(days)

    def default(expr: str, col: Column) -> Any:
        text = expr.strip().strip("'")
        if not text or text.upper() == "NULL" or _is_now(text):
            return None
        # BinlogDefaultValueConverter.convertToLocalDate: a zero or unparseable date → null when
        # nullable, else the epoch (reference run types-extra: DATE NOT NULL DEFAULT '0000-00-00' → 0)
        value = from_text(text) if text != "0" else None
        return value if value is not None or col.optional else scale(0)

    snapshot = from_text
    if settings.time_precision_mode is _M.ADAPTIVE_TIME_MICROSECONDS:  # epoch days as they are: the fast form
        snapshot = fast_date(from_text, lambda text: _days_from_text(text, adjust))
    return Kind(schema, lambda v: scale(_days_from_date(v, adjust)), snapshot, default, fallback=scale(0))


def time(column: Column, settings: ValueSettings) -> Kind:
    schema, scale = _rule(_TIME_RULES, column, settings)
    binlog_us = _time_us_from_b6_binlog if settings.binlog_negative_time_fraction_complemented else _time_us
    return Kind(
        schema,
        lambda v: scale(binlog_us(v)),
        lambda v: scale(_time_us_from_text(v)),
        _text_default(lambda t: scale(_time_default_us(t))),
        fallback=scale(0),
    )


def datetime_(column: Column, settings: ValueSettings) -> Kind:
    schema, scale = _rule(_DATETIME_RULES, column, settings)
    adjust = settings.enable_time_adjuster

    def from_text(text: str) -> Any:
        us = _datetime_us_from_text(text, adjust)
        return None if us is None else scale(us)

    def default(expr: str, col: Column) -> Any:
        text = expr.strip().strip("'")
        if _is_now(text):  # MySqlDefaultValueConverter: CURRENT_TIMESTAMP → epoch for NOT NULL
            return None if col.optional else scale(0)
        if not text or text.upper() == "NULL":
            return None
        # convertToLocalDateTime: a zero or unparseable value → null when nullable, else the epoch
        value = from_text(text) if text != "0" else None
        return value if value is not None or col.optional else scale(0)

    def from_snapshot(text: str) -> Any:
        return from_text(_jdbc_year_zero(text))

    snapshot = from_snapshot
    if settings.time_precision_mode is _M.ADAPTIVE_TIME_MICROSECONDS:  # ms or µs: the fast form
        snapshot = fast_datetime(from_snapshot, lambda text: _days_from_text(_jdbc_year_zero(text), adjust),
                                 micros=scale is _same)
    # `_datetime_us` adjusts only years below 100: from 100 on, from_binlog is `scale` of the epoch microseconds
    return Kind(schema, lambda v: scale(_datetime_us(v, adjust)), snapshot, default, fallback=scale(0),
                from_epoch_us=scale)


def timestamp(column: Column, settings: ValueSettings) -> Kind:
    fsp = column.length or 0

    def from_text(text: str) -> str | None:
        us = _datetime_us_from_text(text)
        return None if us is None else _iso_utc(us)

    def from_binlog(value: _dt.datetime) -> str | None:
        if value.year < 100:  # the two-digit-year adjuster applies: the general path
            us = _datetime_us(value)
            return None if us == 0 else _iso_utc(us, fsp)
        # python-mysql-replication B9: a zero TIMESTAMP arrives as the epoch, which no real
        # TIMESTAMP can be (the minimum is 00:00:01); Debezium emits null for it.
        if value == _EPOCH_NAIVE:
            return None
        # `_iso_utc(_datetime_us(value), fsp)` without the round trip through microseconds (one value per
        # TIMESTAMP column of every streamed row), by the C `isoformat` of the naive UTC value. Streaming keeps
        # exactly fsp fraction digits, the snapshot (JDBC) path drops trailing zeros (reference runs:
        # `…06.789000Z` streamed vs `…06.789Z` snapshotted).
        if fsp:
            return value.isoformat(timespec="microseconds")[:20 + fsp] + "Z"
        if value.microsecond:
            return value.isoformat().rstrip("0") + "Z"
        return value.isoformat() + "Z"

    def default(expr: str, col: Column) -> Any:
        # BinlogDefaultValueConverter.convertToTimestamp: zero/epoch → null when nullable, else epoch
        text = expr.strip().strip("'")
        if _is_now(text) or text.startswith("0000-00-00") or text in ("0", "1970-01-01 00:00:00"):
            return None if col.optional else _iso_utc(0)
        if not text or text.upper() == "NULL":
            return None
        us = _datetime_us_from_text(text, adjust=False)
        return None if us is None else _iso_utc(us, fsp)

    return Kind(ZONED_TIMESTAMP, from_binlog, fast_timestamp(from_text), default, fallback=_iso_utc(0))


def year(column: Column, settings: ValueSettings) -> Kind:
    # Snapshot: the JDBC driver itself reads a 2-digit YEAR (YEAR(2), and YEAR 0) with the two-digit-year
    # rule (69 → 2069, 70 → 1970, 0 → 2000), whatever enable.time.adjuster says; defaults ('69', '00',
    # '0000') get the same rule. Streaming keeps what the binlog decoder gives (YEAR 0 → 1900 in both
    # mysql-binlog-connector-java and python-mysql-replication). Reference runs types-mariadb(-noadjust).
    def from_snapshot(value: Any) -> int:
        year_ = int(value)
        return _adjust_year(year_) if year_ < 100 else year_

    return Kind(YEAR, None, from_snapshot, _text_default(from_snapshot))
