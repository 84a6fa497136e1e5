"""BinlogReader.has_pending on real servers: False once every byte the server sent is read (the reader would wait
for the next event), True when a change has arrived unread. The streaming loop sends held-back records only in
the first case (connector/streaming/loop.py): a wrong False costs batching, a wrong True holds records back until
the server's next heartbeat."""
from __future__ import annotations

import pytest

from connector.binlog.connection import ConnectionParams
from connector.binlog.reader import BinlogReader
from connector.binlog.wire_events import COMMIT_EVENTS
from connector.offsets.position import BinlogPosition
from tests.support.waiting import wait_until

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize("server_name", ["mariadb", "mysql"])
def test_pending_says_whether_the_server_sent_more_than_was_read(server_name, request, unique_database) -> None:
    server = request.getfixturevalue(server_name)
    database = unique_database(server)
    start = server.binlog_position()
    server.run_sql("CREATE TABLE items (id INT PRIMARY KEY)", database=database)
    created = server.binlog_position()
    # server heartbeats (sent when idle) only after 60 s: none arrives while the test reads
    reader = BinlogReader(ConnectionParams(server.host, server.port, server.user, server.password), 4246,
                          BinlogPosition(*start), heartbeat_interval_s=60)
    try:
        events = iter(reader.events())
        while (reader.file, reader.next_pos) < created:
            next(events)
        assert not reader.has_pending()
        server.run_sql("INSERT INTO items VALUES (1)", database=database)
        inserted = server.binlog_position()
        wait_until(reader.has_pending, 10, "the insert's events to arrive")
        assert reader.has_pending()  # asking does not read
        while True:
            pe = next(events)
            if type(pe.event) in COMMIT_EVENTS:
                break
        assert (pe.file, pe.next_pos) == inserted
        assert not reader.has_pending()
    finally:
        reader.close()
    assert not reader.has_pending()  # closed: nothing to read
