"""A read-only (GTID) chunk's low watermark counts every transaction streaming already read.

The binlog reaches the dump thread before the server's commit stage adds the transaction's GTID to gtid_executed.
A chunk read in that gap (the signal's own transaction, read at once) got a low watermark without it, so the
signal's change itself opened and closed the window: the chunk's rows carried the signal row's position instead of
its commit's (golden signals_control-readonly-mysql failed once in a clean-clone run that way). Here the gap is made
wide on purpose: the transaction streaming "has read" commits only after the low watermark began waiting for it."""
from __future__ import annotations

import threading

import pytest

from connector.binlog import connection as dbconn
from connector.gtids.sets import GtidSet
from snapshot.incremental.read_only import GtidWatermarks

pytestmark = [pytest.mark.mysql, pytest.mark.timeout(120)]


def test_low_watermark_waits_for_the_transaction_streaming_has_read(mysql) -> None:
    mysql.run_sql("CREATE DATABASE IF NOT EXISTS lowmark; CREATE TABLE IF NOT EXISTS lowmark.t (id INT AUTO_INCREMENT PRIMARY KEY)")
    conn = mysql.connect()
    late: threading.Timer | None = None
    try:
        server_uuid = mysql.query("SELECT @@server_uuid")[0][0]
        executed = GtidSet.parse(dbconn.binlog_status(conn).executed_gtid_set or "")
        spans = executed.spans_of(server_uuid)
        next_gtid = f"{server_uuid}:{max((end for _, end in spans), default=0) + 1}"
        seen = executed.add(next_gtid).client_str()
        late = threading.Timer(1.0, lambda: mysql.run_sql("INSERT INTO lowmark.t VALUES ()"))
        late.start()
        marks = GtidWatermarks(seen=lambda: seen)
        marks.read_low(conn)
        late.join()
        assert marks.low is not None and marks.low.contains(next_gtid), (str(marks.low), next_gtid)
        # what streaming read is already executed: no wait, the same low watermark
        marks.read_low(conn)
        assert marks.low.contains(next_gtid)
    finally:
        if late is not None:
            late.cancel()
            late.join()
        conn.close()
