"""`converters=<name>` with `<name>.type=...TinyIntOneToBooleanConverter`, `<name>.selector`,
`<name>.length.checker`, checked at start into rules (the values: connector/converters/tinyint_bool.py).

A column converts when its type is TINYINT or TINYINT UNSIGNED, its length is 1 (unless
`length.checker=false`), and `selector` (comma-separated regexes on `db.table.column`, full match,
case-insensitive; none = every column) matches. Other custom converters are refused by name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from schema_history.model import Column

__all__ = ["CONVERTER_TYPES", "TinyIntBooleanRule", "custom_converters", "matching_rule"]

CONVERTER_TYPES = ("io.debezium.connector.binlog.converters.TinyIntOneToBooleanConverter",
                   "io.debezium.connector.mysql.converters.TinyIntOneToBooleanConverter")
_OPTIONS = ("type", "selector", "length.checker")
_REFUSED = ("JdbcSinkDataTypesConverter, ZeroDateFallbackConverter and other custom converters are not implemented; "
            "use io.debezium.connector.binlog.converters.TinyIntOneToBooleanConverter or remove the converter")


@dataclass(frozen=True)
class TinyIntBooleanRule:
    selectors: tuple[re.Pattern[str], ...]  # empty: every column
    length_checker: bool = True

    def matches(self, table: str, column: Column) -> bool:
        if column.type_name.upper() not in ("TINYINT", "TINYINT UNSIGNED"):
            return False
        if self.length_checker and column.length != 1:
            return False
        qualified = f"{table}.{column.name}"
        return not self.selectors or any(p.fullmatch(qualified) for p in self.selectors)


def custom_converters(raw: dict[str, str], problems: list[str]) -> tuple[TinyIntBooleanRule, ...]:
    """`converters` and each `<name>.*`, checked; problems name the property and the fix."""
    names = [n.strip() for n in (raw.get("converters") or "").split(",") if n.strip()]
    rules = []
    for name in names:
        kind = (raw.get(f"{name}.type") or "").strip()
        if kind not in CONVERTER_TYPES:
            problems.append(f"{name}.type={kind!r}: " + (_REFUSED if kind else f"required (converters lists {name})"))
            continue
        for key in raw:
            if key.startswith(name + ".") and key[len(name) + 1:] not in _OPTIONS:
                problems.append(f"{key}: not an option of TinyIntOneToBooleanConverter (options: selector, "
                                "length.checker); remove it")
        checker = (raw.get(f"{name}.length.checker") or "true").strip().lower()
        if checker not in ("true", "false"):
            # Boolean.parseBoolean takes anything else as false; a typo should not silently convert every TINYINT
            problems.append(f"{name}.length.checker={checker!r} must be true or false")
            continue
        try:
            selectors = tuple(re.compile(p.strip(), re.IGNORECASE)
                              for p in (raw.get(f"{name}.selector") or "").split(",") if p.strip())
        except re.error as exc:
            problems.append(f"{name}.selector: not a regular expression ({exc})")
            continue
        rules.append(TinyIntBooleanRule(selectors, checker == "true"))
    return tuple(rules)


def matching_rule(rules: tuple[TinyIntBooleanRule, ...], table: str | None, column: Column) -> bool:
    return table is not None and any(r.matches(table, column) for r in rules)
