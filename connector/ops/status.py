"""A small JSON status file for operators, health checks and the conformance runner.

Rewritten atomically (temp file + rename), at most every `min_interval_s`, so readers never see a
half-written file; an unchanged status only every `unchanged_interval_s`, often enough for the health check's
`updated_at` age (an idle reader wakes five times a second). Created 0600 (owner only).

The caller's thread only renders the text: the file is written on a thread of its own (write_behind.py), as
an open and a rename ten times a second on a busy disk took 12-13% of the streaming thread's samples (py-spy,
issue 27). While a write is in flight the next unforced one is skipped (the one after it writes the newer
status). A forced write (phase changes, the final status) waits for the one in flight and is in the file when it
returns. A write that failed on the thread raises from the caller's next `write`, as it would have done there.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from connector.offsets.write_behind import WriteBehind

__all__ = ["StatusFile"]


@dataclass
class StatusFile:
    path: Path | None
    min_interval_s: float = 0.1
    unchanged_interval_s: float = 1.0
    _last_write: float = field(default=0.0, init=False)
    _last_text: str = field(default="", init=False)
    _behind: WriteBehind = field(default_factory=lambda: WriteBehind("status-file"), init=False, repr=False)

    def due(self) -> bool:
        """Whether a `write` now would write: callers ask first, so the status dict is built ~10 times a second,
        not for every binlog event."""
        return self.path is not None and time.monotonic() - self._last_write >= self.min_interval_s

    def write(self, status: dict[str, Any], force: bool = False) -> None:
        path = self.path
        if path is None:
            return
        behind = self._behind
        behind.raise_failure()
        now = time.monotonic()
        if not force and (now - self._last_write < self.min_interval_s or behind.busy):
            return
        text = json.dumps(status, sort_keys=True)  # text, not the dict: its parts may be mutated later
        if not force and text == self._last_text and now - self._last_write < self.unchanged_interval_s:
            return
        self._last_write, self._last_text = now, text
        stamped = json.dumps(dict(status, updated_at=time.time()), sort_keys=True)
        if force:
            behind.wait()  # the write in flight first: it is older
            self._put(path, stamped)
        else:
            behind.submit(lambda: self._put(path, stamped))

    def flush(self) -> None:
        """Wait until the last write is in the file (raises what writing it raised)."""
        self._behind.wait()

    def close(self) -> None:
        """Write what is in flight and end the writing thread (a later `write` starts another)."""
        self._behind.close()

    @staticmethod
    def _put(path: Path, text: str) -> None:
        tmp = path.with_name(path.name + ".tmp")
        # 0600 like the offsets file: positions, counters and table names are the operator's business only.
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(tmp, path)
