"""Watermarks of a read-only incremental snapshot (`read.only=true`, MySQL with GTIDs): executed GTID sets instead
of rows written to the signal table, as Debezium's MySqlReadOnlyIncrementalSnapshotContext.

Before a chunk is read the server's executed GTID set is the low watermark; after, what was executed meanwhile
(the new set minus the low one) is the high watermark. Streaming then compares each change's GTID with them:
past the low watermark the window is open (a change of a key in it removes the key from the window); past the
high watermark it closes and the window's rows go out. A transaction commit, or an idle server's heartbeat,
closes it as well once its GTID reached the high watermark's largest transaction (the chunk query saw every
change up to there), which is how a window closes when nothing else happens.
"""

from __future__ import annotations

from dataclasses import dataclass

import pymysql

from connector.binlog import connection as dbconn
from connector.gtids.sets import GtidSet, split_gtid

__all__ = ["GtidWatermarks"]


@dataclass
class GtidWatermarks:
    low: GtidSet | None = None
    high: GtidSet | None = None
    window_opened: bool = False

    @property
    def active(self) -> bool:
        return self.high is not None

    def read_low(self, conn: pymysql.connections.Connection) -> None:
        self.low = _executed(conn)
        conn.commit()  # the chunk query must see what was committed before it
        self.high = None
        self.window_opened = False

    def read_high(self, conn: pymysql.connections.Connection) -> None:
        assert self.low is not None
        self.high = _executed(conn).subtract(self.low)

    def update_window_state(self, gtid: str | None) -> bool:
        """A change of transaction `gtid` is about to be sent: True when the window closes before it."""
        if gtid is None:
            return False
        if not self.window_opened and self.low is not None and not self.low.contains(gtid):
            self.window_opened = True
        if self.window_opened and self.high is not None and not self.high.contains(gtid):
            self.close()
            return True
        return False

    def reached_high_watermark(self, gtid: str | None) -> bool:
        """At a commit or heartbeat: `gtid` is at or past the high watermark's last transaction of its server."""
        if self.high is None:
            return False
        if gtid is None:
            return True
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
