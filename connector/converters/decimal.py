"""DECIMAL/NUMERIC columns under `decimal.handling.mode` (precise → Connect Decimal, double, string)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from connector.config.modes import DecimalHandlingMode
from connector.converters.base import Kind, ValueSettings, numeric_default_text
from connector.serde.connect_schema import DECIMAL_NAME, ConnectSchema, Type
from schema_history.model import Column


def _plain(value: Any) -> str:
    # BigDecimal.toPlainString(): no exponent, keeps the column scale
    return format(Decimal(value), "f")


def _parse(expr: str) -> Decimal | None:
    text = numeric_default_text(expr)
    return None if text is None else Decimal(text)


def decimal(column: Column, settings: ValueSettings) -> Kind:
    scale = column.scale or 0
    if settings.decimal_mode is DecimalHandlingMode.DOUBLE:
        return Kind(ConnectSchema(Type.FLOAT64), float, float, lambda e, c: _opt(float, _parse(e)))
    if settings.decimal_mode is DecimalHandlingMode.STRING:
        quant = Decimal(1).scaleb(-scale)
        return Kind(ConnectSchema(Type.STRING), _plain, _plain,
                    lambda e, c: _opt(lambda d: _plain(d.quantize(quant)), _parse(e)))
    params: tuple[tuple[str, str], ...] = (("scale", str(scale)),)
    if column.length is not None:
        params += (("connect.decimal.precision", str(column.length)),)
    schema = ConnectSchema(Type.BYTES, name=DECIMAL_NAME, version=1, parameters=params)
    # the JSON writer rescales to the schema's scale, so binlog/snapshot Decimals pass through
    return Kind(schema, None, None, lambda e, c: _parse(e))


def _opt(fn: Any, value: Any) -> Any:
    return None if value is None else fn(value)
