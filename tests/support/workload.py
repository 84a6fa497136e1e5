"""Workload files in the reference harness's format (see /work/shared/reference/README.md).

    setup SQL (loaded before the connector starts -> snapshot)
    -- @@STREAM@@
    streaming SQL, one client session per section
    -- @@WAIT@@          (optional, repeatable: wait until the connector caught up)
    more streaming SQL
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

STREAM_MARKER = re.compile(r"^\s*--\s*@@STREAM@@\s*$", re.M)
WAIT_MARKER = re.compile(r"^\s*--\s*@@WAIT@@\s*$", re.M)


class WorkloadError(ValueError):
    """The workload file does not have exactly one `-- @@STREAM@@` line."""


@dataclass(frozen=True)
class Workload:
    path: str
    setup: str
    sections: tuple[str, ...]  # streaming sections, split at `-- @@WAIT@@`; may be blank

    @classmethod
    def load(cls, path: str | Path) -> "Workload":
        text = Path(path).read_text(encoding="utf-8")
        parts = STREAM_MARKER.split(text)
        if len(parts) != 2:
            raise WorkloadError(f"{path}: a workload needs exactly one line '-- @@STREAM@@' (found {len(parts) - 1})")
        setup, stream = parts
        return cls(str(path), setup, tuple(WAIT_MARKER.split(stream)))
