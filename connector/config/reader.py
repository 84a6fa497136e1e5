"""Typed reads of raw properties through the field table, collecting every problem instead of stopping."""

from __future__ import annotations

from typing import Any

from connector.config.fields import BY_NAME

__all__ = ["PropertyReader"]


class PropertyReader:
    """Reads typed values through the field table, collecting every problem instead of stopping at the first."""

    def __init__(self, raw: dict[str, str]) -> None:
        self.raw = raw
        self.problems: list[str] = []

    def get(self, name: str) -> Any:
        fld = BY_NAME[name]
        if fld.required and not self.raw.get(name, fld.default):
            self.problems.append(f"{name} is required: {fld.doc}")
            return None
        try:
            return fld.value(self.raw)
        except ValueError as exc:
            self.problems.append(str(exc))
            return fld.parse(name, fld.default) if fld.default is not None else None
