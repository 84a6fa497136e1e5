"""Property families whose names carry a parameter (`column.mask.with.12.chars`,
`snapshot.select.statement.overrides.<db.table>`), read into settings once, problems collected."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

__all__ = ["ColumnMapperSettings", "column_mappers", "select_overrides"]


@dataclass(frozen=True)
class ColumnMapperSettings:
    """One `column.truncate.to.N.chars`, `column.mask.with.N.chars` or `column.mask.hash[.v2].<alg>.with.salt.<salt>`
    property: what it does to the columns its patterns (`db.table.column`, anchored) select."""

    kind: Literal["truncate", "mask", "hash"]
    columns: tuple[str, ...]
    length: int = 0  # truncate / mask
    algorithm: str = ""  # hash
    salt: str = ""  # hash
    hash_v2: bool = False  # hash: UTF-8 bytes instead of the Java-serialised String


_TRUNCATE = re.compile(r"column\.truncate\.to\.(\d+)\.chars")
_MASK = re.compile(r"column\.mask\.with\.(\d+)\.chars")
_HASH = re.compile(r"column\.mask\.hash\.(v2\.)?(.+?)\.with\.salt\.(.+)")


def column_mappers(raw: dict[str, str], problems: list[str]) -> tuple[ColumnMapperSettings, ...]:
    """The column mapper properties, in property order (the first matching one wins, as in Debezium)."""
    mappers = []
    for key, value in raw.items():
        columns = tuple(p.strip() for p in value.split(",") if p.strip())
        if m := _TRUNCATE.fullmatch(key):
            mappers.append(ColumnMapperSettings("truncate", columns, length=int(m.group(1))))
        elif m := _MASK.fullmatch(key):
            mappers.append(ColumnMapperSettings("mask", columns, length=int(m.group(1))))
        elif m := _HASH.fullmatch(key):
            mappers.append(ColumnMapperSettings("hash", columns, algorithm=m.group(2), salt=m.group(3),
                                                hash_v2=bool(m.group(1))))
        else:
            continue
        for pattern in columns:
            try:
                re.compile(pattern)
            except re.error as exc:
                problems.append(f"{key}: {pattern!r} is not a valid regular expression ({exc})")
    return tuple(mappers)


def select_overrides(raw: dict[str, str], problems: list[str]) -> dict[str, str]:
    """Tables listed in snapshot.select.statement.overrides -> their snapshot.select.statement.overrides.<t>."""
    listed = [t.strip() for t in (raw.get("snapshot.select.statement.overrides") or "").split(",") if t.strip()]
    overrides: dict[str, str] = {}
    for name in listed:
        statement = raw.get(f"snapshot.select.statement.overrides.{name}")
        if statement:
            overrides[name] = statement
        else:
            problems.append(f"snapshot.select.statement.overrides lists {name} but "
                              f"snapshot.select.statement.overrides.{name} is not set")
    return overrides
