"""Issue 19, item 5 (short form): `binlog-cdc run` killed with SIGKILL 10 times while a writer commits
inserts, updates, deletes, multi-table transactions and an occasional ALTER TABLE ADD COLUMN; restarted each
time; then the topics alone must show nothing lost, per key every change in commit order, duplicates only
as the replay of a restart's uncommitted window, and a sound schema history (tests/support/fault_check.py).

The seed is random per run unless BINLOG_CDC_FAULT_SEED is set; it is printed and in every violation, so
a failure replays with `BINLOG_CDC_FAULT_SEED=<seed> pytest tests/integration/faults`. The long form
(>= 50 kills, exactly-once, MySQL 9, database restarts, dump-thread kills, a frozen broker) is
`make faults` (bench/faults.py).
"""
from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from tests.support.fault_run import FaultPlan, FaultRun

pytestmark = pytest.mark.timeout(420)

KNOWN_SNAPSHOT_RESUME = (
    "known issue: a snapshot resumed after a kill reads the rest of the tables at a new consistent point "
    "while streaming restarts from the old binlog position, so a key's changes can arrive out of order "
    "(being rebuilt by another engineer); the check stays strict. Seen with it: the resumed snapshot records "
    "each table's CREATE in the schema history again, and its re-read skips rows deleted meanwhile")
SNAPSHOT_STARTED_OVER = (
    "found by this test: an ALTER during an interrupted snapshot makes the restart take the snapshot again "
    "from scratch at a new position; rows the interrupted attempt emitted and that were deleted before the "
    "new position never get a delete (ghost rows), and each attempt records CREATEs in the schema history "
    "again; plus the known resume reordering")


def _seed() -> int:
    return int(os.environ.get("BINLOG_CDC_FAULT_SEED") or random.SystemRandom().randrange(1, 1 << 31))


@pytest.mark.parametrize("snapshot_kills, alter_during_snapshot", [
    pytest.param(0, False, id="streaming"),
    pytest.param(3, False, id="snapshot-resumed",
                 marks=pytest.mark.xfail(strict=False, reason=KNOWN_SNAPSHOT_RESUME)),
    pytest.param(3, True, id="snapshot-started-over",
                 marks=pytest.mark.xfail(strict=False, reason=SNAPSHOT_STARTED_OVER)),
])
def test_kill_9_ten_times(snapshot_kills: int, alter_during_snapshot: bool, mariadb, broker, unique_database,
                          tmp_path: Path) -> None:
    seed = _seed()
    print(f"fault seed {seed} (replay: BINLOG_CDC_FAULT_SEED={seed})")
    plan = FaultPlan(seed=seed, snapshot_kills=snapshot_kills, streaming_kills=10 - snapshot_kills,
                     preload=12000 if snapshot_kills else 2000, alter_during_snapshot=alter_during_snapshot,
                     alter_every=60 if alter_during_snapshot else 150)
    outcome = FaultRun(mariadb, broker, unique_database(mariadb), tmp_path, plan).run()
    print(outcome.summary())
    assert sum(outcome.kills.values()) == 10
    assert outcome.report.records > 0 and outcome.transactions > 50
    assert not outcome.report.violations, (f"seed {seed}: {len(outcome.report.violations)} violations:\n"
                                           + "\n".join(outcome.report.violations[:20]))
