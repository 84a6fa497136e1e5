"""MilliSecondsBehindSource on a real server: the age of a change written with an old `SET timestamp` while it is
the last event read, 0 once the connector is caught up (the server sends heartbeats), and never the age of the
binlog file, whose FORMAT_DESCRIPTION the server re-sends at every (re)connect. Before, a caught-up connector
reported the file's age after a reconnect: on a session-wide test server, how long the suite had run."""
from __future__ import annotations

import json
import time

import pytest
from pymysqlreplication.event import FormatDescriptionEvent, HeartbeatLogEvent

from connector.binlog.connection import ConnectionParams
from connector.offsets.position import BinlogPosition
from connector.binlog.reader import BinlogReader
from connector.binlog.wire_events import COMMIT_EVENTS
from connector.ops.metrics import StreamingStats
from connector.streaming.loop import note_event
from tests.integration.service.support import (
    connector_config, kill_dump_threads, metric, metrics_port, new_prefix, scrape, start_connector)
from tests.support.kafka_dump import consume_all
from tests.support.waiting import wait_until

pytestmark = pytest.mark.timeout(300)

DAY_MS = 86_400_000
OLD_INSERT = "SET timestamp = UNIX_TIMESTAMP() - 86400; INSERT INTO items VALUES ({id}); SET timestamp = DEFAULT;"


@pytest.mark.parametrize("server_name", ["mariadb", "mysql"])
def test_real_events_feed_the_lag_an_old_change_then_zero_never_the_files_age(server_name, request,
                                                                              unique_database):
    server = request.getfixturevalue(server_name)
    database = unique_database(server)
    server.run_sql("CREATE TABLE items (id INT PRIMARY KEY)", database=database)
    before = server.binlog_position()
    server.run_sql(OLD_INSERT.format(id=1), database=database)
    after = server.binlog_position()
    # Connected before the change (position > 4): the server first re-sends the file's description, then the
    # day-old change from the binlog, then heartbeats.
    reader = BinlogReader(ConnectionParams(server.host, server.port, server.user, server.password), 4245,
                          BinlogPosition(*before), heartbeat_interval_s=0.2)
    stats, seen = StreamingStats(), []
    try:
        for pe in reader.events():
            note_event(stats, pe, time.time_ns() // 1_000_000)
            seen.append((type(pe.event).__name__, pe.artificial, pe.timestamp, stats.ms_behind_source))
            if type(pe.event) in COMMIT_EVENTS:
                assert (pe.file, pe.next_pos) == after, seen
                assert DAY_MS <= stats.ms_behind_source < DAY_MS + 600_000, seen
            if type(pe.event) is HeartbeatLogEvent:
                break
    finally:
        reader.close()
    descriptions = [s for s in seen if s[0] == FormatDescriptionEvent.__name__]
    assert descriptions and all(artificial for _, artificial, _, _ in descriptions), seen
    assert all(not artificial for name, artificial, _, _ in seen if name != FormatDescriptionEvent.__name__
               and name != "RotateEvent"), seen
    assert any(name in {c.__name__ for c in COMMIT_EVENTS} for name, *_ in seen), seen
    assert seen[-1][0] == HeartbeatLogEvent.__name__ and stats.ms_behind_source == 0, seen


@pytest.mark.parametrize("server_name", ["mariadb", "mysql"])
def test_caught_up_connector_reports_zero_after_an_old_change_and_after_a_reconnect(server_name, request, broker,
                                                                                    unique_database, tmp_path):
    server = request.getfixturevalue(server_name)
    database = unique_database(server)
    server.run_sql("CREATE TABLE items (id INT PRIMARY KEY)", database=database)
    prefix = new_prefix("lag")
    topic = f"{prefix}.{database}.items"
    broker.create_topics([topic, prefix])
    port = metrics_port()
    config = connector_config(tmp_path, server, broker, database, prefix, **{
        "metrics.port": str(port), "metrics.host": "127.0.0.1"})
    proc = start_connector(tmp_path, config)

    def lag() -> float:
        return metric(scrape(port)[1], "MilliSecondsBehindSource")

    def disconnects() -> tuple[float, float]:
        text = scrape(port)[1]
        return metric(text, "NumberOfDisconnects"), metric(text, "Connected")

    try:
        server.run_sql(OLD_INSERT.format(id=1), database=database)
        records = wait_until(lambda: consume_all(broker.bootstrap_servers, {topic: 1}), 120,
                             f"the day-old insert in {topic}")
        source = json.loads(records[0].value)["payload"]["source"]
        if server_name == "mariadb":  # MySQL's ts_ms is the GTID event's commit time (as Debezium's), i.e. now
            assert time.time() * 1000 - source["ts_ms"] >= DAY_MS, source  # the change read is a day old
        # Caught up: the server's heartbeats say so, whatever the age of the last change read.
        wait_until(lambda: lag() == 0, 60, "MilliSecondsBehindSource 0 once caught up", state=lag)
        # A reconnect re-sends the binlog file's description (its time: when the file was created).
        wait_until(lambda: kill_dump_threads(server, server.user), 120, "the connector's binlog dump thread")
        wait_until(lambda: disconnects() >= (1, 1), 60, "a reconnect (NumberOfDisconnects, Connected)",
                   state=disconnects)
        wait_until(lambda: lag() == 0, 60, "MilliSecondsBehindSource 0 after the reconnect", state=lag)
    finally:
        assert proc.stop() == 0, proc.log_tail()
