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
from typing import Any, Callable

from connector.config.modes import TimePrecisionMode
from connector.converters.base import Kind, UnsupportedColumnType, ValueSettings
from connector.serde.connect_schema import ConnectSchema, Type
from schema_history.model import Column

_EPOCH_ORDINAL = _dt.date(1970, 1, 1).toordinal()
_US = 1_000_000


# ---------------------------------------------------------------- parsing the server's text
def _days_from_text(text: str) -> int | None:
    year, month, day = int(text[0:4]), int(text[5:7]), int(text[8:10])
    if month == 0 or day == 0:  # zero dates: JDBC's zeroDateTimeBehavior=CONVERT_TO_NULL
        return None
    return _dt.date(year, month, day).toordinal() - _EPOCH_ORDINAL


def _fraction_us(text: str) -> int:
    # ".123" → 123000 µs
    return int((text + "000000")[:6]) if text else 0


def _datetime_us_from_text(text: str) -> int | None:
    days = _days_from_text(text)
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


# ---------------------------------------------------------------- python-mysql-replication values
def _days_from_date(value: _dt.date) -> int:
    return value.toordinal() - _EPOCH_ORDINAL


def _datetime_us(value: _dt.datetime) -> int:
    return ((value.toordinal() - _EPOCH_ORDINAL) * 86400 + value.hour * 3600 + value.minute * 60
            + value.second) * _US + value.microsecond


def _time_us_from_binlog(value: _dt.timedelta) -> int:
    us = (value.days * 86400 + value.seconds) * _US + value.microseconds
    if us < 0:
        # python-mysql-replication B6: a negative TIME(n) with a fraction comes back with the
        # fraction complemented (-01:02:03.456 → -01:02:03.544); undo it.
        magnitude = -us
        frac = magnitude % _US
        if frac:
            us = -((magnitude - frac) + (_US - frac))
    return us


def _iso_utc(us: int, fsp: int) -> str:
    seconds, frac = divmod(us, _US)
    stamp = _dt.datetime(1970, 1, 1) + _dt.timedelta(seconds=seconds)
    text = f"{stamp.year:04d}-{stamp.month:02d}-{stamp.day:02d}T{stamp.hour:02d}:{stamp.minute:02d}:{stamp.second:02d}"
    if fsp > 0:
        text += "." + f"{frac:06d}"[:fsp]
    elif frac:  # ISO_OFFSET_DATE_TIME prints a non-zero fraction without trailing zeros
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

Scale = Callable[[int], int]  # µs → target unit


def _ms(us: int) -> int:
    return us // 1000


def _ns(us: int) -> int:
    return us * 1000


def _same(us: int) -> int:
    return us


_M = TimePrecisionMode
# mode → (fsp ≤ 3 schema, unit), (fsp > 3 schema, unit) for TIME and DATETIME
_TIME_RULES: dict[TimePrecisionMode, tuple[tuple[ConnectSchema, Scale], tuple[ConnectSchema, Scale]]] = {
    _M.ADAPTIVE_TIME_MICROSECONDS: ((MICRO_TIME, _same), (MICRO_TIME, _same)),
    _M.ADAPTIVE: ((TIME_MS, _ms), (MICRO_TIME, _same)),
    _M.CONNECT: ((CONNECT_TIME, _ms), (CONNECT_TIME, _ms)),
    _M.MICROSECONDS: ((MICRO_TIME, _same), (MICRO_TIME, _same)),
    _M.NANOSECONDS: ((NANO_TIME, _ns), (NANO_TIME, _ns)),
}
_DATETIME_RULES: dict[TimePrecisionMode, tuple[tuple[ConnectSchema, Scale], tuple[ConnectSchema, Scale]]] = {
    _M.ADAPTIVE_TIME_MICROSECONDS: ((TIMESTAMP_MS, _ms), (MICRO_TIMESTAMP, _same)),
    _M.ADAPTIVE: ((TIMESTAMP_MS, _ms), (MICRO_TIMESTAMP, _same)),
    _M.CONNECT: ((CONNECT_TIMESTAMP, _ms), (CONNECT_TIMESTAMP, _ms)),
    _M.MICROSECONDS: ((MICRO_TIMESTAMP, _same), (MICRO_TIMESTAMP, _same)),
    _M.NANOSECONDS: ((NANO_TIMESTAMP, _ns), (NANO_TIMESTAMP, _ns)),
}


def _rule(table: dict, column: Column, settings: ValueSettings) -> tuple[ConnectSchema, Scale]:
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
    schema = CONNECT_DATE if settings.time_precision_mode is _M.CONNECT else DATE
    return Kind(schema, _days_from_date, _days_from_text, _text_default(_days_from_text))


def time(column: Column, settings: ValueSettings) -> Kind:
    schema, scale = _rule(_TIME_RULES, column, settings)
    return Kind(
        schema,
        lambda v: scale(_time_us_from_binlog(v)),
        lambda v: scale(_time_us_from_text(v)),
        _text_default(lambda t: scale(_time_us_from_text(t))),
    )


def datetime_(column: Column, settings: ValueSettings) -> Kind:
    schema, scale = _rule(_DATETIME_RULES, column, settings)

    def from_text(text: str) -> int | None:
        us = _datetime_us_from_text(text)
        return None if us is None else scale(us)

    def default(expr: str, col: Column) -> Any:
        text = expr.strip().strip("'")
        if _is_now(text):  # MySqlDefaultValueConverter: CURRENT_TIMESTAMP → epoch for NOT NULL
            return None if col.optional else 0
        return None if not text or text.upper() == "NULL" else from_text(text)

    return Kind(schema, lambda v: scale(_datetime_us(v)), from_text, default)


def timestamp(column: Column, settings: ValueSettings) -> Kind:
    fsp = column.length or 0

    def from_text(text: str) -> str | None:
        us = _datetime_us_from_text(text)
        return None if us is None else _iso_utc(us, fsp)

    def default(expr: str, col: Column) -> Any:
        text = expr.strip().strip("'")
        if _is_now(text) or text.startswith("0000-00-00"):
            return None if col.optional else _iso_utc(0, fsp)
        return None if not text or text.upper() == "NULL" else from_text(text)

    return Kind(ZONED_TIMESTAMP, lambda v: _iso_utc(_datetime_us(v), fsp), from_text, default)


def _year_value(value: Any) -> int:
    return int(value)


def year(column: Column, settings: ValueSettings) -> Kind:
    return Kind(YEAR, None, _year_value, _text_default(lambda t: int(t)))
