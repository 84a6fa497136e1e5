"""Kafka Connect's `TimestampConverter$Key|$Value`: one field (or the whole key/value) from a unix number
(any INT64 without a logical name: Debezium's Timestamp/MicroTimestamp/NanoTimestamp), a string (parsed with
`format`, see `date_parse`) or a Connect Timestamp/Date/Time to `string` (a SimpleDateFormat `format`, UTC),
`unix` (`unix.precision`), `Timestamp`, `Date` or `Time`.

As Kafka 4.3's: `unix.precision` applies to unix input and output alike; a converted field gets the
target's plain schema (optionality kept, default dropped); the other fields are read with `Struct.get`
(`replace.null.with.default`). Not implemented, refused at start: SimpleDateFormat letters beyond y M d H h k
K m s S E a z Z X; refused at the record: instants before the Gregorian cutover (1582-10-15), where Java's
calendar is Julian, and text the pattern does not match (Kafka stops the task there too).
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Callable

from connector.events.kinds import ConnectRecord
from connector.serde.connect_schema import ConnectSchema, Field, Type
from connector.transforms.date_parse import ParseError
from connector.transforms.fields import Side
from connector.transforms.structs import PerSchema, as_row, with_default_for_null

__all__ = ["TARGETS", "TimestampConverter", "compile_format"]

_TS, _DATE, _TIME = ("org.apache.kafka.connect.data.Timestamp", "org.apache.kafka.connect.data.Date",
                     "org.apache.kafka.connect.data.Time")
TARGETS = ("string", "unix", "Timestamp", "Date", "Time")
_PRECISION = {"seconds": 1000, "milliseconds": 1, "microseconds": -1000, "nanoseconds": -1_000_000}
_DAY_MS = 86_400_000
_CUTOVER_MS = -12_219_292_800_000  # 1582-10-15T00:00Z: before it GregorianCalendar counts Julian days
_EPOCH = dt.datetime(1970, 1, 1)
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")
_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")

Formatter = Callable[[dt.datetime], str]


def _pad(n: int, width: int) -> str:
    return str(n).zfill(width)


def _letter(ch: str, count: int) -> Formatter:
    if ch == "y":
        return (lambda t: _pad(t.year % 100, 2)) if count == 2 else (lambda t: _pad(t.year, count))
    if ch == "M":
        if count >= 4:
            return lambda t: _MONTHS[t.month - 1]
        if count == 3:
            return lambda t: _MONTHS[t.month - 1][:3]
        return lambda t: _pad(t.month, count)
    if ch == "E":
        return (lambda t: _DAYS[t.weekday()]) if count >= 4 else (lambda t: _DAYS[t.weekday()][:3])
    simple: dict[str, Callable[[dt.datetime], int]] = {
        "d": lambda t: t.day, "H": lambda t: t.hour, "m": lambda t: t.minute, "s": lambda t: t.second,
        "S": lambda t: t.microsecond // 1000, "h": lambda t: t.hour % 12 or 12, "k": lambda t: t.hour or 24,
        "K": lambda t: t.hour % 12}
    if ch in simple:
        get = simple[ch]
        return lambda t: _pad(get(t), count)
    if ch == "a":
        return lambda t: "AM" if t.hour < 12 else "PM"
    if ch == "z":
        return lambda t: "Coordinated Universal Time" if count >= 4 else "UTC"
    if ch == "Z":
        return lambda t: "+0000"
    if ch == "X":
        return lambda t: "Z"
    raise ValueError(f"format: the SimpleDateFormat letter {ch!r} is not implemented in binlog-cdc (y M d H h k K m "
                     "s S E a z Z X are)")


def compile_format(pattern: str) -> Formatter:
    """A SimpleDateFormat pattern as a function of a UTC datetime."""
    parts: list[Formatter] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "'":
            end = pattern.find("'", i + 1)
            if end == i + 1:  # '' is a quote
                parts.append(lambda t: "'")
                i += 2
                continue
            if end < 0:
                raise ValueError(f"format={pattern!r}: Unterminated quote")
            text = pattern[i + 1:end]
            parts.append(lambda t, text=text: text)
            i = end + 1
        elif ch.isascii() and ch.isalpha():
            j = i
            while j < len(pattern) and pattern[j] == ch:
                j += 1
            parts.append(_letter(ch, j - i))
            i = j
        else:
            parts.append(lambda t, ch=ch: ch)
            i += 1
    return lambda t: "".join(p(t) for p in parts)


def _truncate(value: int, divisor: int) -> int:
    q = abs(value) // divisor  # TimeUnit conversions truncate toward zero
    return q if value >= 0 else -q


class TimestampConverter:
    def __init__(self, side: Side, field: str | None, target: str, formatter: Formatter | None, precision: str,
                 replace_null_with_default: bool = True, parser: Callable[[str], int] | None = None,
                 pattern: str = "", parse_error: str = "") -> None:
        self._side, self._field, self._target = side, field, target
        self._format, self._parser, self._pattern, self._parse_error = formatter, parser, pattern, parse_error
        self._scale = _PRECISION[precision]
        self._replace_null = replace_null_with_default
        self._plans = PerSchema(self._plan)

    def _target_schema(self, optional: bool) -> ConnectSchema:
        if self._target == "string":
            return ConnectSchema(Type.STRING, optional=optional)
        if self._target == "unix":
            return ConnectSchema(Type.INT64, optional=optional)
        name, kind = {"Timestamp": (_TS, Type.INT64), "Date": (_DATE, Type.INT32), "Time": (_TIME, Type.INT32)}[
            self._target]
        return ConnectSchema(kind, optional=optional, name=name, version=1)

    def _source(self, schema: ConnectSchema) -> str:
        if schema.name in (_TS, _DATE, _TIME):
            return schema.name.rsplit(".", 1)[1]
        if schema.type is Type.INT64:
            return "unix"
        if schema.type is Type.STRING:
            if self._parser is None:
                raise ValueError(f"TimestampConverter: a string field is parsed with `format`: "
                                 f"{self._parse_error or 'format is not set'}")
            return "string"
        raise ValueError(f"TimestampConverter: Schema {schema.type.value} ({schema.name}) does not correspond to a "
                         "known timestamp type format")

    def _plan(self, schema: ConnectSchema | None) -> tuple[ConnectSchema, int, str]:
        assert schema is not None
        if self._field is None:
            return self._target_schema(schema.optional), -1, self._source(schema)
        for i, f in enumerate(schema.fields):
            if f.name == self._field:
                fields = list(schema.fields)
                fields[i] = Field(f.name, self._target_schema(f.schema.optional))
                return (ConnectSchema(Type.STRUCT, optional=schema.optional, name=schema.name, version=schema.version,
                                      doc=schema.doc, parameters=schema.parameters, fields=tuple(fields)),
                        i, self._source(f.schema))
        raise ValueError(f"TimestampConverter: {schema.name} has no field {self._field!r}")

    def _to_ms(self, value: Any, source: str) -> int:
        if source == "string":
            assert self._parser is not None
            try:
                ms = self._parser(value)
            except ParseError:
                raise ValueError(f"Could not parse timestamp: value ({value}) does not match pattern "
                                 f"({self._pattern})") from None
            if ms < _CUTOVER_MS:
                raise ValueError(f"TimestampConverter: {value!r} is before the Gregorian cutover, where Java's "
                                 "calendar is Julian; binlog-cdc does not parse it")
            return ms
        value = int(value)
        if source == "Date":
            return value * _DAY_MS
        if source == "unix":
            return value * self._scale if self._scale > 0 else _truncate(value, -self._scale)
        return value  # Timestamp: epoch ms; Time: ms of the day on 1970-01-01

    def _convert(self, value: Any, source: str) -> Any:
        if value is None:
            return None
        ms = self._to_ms(value, source)
        if self._target == "Timestamp":
            return ms
        if self._target == "Date":
            return ms // _DAY_MS
        if self._target == "Time":
            return ms % _DAY_MS
        if self._target == "unix":
            return _truncate(ms, self._scale) if self._scale > 0 else ms * -self._scale
        if ms < _CUTOVER_MS:
            raise ValueError(f"TimestampConverter: {ms} ms is before the Gregorian cutover, where Java's calendar "
                             "is Julian; binlog-cdc does not format it")
        assert self._format is not None
        try:
            return self._format(_EPOCH + dt.timedelta(milliseconds=ms))
        except OverflowError:  # beyond year 9999: a record error, not a traceback
            raise ValueError(f"TimestampConverter: {ms} ms is after the year 9999; binlog-cdc does not format it") from None

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        schema, value = self._side.get(record)
        if schema is None and value is None and self._field is None:
            return record  # Kafka converts a schemaless null whole value to null
        if schema is None:
            raise ValueError(f"TimestampConverter needs a schema on {record.topic}; guard it with a predicate "
                             "(RecordIsTombstone, negate=true)")
        new_schema, index, source = self._plans(schema)
        if index < 0:
            return self._side.put(record, new_schema, self._convert(value, source))
        if value is None:
            return self._side.put(record, new_schema, None)
        row = as_row(schema, value)
        row = with_default_for_null(schema, row) if self._replace_null else list(row)
        row[index] = self._convert(row[index], source)
        return self._side.put(record, new_schema, row)
