"""Debezium's `TimezoneConverter`: the time-based fields of a change event's `before`/`after` (and, when a
rule names them, `source`) rewritten for `converted.timezone`.

As Debezium 3.6's, which the goldens `xform_tz*` pin down:
* only Envelope values are touched; the offset applied is the zone's offset at the value's UTC wall time read as
  a local time (`ZoneRules.getOffset(LocalDateTime)`: in a gap or an overlap, the offset before the transition);
* ZonedTimestamp keeps its instant and is re-printed as ISO_OFFSET_DATE_TIME (fraction without trailing zeros,
  `Z` for a zero offset); Timestamp/MicroTimestamp/NanoTimestamp/Connect Timestamp keep their wall time, so the
  number moves by the offset; ZonedTime uses the offset of *now* (Debezium reads the clock);
* a null field with a default is read as its default (`Struct.get`) and the converted default written back;
* rules: `source:<table>[:<field>]`, `topic:<topic>[:<field>]`, `<table-or-topic>:<field>`; a prefix carries
  over to the following unprefixed rules, and only lower-case `source`/`topic` select their map (Debezium
  compares the prefix case-insensitively when parsing but case-sensitively when filing it).
"""

from __future__ import annotations

import datetime as dt
import logging
import re
import zoneinfo
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from connector.events.kinds import ConnectRecord
from connector.serde.connect_schema import ConnectSchema
from connector.transforms.structs import PerSchema, as_row, field_index, with_value

__all__ = ["Rules", "TimezoneConverter", "parse_zone"]

log = logging.getLogger(__name__)

_ZONED_TS, _ZONED_TIME = "io.debezium.time.ZonedTimestamp", "io.debezium.time.ZonedTime"
_SCALES = {"io.debezium.time.Timestamp": 1000, "org.apache.kafka.connect.data.Timestamp": 1000,
           "io.debezium.time.MicroTimestamp": 1_000_000, "io.debezium.time.NanoTimestamp": 1_000_000_000}
_UNSUPPORTED = frozenset({"io.debezium.time.Date", "io.debezium.time.MicroTime", "io.debezium.time.NanoTime",
                          "io.debezium.time.Time", "org.apache.kafka.connect.data.Date",
                          "org.apache.kafka.connect.data.Time"})
_OFFSET = re.compile(r"[+-]\d{2}:\d{2}(:\d{2})?")
# Debezium validates the list's Java toString ("[a, b]") with this expression (its LIST_PATTERN)
_LIST = re.compile(r"\[(source|topic|[\".\w\s_]+):([\".\w\s_]+(?::[\".\w\s_]+)?(?:,|]$))+")
_ISO_TS = re.compile(r"(-?\d{4,})-(\d\d)-(\d\d)T(\d\d):(\d\d)(?::(\d\d)(?:\.(\d{1,9}))?)?(Z|[+-]\d\d:\d\d(?::\d\d)?)")
_ISO_TIME = re.compile(r"(\d\d):(\d\d)(?::(\d\d)(?:\.(\d{1,9}))?)?(Z|[+-]\d\d:\d\d(?::\d\d)?)")
_EPOCH = dt.datetime(1970, 1, 1)
Zone = dt.tzinfo


def parse_zone(text: str) -> Zone:
    """`converted.timezone` as a tzinfo; refused when Debezium would refuse it, or fail on every record."""
    if _OFFSET.fullmatch(text):
        sign = -1 if text[0] == "-" else 1
        parts = [int(p) for p in text[1:].split(":")]
        seconds = parts[0] * 3600 + parts[1] * 60 + (parts[2] if len(parts) > 2 else 0)
        if parts[1] > 59 or (len(parts) > 2 and parts[2] > 59) or seconds > 18 * 3600:
            raise ValueError(f"converted.timezone={text!r}: the offset is out of range (-18:00 to +18:00)")
        return dt.timezone(dt.timedelta(seconds=sign * seconds))
    if text and text not in ("localtime", "posixrules", "Factory") and "." not in text.split("/")[0]:
        try:
            return zoneinfo.ZoneInfo(text)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            pass
    raise ValueError(f"converted.timezone={text!r}: Invalid timezone format. Please specify either a geographic "
                     "timezone (e.g. America/Los_Angeles) or a UTC offset in the format of +/-hh:mm, (e.g. +08:00).")


@dataclass
class Rules:
    """An include or exclude list filed as Debezium files it: topic rules, table rules, unprefixed rules."""

    topics: dict[str, set[str]] = field(default_factory=dict)
    tables: dict[str, set[str]] = field(default_factory=dict)
    bare: dict[str, set[str]] = field(default_factory=dict)

    @classmethod
    def parse(cls, name: str, items: Sequence[str]) -> Rules:
        if not _LIST.fullmatch("[" + ", ".join(items) + "]"):
            raise ValueError(f"{name}: Invalid {name.split('.')[0]} list format. Please specify a list of rules in the "
                             'format of "source:<tablename>:<fieldnames>", "topic:<topicname>:<fieldnames>", '
                             '"<matchname>:<fieldnames>"')
        rules = cls()
        prefix: str | None = None
        for item in items:
            parts = item.split(":")
            while parts and not parts[-1]:  # Java's split drops trailing empty strings
                parts.pop()
            match, fld, own = None, None, None
            if len(parts) == 1:
                match = parts[0]
            elif len(parts) in (2, 3):
                if parts[0].lower() in ("source", "topic"):
                    own, match = parts[0], parts[1]
                    fld = parts[2] if len(parts) == 3 else None
                else:
                    match, fld = parts[0], parts[1]
            prefix = own if own is not None else prefix
            target = rules.topics if prefix == "topic" else rules.tables if prefix == "source" else rules.bare
            names = target.setdefault(match, set())  # type: ignore[arg-type]
            if fld is not None:
                names.add(fld)
        return rules

    def lookup(self, table: str | None, topic: str) -> tuple[str | None, set[str]]:
        for names, key in ((self.topics, topic), (self.tables, table), (self.bare, topic), (self.bare, table)):
            if key in names:
                return key, names[key]
        return None, set()


def _offset(zone: Zone, wall: dt.datetime) -> int:
    """Seconds east of UTC at a local wall time; fold=0 is the offset before a transition, as Java's."""
    off = wall.replace(tzinfo=zone).utcoffset()
    assert off is not None
    return int(off.total_seconds())


def _offset_id(seconds: int) -> str:
    if seconds == 0:
        return "Z"
    sign = "-" if seconds < 0 else "+"
    h, rest = divmod(abs(seconds), 3600)
    m, s = divmod(rest, 60)
    return f"{sign}{h:02d}:{m:02d}" + (f":{s:02d}" if s else "")


def _fraction(digits: str) -> str:
    digits = digits.rstrip("0")
    return "." + digits if digits else ""


def _parse_offset(text: str) -> int:
    if text == "Z":
        return 0
    parts = [int(p) for p in text[1:].split(":")]
    seconds = parts[0] * 3600 + parts[1] * 60 + (parts[2] if len(parts) > 2 else 0)
    return -seconds if text[0] == "-" else seconds


def _year(year: int) -> str:
    if year > 9999:
        return f"+{year}"
    return f"-{-year:04d}" if year < 0 else f"{year:04d}"


class TimezoneConverter:
    def __init__(self, zone: Zone, include: Rules | None, exclude: Rules | None,
                 now: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.timezone.utc)) -> None:
        self._zone, self._include, self._exclude, self._now = zone, include, exclude, now
        self._plans = PerSchema(self._plan)
        self._warned: set[tuple[str, str]] = set()

    @staticmethod
    def _plan(schema: ConnectSchema | None) -> tuple[int | None, int | None, int | None] | None:
        if schema is None or not schema.name or not schema.name.endswith(".Envelope"):
            return None
        return field_index(schema, "before"), field_index(schema, "after"), field_index(schema, "source")

    # ---------------------------------------------------------------- values
    def _zoned_timestamp(self, text: str) -> str:
        m = _ISO_TS.fullmatch(text)
        if m is None:
            raise ValueError(f"TimezoneConverter: {text!r} is not an ISO offset date-time")
        year, month, day, hour, minute = (int(g) for g in m.groups()[:5])
        second, digits, src = int(m.group(6) or 0), m.group(7) or "", _parse_offset(m.group(8))
        local = dt.datetime(year, month, day, hour, minute, second)
        target = _offset(self._zone, local)
        moved = local + dt.timedelta(seconds=target - src)
        return (f"{_year(moved.year)}-{moved.month:02d}-{moved.day:02d}T{moved.hour:02d}:{moved.minute:02d}:"
                f"{moved.second:02d}{_fraction(digits)}{_offset_id(target)}")

    def _zoned_time(self, text: str) -> str:
        m = _ISO_TIME.fullmatch(text)
        if m is None:
            raise ValueError(f"TimezoneConverter: {text!r} is not an ISO offset time")
        seconds = int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3) or 0)
        now = self._now()
        off = now.astimezone(self._zone).utcoffset()
        target = int(off.total_seconds()) if off is not None else 0
        seconds = (seconds - _parse_offset(m.group(5)) + target) % 86400
        return (f"{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}{_fraction(m.group(4) or '')}"
                f"{_offset_id(target)}")

    def _convert(self, name: str, value: Any) -> Any:
        try:
            return self._convert_value(name, value)
        except OverflowError:  # outside Python's datetime (years 1-9999): a record error, not a traceback
            raise ValueError(f"TimezoneConverter: {name} value {value!r} is outside the years 1-9999 binlog-cdc "
                             "converts") from None

    def _convert_value(self, name: str, value: Any) -> Any:
        if name == _ZONED_TS:
            return self._zoned_timestamp(value)
        if name == _ZONED_TIME:
            return self._zoned_time(value)
        scale = _SCALES[name]
        wall = _EPOCH + dt.timedelta(seconds=value // scale)
        return value - _offset(self._zone, wall) * scale

    def _row(self, schema: ConnectSchema, row: Any, mode: str, names: set[str]) -> Any:
        values = list(as_row(schema, row))
        for i, f in enumerate(schema.fields):
            logical = f.schema.name
            if logical is None:
                continue
            wanted = mode == "all" or (mode == "include") == (f.name in names)
            if not wanted:
                continue
            if logical in _UNSUPPORTED:
                if (logical, f.name) not in self._warned:  # Debezium warns per record; once is enough to notice
                    self._warned.add((logical, f.name))
                    log.warning("TimezoneConverter: skipping conversion for unsupported logical type %s for field %s",
                                logical, f.name)
                continue
            if logical not in _SCALES and logical not in (_ZONED_TS, _ZONED_TIME):
                continue
            value = values[i]
            if value is None and f.schema.has_default:
                value = f.schema.default
            if value is not None:
                values[i] = self._convert(logical, value)
        return values

    def _structs(self, schema: ConnectSchema, envelope: list[Any], plan: tuple[int | None, ...], mode: str,
                 fields: set[str]) -> None:
        before_i, after_i, source_i = plan
        parts: dict[str, set[str]] = {"before": set(), "after": set(), "source": set()}
        for name in fields:
            head, dot, rest = name.partition(".")
            if dot and head in parts:
                parts[head].add(rest)
            else:
                parts["before"].add(name)
                parts["after"].add(name)
        for part, index in (("before", before_i), ("after", after_i), ("source", source_i)):
            if index is None or envelope[index] is None or (part == "source" and not parts["source"]):
                continue
            envelope[index] = self._row(schema.fields[index].schema, envelope[index], mode, parts[part])

    def apply(self, record: ConnectRecord) -> ConnectRecord | None:
        if record.value is None:
            return record
        plan = self._plans(record.value_schema)
        if plan is None:
            return record
        schema = record.value_schema
        assert schema is not None
        envelope = list(as_row(schema, record.value))
        table = None
        if plan[2] is not None and envelope[plan[2]] is not None:
            source_schema = schema.fields[plan[2]].schema
            at = field_index(source_schema, "table")
            table = as_row(source_schema, envelope[plan[2]])[at] if at is not None else None
        if self._include is not None:
            match, fields = self._include.lookup(table, record.topic)
            if match is None:
                return record
            self._structs(schema, envelope, plan, "include" if fields else "all", fields)
        elif self._exclude is not None:
            match, fields = self._exclude.lookup(table, record.topic)
            if match is None:
                self._structs(schema, envelope, plan, "all", set())
            elif fields:
                self._structs(schema, envelope, plan, "exclude", fields)
            else:
                return record
        else:
            self._structs(schema, envelope, plan, "all", set())
        return with_value(record, schema, envelope)
