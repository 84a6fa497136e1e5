"""Issue 28: a standby prepares its start while it waits (Kafka producer, database connection and checks, offsets and
schema history read: connector/daemon.py `StandbyStart`), so that its first record comes soon after the takeover.
What it read may be stale by then: the active instance went on committing offsets and recording DDL. After the fence
it must start from what the active one committed last, with the schema of the last DDL, not from what it read while
waiting: a change the active instance committed after the standby prepared is not written twice (exactly-once), and
rows after an ALTER recorded meanwhile carry the new column.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.integration.service.support import new_prefix
from tests.support.ha_instances import Instance, items_table_config
from tests.support.kafka_dump import consume_all
from tests.support.waiting import wait_until

pytestmark = pytest.mark.timeout(300)

TAKEOVER_MS = 9000  # the lease session is 3.6 s (40%; Tansu has no group.min.session.timeout.ms)
KEYS = 5


def test_a_standby_prepared_before_offsets_and_ddl_moved_starts_from_the_last_commit(
        mariadb, broker, unique_database, tmp_path: Path) -> None:
    server, database, prefix = mariadb, unique_database(mariadb), new_prefix("hp")
    topic, props = items_table_config(server, broker, database, prefix, tmp_path, KEYS, 6110, TAKEOVER_MS)
    instances: list[Instance] = []
    try:
        a = Instance(tmp_path, "a", props)
        instances.append(a)
        a.wait_role("active", 60)
        a.proc.wait_streaming(60)
        b = Instance(tmp_path, "b", props)
        instances.append(b)
        b.wait_role("standby", 60)
        wait_until(lambda: (b.proc.status() or {}).get("prepared") is True, 60, "b prepared its start",
                   state=b.proc.status)
        # after b prepared: an offset commit and a DDL record it has not seen
        server.run_sql("UPDATE items SET v = 1", database=database)
        server.run_sql("ALTER TABLE items ADD COLUMN w INT NOT NULL DEFAULT 7", database=database)
        wait_until(lambda: a.caught_up(server), 60, "a caught up", state=a.proc.status)
        a.proc.kill()  # kill -9 the active instance
        wait_until(lambda: b.role() == "active", 60, "b took over", state=b.health)
        server.run_sql("UPDATE items SET v = 2, w = 8", database=database)
        wait_until(lambda: b.caught_up(server), 60, "b caught up", state=b.proc.status)
        assert b.proc.stop() == 0, b.proc.log_tail()
    finally:
        for inst in instances:
            inst.proc.stop(10)
    log = b.proc.run_log()
    assert "is ready to take over" in log, b.proc.log_tail(40)

    afters = [json.loads(rec.value)["payload"]["after"]
              for rec in consume_all(broker.bootstrap_servers, {topic: 1}, timeout=60) if rec.value is not None]
    for key in range(KEYS):
        images = [image for image in afters if image["id"] == key]
        # v=1 was committed by a after b prepared: b must not send it again (it starts after a's last commit)
        assert [image["v"] for image in images] == [0, 1, 2], (key, images)
        # b decodes its rows with the ALTER a recorded after b read the history
        assert images[-1].get("w") == 8, (key, images)
