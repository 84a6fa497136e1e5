"""The binlog connection is dropped under a steady write load (`KILL CONNECTION` of the dump thread, and a
database restart): the connector reconnects by itself and every change arrives exactly once, every
transaction's BEGIN/END exactly once. Metrics and /health show the disconnects."""
from __future__ import annotations

import json
import random
import time

import pytest

from tests.integration.pipeline.test_restart import Writer, _first_difference
from tests.integration.service.support import (
    connector_config, kill_dump_threads, metric, metrics_port, new_prefix, restart_in_place, scrape, start_connector)
from tests.support.waiting import wait_until
from tests.support.kafka_dump import consume_all

pytestmark = pytest.mark.timeout(300)


def _check_exactly_once(broker, data_topic: str, tx_topic: str, expected: list, committed: int) -> None:
    records = consume_all(broker.bootstrap_servers, {data_topic: 1, tx_topic: 1})
    actual = [(json.loads(r.value)["payload"]["op"], json.loads(r.key)["payload"]["id"])
              for r in records if r.topic == data_topic and r.value is not None]
    assert actual == expected, _first_difference(actual, expected)
    txs = [json.loads(r.value)["payload"] for r in records if r.topic == tx_topic]
    begins = [t["id"] for t in txs if t["status"] == "BEGIN"]
    ends = [t for t in txs if t["status"] == "END"]
    assert len(begins) == len(set(begins)) == committed
    assert [t["id"] for t in ends] == begins
    assert all(t["event_count"] == 7 for t in ends), [t["event_count"] for t in ends if t["event_count"] != 7]


@pytest.mark.parametrize("server_name", ["mariadb", "mysql"])
def test_kill_connection_of_the_dump_thread_loses_and_repeats_nothing(server_name, request, broker,
                                                                      unique_database, tmp_path):
    server = request.getfixturevalue(server_name)
    database = unique_database(server)
    server.run_sql("CREATE TABLE items (id INT PRIMARY KEY, v VARCHAR(20), n INT NOT NULL)", database=database)
    prefix = new_prefix("kill")
    data_topic, tx_topic = f"{prefix}.{database}.items", f"{prefix}.transaction"
    broker.create_topics([data_topic, tx_topic, prefix])
    port = metrics_port()
    config = connector_config(tmp_path, server, broker, database, prefix, **{
        "provide.transaction.metadata": "true", "metrics.port": str(port), "metrics.host": "127.0.0.1"})
    proc = start_connector(tmp_path, config)
    try:
        writer = Writer(server, database)
        writer.start()
        kills = 0
        for _ in range(4):
            time.sleep(random.uniform(0.3, 0.8))
            # The connector reconnects after a backoff: kill its next connection once it is there.
            kills += wait_until(lambda: kill_dump_threads(server, server.user), 120, "a binlog dump thread")
        writer.finish()
        assert kills >= 4
        proc.wait_caught_up(server.binlog_position(), quiet_ms=1000, timeout=120)
        code, text = scrape(port)
        assert code == 200
        assert metric(text, "NumberOfDisconnects") >= kills
        assert metric(text, "Connected") == 1
        assert metric(text, "NumberOfCommittedTransactions") >= writer.committed
        assert metric(text, "TotalNumberOfEventsSeen") == 7 * writer.committed
        # Caught up, the server sends heartbeats: the lag is 0, not the age of the last event read nor of the
        # binlog file the reconnects' FORMAT_DESCRIPTION re-sends (that was how long the suite had run).
        wait_until(lambda: metric(scrape(port)[1], "MilliSecondsBehindSource") == 0, 60,
                   "MilliSecondsBehindSource 0 once caught up",
                   state=lambda: metric(scrape(port)[1], "MilliSecondsBehindSource"))
        code, body = scrape(port, "/health")
        assert code == 200 and json.loads(body)["status"] == "UP"
    finally:
        assert proc.stop() == 0, proc.log_tail()
    assert "reconnecting" in proc.log_tail(400)
    assert writer.committed > 30
    _check_exactly_once(broker, data_topic, tx_topic, writer.expected, writer.committed)


@pytest.mark.parametrize("own_server", ["mariadb", "mysql"], indirect=True)
def test_database_restart_mid_stream_loses_and_repeats_nothing(own_server, broker, tmp_path):
    server = own_server
    databases = ["restart1", "restart2"]  # one per writer: each writer numbers its rows from 1
    server.run_sql("".join(f"CREATE DATABASE {d}; CREATE TABLE {d}.items (id INT PRIMARY KEY, v VARCHAR(20), "
                           f"n INT NOT NULL); " for d in databases))
    prefix = new_prefix("dbrestart")
    tx_topic = f"{prefix}.transaction"
    topics = {d: f"{prefix}.{d}.items" for d in databases}
    broker.create_topics([*topics.values(), tx_topic, prefix])
    port = metrics_port()
    config = connector_config(tmp_path, server, broker, ",".join(databases), prefix, **{
        "provide.transaction.metadata": "true", "metrics.port": str(port), "metrics.host": "127.0.0.1"})
    proc = start_connector(tmp_path, config)
    writers = []
    try:
        for database in databases:
            writer = Writer(server, database)
            writer.start()
            wait_until(lambda: writer.committed >= 20, 60, f"the writer to commit in {database}")
            writer.finish()
            writers.append(writer)
            restart_in_place(server)
        wait_until(lambda: metric(scrape(port)[1], "Connected") == 1, 60, "the connector to reconnect")
        proc.wait_caught_up(server.binlog_position(), quiet_ms=1000, timeout=120)
        assert metric(scrape(port)[1], "NumberOfDisconnects") >= 2
    finally:
        assert proc.stop() == 0, proc.log_tail()
    committed = sum(w.committed for w in writers)
    assert committed > 20
    records = consume_all(broker.bootstrap_servers, {tx_topic: 1, **{t: 1 for t in topics.values()}})
    for database, writer in zip(databases, writers):
        actual = [(json.loads(r.value)["payload"]["op"], json.loads(r.key)["payload"]["id"])
                  for r in records if r.topic == topics[database] and r.value is not None]
        assert actual == writer.expected, _first_difference(actual, writer.expected)
    txs = [json.loads(r.value)["payload"] for r in records if r.topic == tx_topic]
    begins = [t["id"] for t in txs if t["status"] == "BEGIN"]
    assert len(begins) == len(set(begins)) == committed
    assert [t["id"] for t in txs if t["status"] == "END"] == begins
    assert all(t["event_count"] == 7 for t in txs if t["status"] == "END")
