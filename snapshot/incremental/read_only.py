"""Watermarks of an incremental snapshot that writes nothing to the database: instead of open/close rows in the
signal table, what the server says about its own state around the chunk query.

* `GtidWatermarks` (`read.only=true`, MySQL with GTIDs), as Debezium's MySqlReadOnlyIncrementalSnapshotContext:
  before a chunk is read the server's executed GTID set is the low watermark; after, what was executed meanwhile
  (the new set minus the low one) is the high watermark. Streaming then compares each change's GTID with them:
  past the low watermark the window is open (a change of a key in it removes the key from the window); past the
  high watermark it closes and the window's rows go out. A transaction commit, or an idle server's heartbeat,
  closes it as well once its GTID reached the high watermark's largest transaction (the chunk query saw every
  change up to there), which is how a window closes when nothing else happens.
* `ViewPositionWatermarks` (MariaDB, GTIDs or not; snapshot/incremental/view_position.py): the chunk query runs
  in a consistent-snapshot transaction whose exact binlog position MariaDB reports.

Both serve the rest of an interrupted initial snapshot without a signal table (snapshot/remainder.py).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Callable, Protocol

import pymysql

from connector.binlog import connection as dbconn
from connector.offsets.position import SourceOffset
from connector.gtids.sets import GtidSet, split_gtid
from connector.events.changes import EventSource

__all__ = ["GtidWatermarks", "Watermarks"]

log = logging.getLogger(__name__)

# How long a low watermark waits for the server to count as executed a transaction streaming already read: the
# binlog reaches the dump thread before the commit stage adds the GTID to gtid_executed (microseconds to
# milliseconds), so a healthy server never comes near this.
SEEN_WAIT_S = 10


class Watermarks(Protocol):
    """Where a chunk's window opens and closes in the binlog, found without writing (IncrementalSnapshot)."""

    window_opened: bool

    @property
    def active(self) -> bool: ...

    def read_low(self, conn: pymysql.connections.Connection) -> None:
        """Before the chunk (and before its table's maximum key is read)."""

    def before_query(self, conn: pymysql.connections.Connection) -> None:
        """Right before the chunk query, on its connection."""

    def read_high(self, conn: pymysql.connections.Connection) -> None:
        """After the chunk query."""

    def update_window_state(self, source: EventSource, offset: SourceOffset) -> bool:
        """A change (`offset`: its transaction's start) is about to be sent: True when the window closes before
        it."""

    def reached_high_watermark(self, source: EventSource, offset: SourceOffset) -> bool:
        """At a commit (`source`: its commit event) or an idle server's heartbeat (`source`: the next position):
        streaming has passed everything the chunk query saw."""

    def close(self) -> None: ...


@dataclass
class GtidWatermarks:
    low: GtidSet | None = None
    high: GtidSet | None = None
    window_opened: bool = False
    # The GTID set streaming has read so far (the current transaction's included): the low watermark waits until
    # the server counts all of it as executed. Without the wait a chunk read while the server was still committing
    # the transaction that carried the signal got a low watermark without it, and the window closed at that
    # transaction's own change instead of at its commit (a source.pos that depended on timing).
    seen: Callable[[], str] | None = None

    @property
    def active(self) -> bool:
        return self.high is not None

    def read_low(self, conn: pymysql.connections.Connection) -> None:
        seen = self.seen() if self.seen is not None else ""
        if seen:
            with conn.cursor() as cur:
                cur.execute("SELECT WAIT_FOR_EXECUTED_GTID_SET(%s, %s)", (seen, SEEN_WAIT_S))
                row = cur.fetchone()
            if row is not None and row[0] == 1:
                log.warning("read-only incremental snapshot: after %d s the server still does not count as executed "
                            "every transaction streaming has read (%s); the chunk's low watermark is taken anyway",
                            SEEN_WAIT_S, seen)
        self.low = _executed(conn)
        conn.commit()  # the chunk query must see what was committed before it
        self.high = None
        self.window_opened = False

    def before_query(self, conn: pymysql.connections.Connection) -> None:
        pass  # any view taken after the low watermark will do

    def read_high(self, conn: pymysql.connections.Connection) -> None:
        assert self.low is not None
        self.high = _executed(conn).subtract(self.low)

    def update_window_state(self, source: EventSource, offset: SourceOffset) -> bool:
        gtid = source.gtid
        if gtid is None:
            return False
        if not self.window_opened and self.low is not None and not self.low.contains(gtid):
            self.window_opened = True
        if self.window_opened and self.high is not None and not self.high.contains(gtid):
            self.close()
            return True
        return False

    def reached_high_watermark(self, source: EventSource, offset: SourceOffset) -> bool:
        """`source.gtid` is at or past the high watermark's last transaction of its server; with no GTID (a
        heartbeat before the first transaction, or while MySQL skips transactions the connector already has),
        every transaction of both watermarks is among those streamed (`offset.gtids`). Streaming may be far
        behind the chunk (the rest of an interrupted snapshot starts at its old position): a heartbeat alone
        says nothing about how far it got."""
        if self.high is None:
            return False
        gtid = source.gtid
        if gtid is None:
            assert self.low is not None
            return self.low.union(self.high).is_subset_of(GtidSet.parse(offset.gtids or ""))
        tsid, number = split_gtid(gtid)  # per source UUID and tag: tagged GTIDs count apart (MySQL 8.3+)
        ranges = (self.high if self.high else self.low or GtidSet.parse("")).spans_of(tsid)
        if not ranges:
            return False
        return max(end for _, end in ranges) <= number

    def close(self) -> None:
        self.window_opened = False
        self.low = self.high = None


def _executed(conn: pymysql.connections.Connection) -> GtidSet:
    return GtidSet.parse(dbconn.binlog_status(conn).executed_gtid_set or "")
