"""Exactly-once mode: source offsets ride in the same Kafka transaction as the records they cover.

Like Kafka Connect's exactly-once source support (KIP-618): records are produced inside a transaction; at
each commit point the newest tracked offset is appended to the offsets topic *in that transaction*, then
the transaction is committed. Consumers reading with `isolation.level=read_committed` see either the
records and their offset together, or neither, so a crash never duplicates or skips records. On any
failure the transaction is aborted and the pipeline must restart from the offset stored in the topic.
"""

from __future__ import annotations

import logging
import time
from typing import Any, Callable

from connector.kafka.writer import KafkaWriter
from connector.offsets.kafka_store import KafkaOffsetStore
from connector.offsets.tracker import OffsetTracker

__all__ = ["TransactionalCommitter"]

logger = logging.getLogger(__name__)


class TransactionalCommitter:
    """Commits one Kafka transaction per `offset.flush.interval.ms` (0: after every batch).

    Call `start()` before the first `send`, `maybe_commit()` after each batch, `shutdown()` at the end.
    """

    def __init__(
        self,
        tracker: OffsetTracker,
        writer: KafkaWriter,
        store: KafkaOffsetStore,
        flush_interval_ms: int,
        *,
        commit_timeout_s: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not writer.transactional:
            raise ValueError("exactly-once mode needs a writer with transactional.id")
        self._tracker = tracker
        self._writer = writer
        self._store = store
        self._interval_s = flush_interval_ms / 1000.0
        self._timeout_s = commit_timeout_s
        self._clock = clock
        self._last_commit = clock()
        self._staged: dict[str, Any] | None = None
        self.last_committed: dict[str, Any] | None = None

    def start(self) -> None:
        self._writer.begin_transaction(self._timeout_s)

    def maybe_commit(self) -> bool:
        """Commit the open transaction if the interval has passed. True if an offset was committed."""
        if self._clock() - self._last_commit < self._interval_s:
            return False
        return self.commit()

    def commit(self, reopen: bool = True) -> bool:
        """Append the newest offset to the transaction, commit it, and (unless `reopen=False`) open the next.

        Raises `KafkaTransactionAborted` (nothing of this transaction is visible; restart) or
        `KafkaTransactionFatal`.
        """
        offset = self._tracker.newest()
        wrote = offset is not None and offset != self.last_committed
        # After a failed record the transaction can only abort: staging the offset would be one more send,
        # raising the record's KafkaDeliveryError and leaving the transaction open instead of aborting it.
        if wrote and self._writer.failure is None:
            self._store.stage(offset)
        self._writer.commit_transaction(self._timeout_s)
        self._last_commit = self._clock()
        if wrote:
            self.last_committed = offset
            logger.debug("Committed transaction with offset %s", offset)
        if reopen:
            self._writer.begin_transaction(self._timeout_s)
        return wrote

    def shutdown(self) -> None:
        """Graceful stop: commit the last transaction (or abort it if that fails, then re-raise)."""
        try:
            self.commit(reopen=False)
        finally:
            self._store.close()
