"""An in-memory `OffsetStore` for unit tests; it stores the rendered bytes so tests see what a real store writes."""

from __future__ import annotations

from typing import Any, Mapping

from connector.offsets.store import parse_offset, render_offset

__all__ = ["MemoryOffsetStore"]


class MemoryOffsetStore:
    """Keeps the last saved offset (as Connect-rendered bytes) and every save, in order."""

    def __init__(self, initial: Mapping[str, Any] | None = None) -> None:
        self._raw: bytes | None = render_offset(initial) if initial is not None else None
        self.saved: list[bytes] = []
        self.closed = False

    def load(self) -> dict[str, Any] | None:
        return None if self._raw is None else parse_offset(self._raw, "memory offset store")

    def save(self, offset: Mapping[str, Any]) -> None:
        self._raw = render_offset(offset)
        self.saved.append(self._raw)

    def close(self) -> None:
        self.closed = True
