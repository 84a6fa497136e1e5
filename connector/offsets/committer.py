"""When offsets are written: at most every `offset.flush.interval.ms`, and once more at shutdown.

Debezium Server's default interval is one minute (the engine's PeriodicCommitOffsetPolicy; its example
configuration sets 0: commit after every batch handed to the sink). Only what the
`OffsetTracker` calls committable is ever written, i.e. offsets whose records Kafka acknowledged, so a
crash between a send and its ack re-sends (at-least-once), never skips.

With `write_behind` (the offsets file) the periodic save runs on a thread of its own (write_behind.py) while
streaming goes on; `last_committed` (the status file's `committed_offset`) names an offset only once it is
saved. `commit()` (after the snapshot, at shutdown) waits for a save in flight and saves in place.
"""

from __future__ import annotations

import logging
import time
from typing import Any, Callable, Protocol

from connector.offsets.store import OffsetFlushTimeout, OffsetStore
from connector.offsets.tracker import OffsetTracker
from connector.offsets.write_behind import WriteBehind

__all__ = ["OffsetCommitter", "Flushable"]

logger = logging.getLogger(__name__)


class Flushable(Protocol):
    """What the committer needs from the writer at shutdown (`KafkaWriter.flush`)."""

    def flush(self, timeout_s: float) -> int: ...


class OffsetCommitter:
    """Writes the tracker's committable offset to the store, rate-limited by `flush_interval_ms`."""

    def __init__(
        self,
        tracker: OffsetTracker,
        store: OffsetStore,
        flush_interval_ms: int,
        *,
        clock: Callable[[], float] = time.monotonic,
        write_behind: bool = False,
    ) -> None:
        if flush_interval_ms < 0:
            raise ValueError(f"offset.flush.interval.ms must be >= 0, got {flush_interval_ms}")
        self._tracker = tracker
        self._store = store
        self._interval_s = flush_interval_ms / 1000.0
        self._clock = clock
        self._last_attempt: float | None = None
        self._saved_version: int | None = None
        self.last_committed: dict[str, Any] | None = None
        self._behind = WriteBehind("offsets-writer") if write_behind else None

    def maybe_commit(self) -> bool:
        """Commit if the interval has passed since the last attempt; call after each batch. True if written."""
        now = self._clock()
        if self._last_attempt is not None and now - self._last_attempt < self._interval_s:
            return False
        self._last_attempt = now
        try:
            return self.commit() if self._behind is None else self._commit_behind(self._behind)
        except OffsetFlushTimeout as exc:
            # As Connect does after offset.flush.timeout.ms: give up this round, the next one retries.
            logger.warning("Offset commit timed out, will retry at the next interval: %s", exc)
            return False

    def _commit_behind(self, behind: WriteBehind) -> bool:
        """Hand the committable offset to the writing thread if it changed and no save is in flight. True if
        handed over. A failed save raises here."""
        behind.raise_failure()
        if behind.busy:
            return False  # the next interval takes what was acknowledged meanwhile
        version, offset = self._tracker.committable_versioned()
        if offset is None or version == self._saved_version:
            return False
        behind.submit(lambda: self._save(version, offset))
        return True

    def _save(self, version: int, offset: dict[str, Any]) -> None:
        self._store.save(offset)
        self._saved_version = version
        self.last_committed = offset
        logger.debug("Committed offset %s", offset)

    def commit(self) -> bool:
        """Write the committable offset now if it changed since the last write. True if written."""
        if self._behind is not None:
            self._behind.wait()  # a save in flight first (its failure raises here)
        version, offset = self._tracker.committable_versioned()
        if offset is None or version == self._saved_version:
            return False
        self._store.save(offset)
        self._saved_version = version
        self.last_committed = offset
        logger.debug("Committed offset %s", offset)
        return True

    def close_writer(self) -> None:
        """End the writing thread after the save in flight (the store stays open)."""
        if self._behind is not None:
            self._behind.close()

    def shutdown(self, writer: Flushable, timeout_s: float) -> bool:
        """Graceful stop: flush the writer, commit what was acknowledged, close the store.

        A delivery failure raised by the flush is re-raised *after* committing the acknowledged prefix
        (which never reaches past the failed record). Returns True if every record was acknowledged.
        """
        try:
            remaining = writer.flush(timeout_s)
        except BaseException:
            self._final_commit()
            raise
        self._final_commit()
        if remaining:
            logger.warning("%d records were not acknowledged at shutdown; they will be re-read", remaining)
        return remaining == 0

    def _final_commit(self) -> None:
        try:
            self.commit()
        finally:
            self.close_writer()
            self._store.close()
