"""Issue 28, item 3: `binlog-cdc run` started on several "machines" (processes with their own status and log) with the
same configuration: one streams, the others wait as standbys (ha.enabled, a consumer group on the lease topic).
kill -9 the active one: a standby takes over from the committed offsets within ha.takeover.ms. Freeze the new active
one (SIGSTOP) past the takeover, let the third take over, resume it (SIGCONT): it writes nothing more (its
transactional.id epoch is fenced; the rows written after the takeover are in the topic exactly once) and exits with
one line and code 3. The topic then holds every change of every key, in order (replays of an uncommitted tail
allowed: Tansu makes a fenced instance's open transaction visible where Apache Kafka aborts it, docs/TESTING.md).
"""
from __future__ import annotations

import itertools
import json
import os
import signal
import time
from pathlib import Path

import pytest

from tests.integration.service.support import metric, new_prefix, scrape
from tests.support.ha_instances import Instance, items_table_config
from tests.support.kafka_dump import consume_all
from tests.support.waiting import wait_until

pytestmark = pytest.mark.timeout(300)

TAKEOVER_MS = 9000  # the lease session is 3.6 s (40%; Tansu has no group.min.session.timeout.ms)
KEYS = 20


def _write(server, database: str, rounds: int) -> None:
    """Each round: every key's v goes up by one (a transaction per round)."""
    for _ in range(rounds):
        server.run_sql("UPDATE items SET v = v + 1", database=database)


def _takeover(standbys: list[Instance]) -> tuple[float, Instance]:
    """Seconds until one of `standbys` is active (measured from now, the moment the active one died or froze)."""
    since = time.monotonic()
    active = wait_until(lambda: next((i for i in standbys if i.role() == "active"), None), 60, "a takeover",
                        state=lambda: {i.name: i.health() for i in standbys})
    return time.monotonic() - since, active


def test_standby_takes_over_and_a_frozen_active_is_fenced(mariadb, broker, unique_database, tmp_path: Path) -> None:
    server, database, prefix = mariadb, unique_database(mariadb), new_prefix("ha")
    topic, props = items_table_config(server, broker, database, prefix, tmp_path, KEYS, 6100, TAKEOVER_MS)
    instances: list[Instance] = []
    try:
        a = Instance(tmp_path, "a", props)
        instances.append(a)
        a.wait_role("active", 60)
        a.proc.wait_streaming(60)
        instances += [Instance(tmp_path, "b", props), Instance(tmp_path, "c", props)]
        for standby in instances[1:]:
            standby.wait_role("standby", 60)
        _write(server, database, 3)
        assert a.role() == "active"  # standbys joining leave the lease where it is
        # the metrics say who is active too
        assert [metric(scrape(i.port)[1], "HaActive") for i in instances] == [1, 0, 0]

        a.proc.kill()  # kill -9 the active instance
        first_takeover, b = _takeover(instances[1:])
        _write(server, database, 3)
        wait_until(lambda: b.caught_up(server), 60, "caught up after the first takeover", state=b.proc.status)

        os.kill(b.proc.pid, signal.SIGSTOP)  # freeze the active one past the takeover
        try:
            second_takeover, c = _takeover([i for i in instances[1:] if i is not b])
            wait_until(lambda: c.caught_up(server), 60, "caught up after the second takeover", state=c.proc.status)
            _write(server, database, 2)  # b read none of these before its freeze
            wait_until(lambda: c.caught_up(server), 60, "the last changes acknowledged", state=c.proc.status)
        finally:
            os.kill(b.proc.pid, signal.SIGCONT)
        assert b.proc.wait_exit(60) == 3, b.proc.log_tail()
        lines = [ln for ln in b.proc.run_log().splitlines() if "stepped down" in ln]
        assert len(lines) == 1 and "another instance is active" in lines[0], b.proc.log_tail(40)
        assert c.role() == "active"
        assert c.proc.stop() == 0, c.proc.log_tail()
    finally:
        for inst in instances:
            inst.proc.stop(10)
    print(f"takeover after kill -9: {first_takeover:.1f} s, after SIGSTOP: {second_takeover:.1f} s "
          f"(ha.takeover.ms={TAKEOVER_MS})")
    # a bound with room for a loaded machine: the figures against ha.takeover.ms are bench/faults.py's
    assert max(first_takeover, second_takeover) < TAKEOVER_MS / 1000 * 2

    final = dict(server.query("SELECT id, v FROM items", database=database))
    seen: dict[int, list[int]] = {k: [] for k in range(KEYS)}
    for rec in consume_all(broker.bootstrap_servers, {topic: 1}, timeout=60):
        if rec.value is not None:
            after_image = json.loads(rec.value)["payload"]["after"]
            seen[after_image["id"]].append(after_image["v"])
    for key, values in seen.items():
        assert sorted(set(values)) == list(range(final[key] + 1)), (key, values)  # nothing lost
        # in order: each value follows the one before, or starts a replay of an uncommitted tail
        assert all(n == p + 1 or n <= p for p, n in itertools.pairwise(values)), (key, values)
        # the rows changed after the second takeover were written once, by c: the fenced b wrote nothing
        assert values.count(final[key]) == 1 and values.count(final[key] - 1) == 1, (key, values)
