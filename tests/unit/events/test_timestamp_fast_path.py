"""Streamed TIMESTAMP values are formatted straight from the datetime; the result is the general path's
`_iso_utc(_datetime_us(value), fsp)` for every precision, before and after the epoch."""
from __future__ import annotations

import datetime as dt
import random

import pytest

from connector.converters import temporal


@pytest.mark.parametrize("fsp", range(7))
def test_direct_format_equals_the_microsecond_round_trip(fsp: int) -> None:
    column = type("Col", (), {"length": fsp})()
    from_binlog = temporal.timestamp(column, None).from_binlog
    rng = random.Random(fsp)
    for _ in range(5000):
        value = dt.datetime(1970, 1, 1) + dt.timedelta(
            seconds=rng.randint(-10**10, 2**32), microseconds=rng.choice([0, 10, 500000, rng.randrange(10**6)]))
        us = temporal._datetime_us(value)
        assert from_binlog(value) == (None if us == 0 else temporal._iso_utc(us, fsp))
    assert from_binlog(dt.datetime(1970, 1, 1)) is None  # pmr's zero TIMESTAMP (B9)
    assert from_binlog(dt.datetime(2024, 2, 3, 10, 0, 0, 789000)) == (
        "2024-02-03T10:00:00" + ("." + "789000"[:fsp] if fsp else ".789") + "Z")
