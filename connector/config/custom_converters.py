"""`converters=<name>,...` with `<name>.type=` Debezium's `TinyIntOneToBooleanConverter` (`selector`,
`length.checker`) or `JdbcSinkDataTypesConverter` (`selector.boolean`, `selector.real`,
`selector.string`, `treat.real.as.double`), checked at start into rules (the values:
connector/converters/tinyint_bool.py, jdbc_sink.py). Selectors are comma-separated regexes on
`db.table.column` (full match, case-insensitive). Other custom converters are refused by name.

TinyIntOneToBoolean takes a column when its type is TINYINT or TINYINT UNSIGNED, its length is 1 (unless
`length.checker=false`) and its selector matches (no selector: every column).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from schema_history.model import Column

__all__ = ["CONVERTER_TYPES", "JdbcSinkRule", "Rule", "TinyIntBooleanRule", "ZeroDateRule", "converter_target",
           "custom_converters"]

_BINLOG, _MYSQL = "io.debezium.connector.binlog.converters.", "io.debezium.connector.mysql.converters."
TINYINT = "TinyIntOneToBooleanConverter"
JDBC_SINK = "JdbcSinkDataTypesConverter"
ZERO_DATE = "ZeroDateFallbackConverter"
CONVERTER_TYPES = {p + c: c for p in (_BINLOG, _MYSQL) for c in (TINYINT, JDBC_SINK, ZERO_DATE)}
_OPTIONS = {TINYINT: ("selector", "length.checker"),
            JDBC_SINK: ("selector.boolean", "selector.real", "selector.string", "treat.real.as.double"),
            ZERO_DATE: ("target.types", "fallback.date", "fallback.datetime", "fallback.timestamp", "selector")}
_COLUMN_FALLBACK = re.compile(r"column\.(.+)\.fallback")
_REFUSED = ("only Debezium's TinyIntOneToBooleanConverter, JdbcSinkDataTypesConverter and ZeroDateFallbackConverter "
            "(io.debezium.connector.binlog.converters.*) are implemented; remove the converter")


@dataclass(frozen=True)
class TinyIntBooleanRule:
    selectors: tuple[re.Pattern[str], ...]  # empty: every column
    length_checker: bool = True

    def target(self, table: str, column: Column) -> str | None:
        if column.type_name.upper() not in ("TINYINT", "TINYINT UNSIGNED"):
            return None
        if self.length_checker and column.length != 1:
            return None
        qualified = f"{table}.{column.name}"
        return "tinyint_boolean" if not self.selectors or any(p.fullmatch(qualified) for p in self.selectors) else None

    def matches(self, table: str, column: Column) -> bool:
        return self.target(table, column) is not None


@dataclass(frozen=True)
class JdbcSinkRule:
    """Any column type a selector names (an empty selector names none), tried boolean, real, string."""

    boolean: tuple[re.Pattern[str], ...]
    real: tuple[re.Pattern[str], ...]
    string: tuple[re.Pattern[str], ...]
    real_as_double: bool = True

    def target(self, table: str, column: Column) -> str | None:
        qualified = f"{table}.{column.name}"
        for name, patterns in (("boolean", self.boolean), ("real", self.real), ("string", self.string)):
            if any(p.fullmatch(qualified) for p in patterns):
                return "real_double" if name == "real" and self.real_as_double else (
                    "real_float" if name == "real" else name)
        return None


@dataclass(frozen=True)
class ZeroDateRule:
    """DATE, DATETIME and TIMESTAMP columns (of `target.types`) the selector names: a null or zero date becomes
    the fallback (`fallback.date|datetime|timestamp`, or `column.<db>.<table>.<column>.fallback`)."""

    types: frozenset[str]
    fallbacks: tuple[tuple[str, str | None], ...]  # type → fallback text (None: NULL)
    columns: tuple[tuple[str, str], ...]  # db.table.column (as written) → fallback text
    selectors: tuple[re.Pattern[str], ...]

    def target(self, table: str, column: Column) -> str | None:
        kind = column.type_name.upper()
        if kind not in self.types:
            return None
        qualified = f"{table}.{column.name}"
        return f"zero_date:{kind}" if any(p.fullmatch(qualified) for p in self.selectors) else None

    def fallback_text(self, table: str, column: Column) -> str | None:
        qualified = f"{table}.{column.name}"
        for name, text in self.columns:
            if name == qualified:
                return None if text.strip().upper() in ("", "NULL") else text.strip()
        return dict(self.fallbacks).get(column.type_name.upper())


Rule = TinyIntBooleanRule | JdbcSinkRule | ZeroDateRule


def _selectors(raw: dict[str, str], key: str, problems: list[str]) -> tuple[re.Pattern[str], ...] | None:
    try:
        return tuple(re.compile(p.strip(), re.IGNORECASE) for p in (raw.get(key) or "").split(",") if p.strip())
    except re.error as exc:
        problems.append(f"{key}: not a regular expression ({exc})")
        return None


def _flag(raw: dict[str, str], key: str, default: str, problems: list[str]) -> bool | None:
    text = (raw.get(key) or default).strip().lower()
    if text not in ("true", "false"):
        # Boolean.parseBoolean takes anything else as false; a typo should not silently change columns
        problems.append(f"{key}={text!r} must be true or false")
        return None
    return text == "true"


def custom_converters(raw: dict[str, str], problems: list[str]) -> tuple[Rule, ...]:
    """`converters` and each `<name>.*`, checked; problems name the property and the fix."""
    names = [n.strip() for n in (raw.get("converters") or "").split(",") if n.strip()]
    rules: list[Rule] = []
    for name in names:
        kind = CONVERTER_TYPES.get((raw.get(f"{name}.type") or "").strip())
        if kind is None:
            given = (raw.get(f"{name}.type") or "").strip()
            problems.append(f"{name}.type={given!r}: " + (_REFUSED if given else f"required (converters lists {name})"))
            continue
        for key in raw:
            option = key[len(name) + 1:]
            if kind == ZERO_DATE and _COLUMN_FALLBACK.fullmatch(option):
                continue
            if key.startswith(name + ".") and option != "type" and option not in _OPTIONS[kind]:
                problems.append(f"{key}: not an option of {kind} (options: {', '.join(_OPTIONS[kind])}); remove it")
        if kind == TINYINT:
            checker = _flag(raw, f"{name}.length.checker", "true", problems)
            selectors = _selectors(raw, f"{name}.selector", problems)
            if checker is not None and selectors is not None:
                rules.append(TinyIntBooleanRule(selectors, checker))
            continue
        if kind == ZERO_DATE:
            rule = _zero_date(raw, name, problems)
            if rule is not None:
                rules.append(rule)
            continue
        picked = [_selectors(raw, f"{name}.selector.{t}", problems) for t in ("boolean", "real", "string")]
        as_double = _flag(raw, f"{name}.treat.real.as.double", "true", problems)
        if as_double is not None and all(p is not None for p in picked):
            rules.append(JdbcSinkRule(picked[0], picked[1], picked[2], as_double))  # type: ignore[arg-type]
    return tuple(rules)


def _zero_date(raw: dict[str, str], name: str, problems: list[str]) -> ZeroDateRule | None:
    types = frozenset(t.strip().upper() for t in (raw.get(f"{name}.target.types") or "DATE,DATETIME,TIMESTAMP").split(",")
                      if t.strip())
    selectors = _selectors(raw, f"{name}.selector", problems) if (raw.get(f"{name}.selector") or "").strip() else (
        re.compile(".*"),)
    fallbacks = []
    for kind, pattern in (("DATE", r"\d{4}-\d{2}-\d{2}"), ("DATETIME", r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}"),
                          ("TIMESTAMP", r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")):
        text = (raw.get(f"{name}.fallback.{kind.lower()}") or "").strip()
        if text.upper() in ("", "NULL"):
            fallbacks.append((kind, None))
        elif not re.fullmatch(pattern, text):
            problems.append(f"{name}.fallback.{kind.lower()}={text!r}: binlog-cdc takes "
                            f"{'yyyy-MM-dd' if kind == 'DATE' else 'yyyy-MM-dd HH:mm:ss' if kind == 'DATETIME' else 'yyyy-MM-ddTHH:mm:ssZ'}"
                            " or NULL")
            return None
        else:
            fallbacks.append((kind, text))
    columns = tuple((m.group(1), v) for k, v in raw.items()
                    if k.startswith(name + ".") and (m := _COLUMN_FALLBACK.fullmatch(k[len(name) + 1:])))
    if selectors is None:
        return None
    return ZeroDateRule(types, tuple(fallbacks), columns, selectors)


def converter_target(rules: tuple[Rule, ...], table: str | None, column: Column) -> str | None:
    """What the first converter that takes the column makes of it (Debezium asks them in `converters` order)."""
    if table is None:
        return None
    for rule in rules:
        target = rule.target(table, column)
        if target is not None:
            return target
    return None
