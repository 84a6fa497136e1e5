"""Issue 19, item 5 (short form): `binlog-cdc run` killed with SIGKILL 5 times while a writer commits
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

# Enough to pass every kill point (snapshot, remainder, streaming) each run; the many-kill soak is `make faults`.
KILLS = 5

def _seed() -> int:
    return int(os.environ.get("BINLOG_CDC_FAULT_SEED") or random.SystemRandom().randrange(1, 1 << 31))


@pytest.mark.parametrize("snapshot_kills, alter_during_snapshot, encode_workers", [
    pytest.param(0, False, 0, id="streaming"),
    # rows events decoded and rendered in two worker processes: records still reach Kafka in binlog order and
    # offsets cover only what Kafka acknowledged (connector/dispatch/pipelined_sender.py)
    pytest.param(0, False, 2, id="streaming-encode-workers"),
    # kills during the initial snapshot: the restart streams from the interrupted snapshot's position and reads
    # the rest beside it between watermarks (snapshot/remainder.py); with ALTERs while it does ("started-over":
    # an ALTER once made the restart take the snapshot again from scratch, leaving ghost rows)
    pytest.param(3, False, 0, id="snapshot-resumed"),
    pytest.param(3, True, 0, id="snapshot-started-over"),
])
def test_kill_9_five_times(snapshot_kills: int, alter_during_snapshot: bool, encode_workers: int, mariadb, broker,
                          unique_database, tmp_path: Path) -> None:
    seed = _seed()
    print(f"fault seed {seed} (replay: BINLOG_CDC_FAULT_SEED={seed})")
    plan = FaultPlan(seed=seed, snapshot_kills=snapshot_kills, streaming_kills=KILLS - snapshot_kills,
                     preload=8000 if snapshot_kills else 2000, alter_during_snapshot=alter_during_snapshot,
                     alter_every=60 if alter_during_snapshot else 150, encode_workers=encode_workers)
    outcome = FaultRun(mariadb, broker, unique_database(mariadb), tmp_path, plan).run()
    print(outcome.summary())
    assert sum(outcome.kills.values()) == KILLS
    assert outcome.report.records > 0 and outcome.transactions > 50
    assert not outcome.report.violations, (f"seed {seed}: {len(outcome.report.violations)} violations:\n"
                                           + "\n".join(outcome.report.violations[:20]))
