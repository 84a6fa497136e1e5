"""A small JSON status file for operators, health checks and the conformance runner.

Rewritten atomically (temp file + rename), at most every `min_interval_s`, so readers never see a
half-written file; an unchanged status only every `unchanged_interval_s`, often enough for the health check's
`updated_at` age (an idle reader wakes five times a second). Created 0600 (owner only).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class StatusFile:
    path: Path | None
    min_interval_s: float = 0.1
    unchanged_interval_s: float = 1.0
    _last_write: float = field(default=0.0, init=False)
    _last_text: str = field(default="", init=False)

    def due(self) -> bool:
        """Whether a `write` now would write: callers ask first, so the status dict is built ~10 times a second,
        not for every binlog event."""
        return self.path is not None and time.monotonic() - self._last_write >= self.min_interval_s

    def write(self, status: dict[str, Any], force: bool = False) -> None:
        if self.path is None:
            return
        now = time.monotonic()
        if not force and now - self._last_write < self.min_interval_s:
            return
        text = json.dumps(status, sort_keys=True)  # text, not the dict: its parts may be mutated later
        if not force and text == self._last_text and now - self._last_write < self.unchanged_interval_s:
            return
        self._last_write, self._last_text = now, text
        status = dict(status, updated_at=time.time())
        tmp = self.path.with_name(self.path.name + ".tmp")
        # 0600 like the offsets file: positions, counters and table names are the operator's business only.
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(json.dumps(status, sort_keys=True))
        os.replace(tmp, self.path)
