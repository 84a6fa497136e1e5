"""Epoch days → calendar fields, as Java computes them.

`civil_from_days` is java.time's proleptic Gregorian calendar (LocalDate.ofEpochDay; Howard Hinnant's
algorithm, year 0 included). `gregorian_calendar_fields` is java.util.GregorianCalendar's in UTC, which
Confluent's converters use: Julian before 1582-10-15 (the day before it is 1582-10-04) and era years (1 BC is
year 1 of era BC).
"""

from __future__ import annotations

__all__ = ["civil_from_days", "gregorian_calendar_fields"]

GREGORIAN_START_DAY = -141427  # 1582-10-15, GregorianCalendar's default cutover


def civil_from_days(days: int) -> tuple[int, int, int]:
    """(year, month, day) of an epoch day in the proleptic Gregorian calendar, year 0 included."""
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    month = mp + 3 if mp < 10 else mp - 9
    return yoe + era * 400 + (month <= 2), month, doy - (153 * mp + 2) // 5 + 1


def gregorian_calendar_fields(days: int) -> tuple[int, int, int]:
    """(YEAR, MONTH + 1, DAY_OF_MONTH) of java.util.GregorianCalendar in UTC at the epoch day's midnight."""
    if days >= GREGORIAN_START_DAY:
        year, month, day = civil_from_days(days)
    else:  # the Julian calendar, from the Julian day number
        c = days + 2440588 + 32082
        d = (4 * c + 3) // 1461
        e = c - 1461 * d // 4
        m = (5 * e + 2) // 153
        day, month, year = e - (153 * m + 2) // 5 + 1, m + 3 - 12 * (m // 10), d - 4800 + m // 10
    return (year if year > 0 else 1 - year), month, day
