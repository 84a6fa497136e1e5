"""Snapshot DATE/DATETIME/TIMESTAMP text: the fast forms (connector/converters/temporal_text.py) give what the
general path gives, value for value, errors included: zero dates, year 0 and 1, two-digit years with and without
the adjuster, 9999, leap days, invalid days, 0-6 fraction digits, before the epoch, and enough random months to
make the per-column memo start over."""
from __future__ import annotations

import random
from typing import Any, Callable

import pytest

from connector.config.modes import TimePrecisionMode
from connector.converters import temporal
from connector.converters.base import ValueSettings
from schema_history.model import Column

YEARS = ("0000", "0001", "0050", "0069", "0070", "0099", "0100", "0999", "1000", "1582", "1900", "1969", "1970",
         "2000", "2024", "2038", "2100", "9999")
MONTHS = tuple(f"{m:02d}" for m in range(13))
DAYS = ("00", "01", "15", "28", "29", "30", "31")
TIMES = ("00:00:00", "00:00:01", "12:34:56", "23:59:59")
FRACTIONS = ("0", "5", "000", "123", "120", "000000", "000001", "100000", "999999", "123450")


def _outcome(fn: Callable[[str], Any], text: str) -> tuple[str, Any]:
    try:
        return "value", fn(text)
    except Exception as exc:  # the general path's error must be the fast path's
        return "error", type(exc)


def _general_date(adjust: bool) -> Callable[[str], Any]:
    return lambda text: temporal._days_from_text(text, adjust)


def _general_datetime(adjust: bool, micros: bool) -> Callable[[str], Any]:
    def general(text: str) -> Any:
        us = temporal._datetime_us_from_text(temporal._jdbc_year_zero(text), adjust)
        return None if us is None else us if micros else us // 1000
    return general


def _general_timestamp(text: str) -> Any:
    us = temporal._datetime_us_from_text(text)
    return None if us is None else temporal._iso_utc(us)


def _stamp(date: str, time: str, fsp: int, fraction: str) -> str:
    return f"{date} {time}" + ("." + (fraction + "000000")[:fsp] if fsp else "")


def _dates(rng: random.Random) -> list[str]:
    edges = [f"{y}-{m}-{d}" for y in YEARS for m in MONTHS for d in DAYS]
    randoms = [f"{rng.randrange(10000):04d}-{rng.randrange(13):02d}-{rng.randrange(32):02d}" for _ in range(12000)]
    return edges + randoms + ["0000-00-00", "1969-12-31", "1970-01-01", "2024-02-29", "2023-02-29", "2000-02-29"]


def _stamps(rng: random.Random, fsp: int) -> list[str]:
    texts = [_stamp(d, t, fsp, f) for d in _dates(rng)[:1300] for t in TIMES[:2] for f in FRACTIONS[:2]]
    for date in _dates(rng):
        time = f"{rng.randrange(24):02d}:{rng.randrange(60):02d}:{rng.randrange(60):02d}"
        texts.append(_stamp(date, time, fsp, rng.choice(FRACTIONS)))
    return texts + [_stamp("0000-00-00", "00:00:00", fsp, "0"), _stamp("1969-12-31", "23:59:59", fsp, "999999")]


def _column(type_name: str, fsp: int | None = None) -> Column:
    return Column("c", 1, 93, type_name, type_name, length=fsp)


def _assert_same(fast: Callable[[str], Any], general: Callable[[str], Any], texts: list[str]) -> None:
    assert fast.__module__ == "connector.converters.temporal_text"  # the fast form is the one wired
    for text in texts:
        assert _outcome(fast, text) == _outcome(general, text), text


@pytest.mark.parametrize("adjust", [True, False])
def test_date(adjust: bool) -> None:
    fast = temporal.date(_column("DATE"), ValueSettings(enable_time_adjuster=adjust)).from_snapshot
    _assert_same(fast, _general_date(adjust), _dates(random.Random(1)) + ["2024-1-05", "2024-01-5", "20240105"])


@pytest.mark.parametrize("fsp", range(7))
@pytest.mark.parametrize("adjust", [True, False])
def test_datetime(fsp: int, adjust: bool) -> None:
    fast = temporal.datetime_(_column("DATETIME", fsp), ValueSettings(enable_time_adjuster=adjust)).from_snapshot
    texts = _stamps(random.Random(fsp), fsp) + ["2024-01-05 1:02:03", "2024-01-05 01:02:03.", "2024-01-05"]
    _assert_same(fast, _general_datetime(adjust, micros=fsp > 3), texts)


@pytest.mark.parametrize("fsp", range(7))
def test_timestamp(fsp: int) -> None:
    fast = temporal.timestamp(_column("TIMESTAMP", fsp), ValueSettings()).from_snapshot
    texts = _stamps(random.Random(100 + fsp), fsp) + ["2024-01-05 01:02:03.", "2024-01-05 01:02:03.1234567"]
    _assert_same(fast, _general_timestamp, texts)


def test_known_values() -> None:
    settings = ValueSettings()
    assert temporal.date(_column("DATE"), settings).from_snapshot("1969-12-31") == -1
    assert temporal.datetime_(_column("DATETIME", 6), settings).from_snapshot("1969-12-31 23:59:59.5") == -500000
    assert temporal.datetime_(_column("DATETIME", 3), settings).from_snapshot("2024-02-29 00:00:00.001") \
        == 1709164800001
    timestamp = temporal.timestamp(_column("TIMESTAMP", 6), settings).from_snapshot
    assert timestamp("2024-02-29 01:02:03.450000") == "2024-02-29T01:02:03.45Z"
    assert timestamp("2038-01-19 03:14:07.000000") == "2038-01-19T03:14:07Z"
    assert timestamp("0000-00-00 00:00:00.000000") is None


@pytest.mark.parametrize("mode", sorted(set(TimePrecisionMode) - {TimePrecisionMode.ADAPTIVE_TIME_MICROSECONDS}))
def test_other_precision_modes_keep_the_general_path(mode: TimePrecisionMode) -> None:
    settings = ValueSettings(time_precision_mode=mode)
    if mode in temporal._DATETIME_RULES:
        assert temporal.datetime_(_column("DATETIME", 6), settings).from_snapshot.__module__ == temporal.__name__
    assert temporal.date(_column("DATE"), settings).from_snapshot.__module__ == temporal.__name__
