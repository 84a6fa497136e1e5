"""Partial JSON updates (`binlog_row_value_options=PARTIAL_JSON`, MySQL writes PARTIAL_UPDATE_ROWS_EVENT): Debezium
3.6.3 emits nothing for them (issue 24: six UPDATEs, zero records); binlog-cdc emits each with its full before and
after image. The same UPDATEs run on two identical tables, one session with the option and one without: the two
topics' records must be the same, record for record, and the binlog must really hold partial events."""
from __future__ import annotations

import json

import pytest

from tests.integration.service.support import connector_config, new_prefix, start_connector
from tests.support.kafka_dump import consume_all
from tests.support.waiting import PROCESS_BOUND_S

pytestmark = [pytest.mark.timeout(240), pytest.mark.mysql]

PAD = "p" * 300  # a diff must be smaller than the document, or MySQL logs the whole document
SETUP = """
CREATE TABLE TNAME (id INT PRIMARY KEY, note VARCHAR(20), doc JSON, doc2 JSON);
INSERT INTO TNAME VALUES
  (1, 'one', '{"name": "a", "n": 1, "tags": ["x", "y", "z"], "nested": {"k": 1.5, "s": "été"},
               "a b": true, "pad": "PAD"}', '[1, 2, 3]'),
  (2, 'two', '{"name": "b", "n": 2, "tags": ["x", "y"], "nested": {"k": -3, "big": 12345678901234}, "pad": "PAD"}',
   '[10, {"deep": [1, 2]}, "PAD"]'),
  (3, 'three', '{"name": "c", "tags": ["x"], "a b": null, "d": 1.25E300, "pad": "PAD"}', NULL);
""".replace("PAD", PAD)
UPDATES = [
    "UPDATE {t} SET doc = JSON_SET(doc, '$.n', 2) WHERE id = 1",  # replace a number
    "UPDATE {t} SET doc = JSON_SET(doc, '$.new', 'v', '$.nested.k', 2.25) WHERE id = 1",  # insert + replace
    "UPDATE {t} SET doc = JSON_SET(doc, '$.aa', 1) WHERE id = 1",  # a short key: sorts before the longer ones
    "UPDATE {t} SET doc = JSON_REPLACE(doc, '$.tags[1]', 'Y'), note = 'two!' WHERE id = 2",  # and another column
    "UPDATE {t} SET doc = JSON_REMOVE(doc, '$.tags[0]', '$.\"a b\"') WHERE id = 3",  # a quoted key
    "UPDATE {t} SET doc = JSON_SET(doc, '$.n', 100) WHERE id IN (1, 2)",  # two rows in one event
    "UPDATE {t} SET doc = JSON_SET(doc, '$.z', JSON_OBJECT('q', 1)), doc2 = JSON_SET(doc2, '$[1].deep[0]', 'é') "
    "WHERE id = 2",  # two JSON columns, a nested array
    "UPDATE {t} SET doc = JSON_SET(doc, '$.tags[5]', 'appended') WHERE id = 1",  # past the end: appended
    "UPDATE {t} SET doc = JSON_REMOVE(doc, '$.nested') WHERE id = 2",
    "UPDATE {t} SET doc = JSON_SET(doc, '$.d', 0.5) WHERE id = 3",
]


def _records(broker, topic: str) -> list[dict]:
    return [json.loads(r.value)["payload"] for r in consume_all(broker.bootstrap_servers, {topic: 1})
            if r.value is not None]


def test_partial_json_updates_are_emitted_with_full_images(mysql, broker, unique_database, tmp_path) -> None:
    database = unique_database(mysql)
    for table in ("t_full", "t_partial"):
        mysql.run_sql(SETUP.replace("TNAME", table), database=database)
    prefix = new_prefix("pjson")
    topics = {name: f"{prefix}.{database}.{name}" for name in ("t_full", "t_partial")}
    broker.create_topics([*topics.values(), prefix])
    config = connector_config(tmp_path, mysql, broker, database, prefix)
    proc = start_connector(tmp_path, config)
    start_file, start_pos = mysql.binlog_position()
    mysql.run_sql("".join(u.format(t="t_full") + ";\n" for u in UPDATES), database=database)
    mysql.run_sql("SET SESSION binlog_row_value_options = 'PARTIAL_JSON';\n"
                  + "".join(u.format(t="t_partial") + ";\n" for u in UPDATES), database=database)
    proc.wait_caught_up(mysql.binlog_position(), quiet_ms=300, timeout=PROCESS_BOUND_S)
    assert proc.stop() == 0, proc.log_tail()

    kinds = [row[2] for row in mysql.query(f"SHOW BINLOG EVENTS IN '{start_file}' FROM {start_pos}")]
    partial_events = kinds.count("Update_rows_partial")
    assert partial_events == len(UPDATES), kinds  # or the test would prove nothing

    full = [r for r in _records(broker, topics["t_full"]) if r["op"] == "u"]
    partial = [r for r in _records(broker, topics["t_partial"]) if r["op"] == "u"]
    assert len(full) == len(UPDATES) + 1  # one UPDATE changes two rows
    assert len(partial) == len(full), "a partial JSON update is missing"
    for n, (want, got) in enumerate(zip(full, partial)):
        assert (got["before"], got["after"]) == (want["before"], want["after"]), f"update {n}"
    final = {r["after"]["id"]: r["after"] for r in partial}
    for row_id, doc in mysql.query(f"SELECT id, doc FROM `{database}`.t_partial"):
        assert json.loads(final[row_id]["doc"]) == json.loads(doc)  # and the server agrees on the result
