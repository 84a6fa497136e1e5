"""key.converter / value.converter = Kafka's StringConverter through `binlog-cdc run connector.json` on MariaDB,
compared field by field with what Debezium 3.6.3 + Kafka 4.3 wrote for the same workload.

The reference harness serialises with JsonConverter only, so there is no golden in the usual form: the expected
texts (tests/fixtures/string_converter/debezium.jsonl) come from a copy of the harness that also wrote
`r.key().toString()` / `r.value().toString()`, what StringConverter sends (the workload's header says how). What
varies between runs is masked: times, binlog file and positions, thread and server ids, the topic prefix and
database name, and a BIT column's `[B@<identity hash>` (different in every JVM; ours is a stable stand-in).
"""
from __future__ import annotations

import json
import re
import uuid
from pathlib import Path

import pytest

from tests.support.connector_config import connector_properties
from tests.support.connector_process import ConnectorProcess, default_connector_cmd
from tests.support.kafka_dump import consume_all

pytestmark = pytest.mark.timeout(240)

STRING = "org.apache.kafka.connect.storage.StringConverter"
FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "string_converter"
_VARYING = [(re.compile(r"\b(ts_ms|ts_us|ts_ns|pos|thread|server_id)=\d+"), r"\1=N"),
            (re.compile(r"\bfile=[^,}]+"), "file=F"), (re.compile(r"\[B@[0-9a-f]+"), "[B@H")]


def _sections() -> tuple[str, str]:
    """The workload's setup and streamed statements, without its own database."""
    body = "\n".join(line for line in (FIXTURE / "workload.sql").read_text().splitlines()
                     if not line.startswith("--") or "@@STREAM@@" in line)
    setup, stream = body.split("-- @@STREAM@@")
    drop = ("CREATE DATABASE inventory;", "USE inventory;")
    return tuple("\n".join(s for s in part.splitlines() if s.strip() not in drop) for part in (setup, stream))


def _masked(text: str | None, prefix: str, database: str) -> str | None:
    if text is None:
        return None
    text = text.replace(f"name={prefix},", "name=dbserver1,").replace(f"db={database},", "db=inventory,")
    for pattern, replacement in _VARYING:
        text = pattern.sub(replacement, text)
    return text


def test_records_are_what_debezium_sends_through_string_converter(mariadb, broker, unique_database, tmp_path):
    database = unique_database(mariadb)
    setup, stream = _sections()
    mariadb.run_sql(setup, database=database)
    prefix = "sc" + uuid.uuid4().hex[:8]
    topic = f"{prefix}.{database}.t"
    broker.create_topics([topic, prefix, f"{prefix}.transaction"])
    source = "debezium.source."
    config = {k[len(source):]: v for k, v in connector_properties(tmp_path, mariadb, broker, database, prefix).items()
              if k.startswith(source)}
    # the harness's settings that show in these records; converter.encoding: the one option StringConverter has
    config.update({"key.converter": STRING, "value.converter": STRING, "value.converter.converter.encoding": "UTF-8",
                   "provide.transaction.metadata": "true"})
    path = tmp_path / "connector.json"
    path.write_text(json.dumps({"name": "string-test", "config": config}))
    proc = ConnectorProcess(list(default_connector_cmd()), path, tmp_path / "s.json", tmp_path / "c.log")
    proc.cmd += ["--kafka", broker.bootstrap_servers]
    proc.start()
    try:
        proc.wait_streaming(120)
        mariadb.run_sql(stream, database=database)
        proc.wait_caught_up(mariadb.binlog_position(), quiet_ms=500, timeout=120)
    finally:
        assert proc.stop() == 0, proc.log_tail()
    ours = [(_masked(r.key and r.key.decode(), prefix, database), _masked(r.value and r.value.decode(), prefix,
                                                                          database))
            for r in consume_all(broker.bootstrap_servers, {topic: 1})]
    expected = [(_masked(e["key"], "dbserver1", "inventory"), _masked(e["value"], "dbserver1", "inventory"))
                for e in map(json.loads, (FIXTURE / "debezium.jsonl").read_text().splitlines())]
    assert len(ours) == len(expected) == 4, ours
    for (key, value), (want_key, want_value) in zip(ours, expected):
        assert key == want_key
        assert value == want_value, f"\nours      {value}\ndebezium  {want_value}"
