"""The snapshot's DATE, DATETIME and TIMESTAMP text to Connect values by slicing and integer arithmetic.

The general path (temporal.py) parses every value into its fields, computes the days from the civil date
and, for TIMESTAMP, formats the result back through a `datetime`: ~6 µs per value, the largest part of a
snapshot row's conversion. These fast forms do per value only what changes within a month: the day digits,
the time digits and the fraction. What a 'YYYY-MM' prefix means is asked of the general path itself, once per
prefix and column, and kept in a small bounded memo; a prefix the general path gives no plain answer for
(zero months, the JDBC year-0 rule's edge, years the ISO form cannot copy) and any text not of the server's
shape send the whole value to the general path, so the values are the general path's, by construction
(tests/unit/events/test_temporal_text.py compares both on edge cases and random values).

They assume the server's text for these types: 'YYYY-MM-DD' and 'YYYY-MM-DD HH:MM:SS[.f…]' with 0-6 fraction
digits and a valid time of day, which the snapshot session (time_zone='+00:00', no temporal decoders in
`snapshot_conv`) always gets.
"""

from __future__ import annotations

from typing import Any, Callable

__all__ = ["fast_date", "fast_datetime", "fast_timestamp"]

TextFn = Callable[[str], Any]

# len(text) of 'YYYY-MM-DD HH:MM:SS[.f…]' → what the fraction digits are multiplied by to get µs (19: none)
_FRACTION_SCALE = {19: 0, 21: 100_000, 22: 10_000, 23: 1_000, 24: 100, 25: 10, 26: 1}
_US = 1_000_000
# a column's memo holds at most this many months (a few hundred for real data); past it, it starts over
_MONTHS_KEPT = 4096
_MISSING = object()
_TWO_DIGITS = {f"{n:02d}": n for n in range(100)}  # a dict look-up is about half of int()'s cost


class _Months:
    """`answer(month)` remembered per 'YYYY-MM' in `known` (read directly by the converters: a method call per
    value would cost as much as the arithmetic it saves); an answer that raises is remembered as None (the
    general path then raises its own error for the value)."""

    def __init__(self, answer: Callable[[str], Any]) -> None:
        self.known: dict[str, Any] = {}
        self._answer = answer

    def learn(self, month: str) -> Any:
        try:
            value = self._answer(month)
        except (ValueError, OverflowError):
            value = None
        if len(self.known) >= _MONTHS_KEPT:
            self.known.clear()
        self.known[month] = value
        return value


def _month_base(days_of: Callable[[str], int | None]) -> Callable[[str], int | None]:
    """'YYYY-MM' → the epoch day before the month's first day, from the general path's days of its first
    day. Days from a civil date grow by one per day of the month whatever the day (an invalid '…-02-31' as
    well), so day d of the month is base + d; day 0 (a zero date) is left to the general path."""
    def base(month: str) -> int | None:
        first = days_of(month + "-01")
        return None if first is None else first - 1

    return base


def fast_date(general: TextFn, days_of: Callable[[str], int | None]) -> TextFn:
    """DATE text → epoch days (the Connect value unscaled); `days_of` is the general path's date text → days."""
    months = _Months(_month_base(days_of))
    known, learn, two = months.known, months.learn, _TWO_DIGITS

    def from_text(text: str) -> Any:
        base = known.get(text[:7], _MISSING)
        if base is _MISSING:
            base = learn(text[:7])
        if base is None or len(text) != 10 or text[8:10] == "00":
            return general(text)
        day = two.get(text[8:10])
        return general(text) if day is None else base + day

    return from_text


def fast_datetime(general: TextFn, days_of: Callable[[str], int | None], micros: bool) -> TextFn:
    """DATETIME text → epoch µs (`micros`) or ms, the wall clock read as UTC; `days_of` is the general path's
    date text → days (with its year-0 and two-digit-year rules)."""
    months = _Months(_month_base(days_of))
    known, learn, two, scale_of = months.known, months.learn, _TWO_DIGITS, _FRACTION_SCALE.get

    def from_text(text: str) -> Any:
        base = known.get(text[:7], _MISSING)
        if base is _MISSING:
            base = learn(text[:7])
        scale = scale_of(len(text))
        if base is None or scale is None or text[8:10] == "00":
            return general(text)
        try:
            seconds = (((base + two[text[8:10]]) * 24 + two[text[11:13]]) * 60 + two[text[14:16]]) * 60 \
                + two[text[17:19]]
        except KeyError:  # not two digits: the general path's error names the value
            return general(text)
        us = seconds * _US + int(text[20:]) * scale if scale else seconds * _US
        return us if micros else us // 1000

    return from_text


def _last_day(general: TextFn) -> Callable[[str], str | None]:
    """'YYYY-MM' → its last day as two digits when the general path's ISO text of every day 01..last of the
    month starts with the same date (so the date can be copied), else None."""
    def last(month: str) -> str | None:
        if general(month + "-01 00:00:00") != month + "-01T00:00:00Z":
            return None
        for day in ("31", "30", "29", "28"):
            stamp = f"{month}-{day}"
            if general(stamp + " 00:00:00") == stamp + "T00:00:00Z":
                return day
        return None

    return last


def fast_timestamp(general: TextFn) -> TextFn:
    """TIMESTAMP text of a UTC session → `ZonedTimestamp`'s ISO text as the snapshot writes it: the fraction
    only when non-zero, trailing zeros dropped (`…T01:02:03.45Z`)."""
    months = _Months(_last_day(general))
    known, learn, scale_of = months.known, months.learn, _FRACTION_SCALE.get

    def from_text(text: str) -> Any:
        last = known.get(text[:7], _MISSING)
        if last is _MISSING:
            last = learn(text[:7])
        if last is None or scale_of(len(text)) is None or not "01" <= text[8:10] <= last:
            return general(text)
        fraction = text[20:].rstrip("0")
        if fraction:
            return text[:10] + "T" + text[11:19] + "." + fraction + "Z"
        return text[:10] + "T" + text[11:19] + "Z"

    return from_text
