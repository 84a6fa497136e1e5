"""A small JSON status file for operators, health checks and the conformance runner.

Rewritten atomically (temp file + rename), at most every `min_interval_s`, so readers never see a
half-written file; an unchanged status only every `unchanged_interval_s`, often enough for the health check's
`updated_at` age (an idle reader wakes five times a second). Created 0600 (owner only).

The caller's thread only renders the text: the file is written by a thread of the `StatusFile` (started at the
first write), because an open and a rename ten times a second on a busy disk took about 4% of the streaming
thread's time (py-spy, issue 27). A forced write (phase changes, the final status) is written by the caller
before it returns; a background write older than it is then dropped, never written over it. A write that failed
in the background raises from the caller's next `write`, as it would have done there.
"""

from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["StatusFile"]


@dataclass
class StatusFile:
    path: Path | None
    min_interval_s: float = 0.1
    unchanged_interval_s: float = 1.0
    _last_write: float = field(default=0.0, init=False)
    _last_text: str = field(default="", init=False)
    # the write-behind thread's hand-over (guarded by _slot) and the file's writer lock (_io, held while writing)
    _slot: threading.Condition = field(default_factory=threading.Condition, init=False, repr=False)
    _io: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    _pending: tuple[int, str] | None = field(default=None, init=False, repr=False)
    _busy: bool = field(default=False, init=False, repr=False)
    _closing: bool = field(default=False, init=False, repr=False)
    _failure: OSError | None = field(default=None, init=False, repr=False)
    _sequence: int = field(default=0, init=False, repr=False)
    _written: int = field(default=0, init=False, repr=False)
    _writer: threading.Thread | None = field(default=None, init=False, repr=False)

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
        stamped = json.dumps(dict(status, updated_at=time.time()), sort_keys=True)
        with self._slot:
            failure, self._failure = self._failure, None
            self._sequence += 1
            if force:
                self._pending = None  # older than this one
            else:
                self._pending = (self._sequence, stamped)
                self._slot.notify()
                if self._writer is None:
                    self._writer = threading.Thread(target=self._write_behind, name="status-file", daemon=True)
                    self._writer.start()
            sequence = self._sequence
        if failure is not None:
            raise failure
        if force:
            self._put(sequence, stamped)

    def flush(self) -> None:
        """Wait until the last write is in the file (raises what writing it raised)."""
        with self._slot:
            self._slot.wait_for(lambda: self._pending is None and not self._busy)
            failure, self._failure = self._failure, None
        if failure is not None:
            raise failure

    def close(self) -> None:
        """Write what is pending and end the writing thread (a later `write` starts another)."""
        with self._slot:
            writer, self._writer = self._writer, None
            self._closing = writer is not None
            self._slot.notify_all()
        if writer is not None:
            writer.join()

    def _write_behind(self) -> None:
        while True:
            with self._slot:
                self._slot.wait_for(lambda: self._pending is not None or self._closing)
                if self._pending is None:
                    self._closing = False
                    return
                (sequence, text), self._pending = self._pending, None
                self._busy = True
            try:
                self._put(sequence, text)
            except OSError as exc:
                with self._slot:
                    self._failure = exc
            finally:
                with self._slot:
                    self._busy = False
                    self._slot.notify_all()

    def _put(self, sequence: int, text: str) -> None:
        assert self.path is not None
        with self._io:
            if sequence <= self._written:
                return  # a newer status (a forced one) is there already
            tmp = self.path.with_name(self.path.name + ".tmp")
            # 0600 like the offsets file: positions, counters and table names are the operator's business only.
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(text)
            os.replace(tmp, self.path)
            self._written = sequence
