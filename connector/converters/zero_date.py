"""Debezium's `ZeroDateFallbackConverter` values (rules: connector/config/custom_converters.py).

DATE → io.debezium.time.Date days, DATETIME → Timestamp ms (MicroTimestamp µs from DATETIME(4)), TIMESTAMP
→ ZonedTimestamp as `ISO_OFFSET_DATE_TIME` in UTC (fraction without trailing zeros). A null or zero date,
which the plain converters read as null, becomes the fallback, in nullable columns too. Debezium's quirk:
a column's DDL default is the fallback (the converter's first call is the default's, and it answers it
with the fallback), and the field is optional when the column is nullable or the fallback is NULL.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from typing import Any, Callable

from connector.config.modes import TimePrecisionMode
from connector.converters import temporal
from connector.converters.base import Kind, ValueSettings
from connector.serde.connect_schema import ConnectSchema, Type
from schema_history.model import Column

__all__ = ["zero_date_kind"]

_EPOCH = dt.datetime(1970, 1, 1)


def _iso(text: str) -> str:
    """A ZonedTimestamp string as ISO_OFFSET_DATE_TIME writes it: seconds always, fraction minimal."""
    head, _, frac = text.rstrip("Z").partition(".")
    frac = frac.rstrip("0")
    return head + ("." + frac if frac else "") + "Z"


def _fallback_value(kind: str, column: Column, text: str | None) -> Any:
    if text is None:
        return None
    if kind == "DATE":
        return (dt.date.fromisoformat(text) - _EPOCH.date()).days
    if kind == "DATETIME":
        delta = dt.datetime.fromisoformat(text) - _EPOCH
        us = (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
        return us if (column.length or 0) >= 4 else us // 1000
    return _iso(text)


def zero_date_kind(column: Column, settings: ValueSettings, kind: str, fallback_text: str | None) -> Kind:
    adaptive = replace(settings, time_precision_mode=TimePrecisionMode.ADAPTIVE_TIME_MICROSECONDS)
    base = {"DATE": temporal.date, "DATETIME": temporal.datetime_, "TIMESTAMP": temporal.timestamp}[kind](column,
                                                                                                        adaptive)
    fallback = _fallback_value(kind, column, fallback_text)
    post: Callable[[Any], Any] = _iso if kind == "TIMESTAMP" else (lambda v: v)

    def wrap(fn: Callable[[Any], Any] | None) -> Callable[[Any], Any]:
        def convert(value: Any) -> Any:
            out = value if fn is None else fn(value)
            return fallback if out is None else post(out)
        return convert

    if kind == "DATE":
        schema = ConnectSchema(Type.INT32, name="io.debezium.time.Date", version=1)
    elif kind == "DATETIME":
        micro = (column.length or 0) >= 4
        schema = ConnectSchema(Type.INT64, name="io.debezium.time.MicroTimestamp" if micro else
                               "io.debezium.time.Timestamp", version=1)
    else:
        schema = ConnectSchema(Type.STRING, name="io.debezium.time.ZonedTimestamp", version=1)
    return Kind(schema, wrap(base.from_binlog), wrap(base.from_snapshot), lambda expr, c: fallback, fallback=fallback)
