"""Issue 28, items 1 and 2: the default configuration (no signal table) killed with SIGKILL during its initial
snapshot while a writer updates, inserts and deletes rows (during the snapshot and while the connector is down),
restarted each time. The interrupted snapshot resumes where it stopped, beside streaming, between watermarks that
write nothing (MySQL: executed GTID sets; MariaDB: the chunk query's consistent view and its binlog position;
snapshot/incremental/). Then every topic replayed equals the tables: nothing lost, no ghost row, per key every
change in commit order; at-least-once re-sends only the window after the last committed offset, and exactly-once
shows no record twice to a read_committed consumer (on Tansu: no committed offset covers a record of an unfinished
transaction, tests/support/fault_check.py). Nothing is written to the database: the signal table stays empty.

Replay a failure with `BINLOG_CDC_FAULT_SEED=<seed>`; the long form is `make faults` (bench/faults.py --default-config).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.faults.test_kill9 import _seed
from tests.support.fault_run import FaultPlan, FaultRun
from tests.support.fault_workload import SIGNAL_TABLE

pytestmark = pytest.mark.timeout(600)


@pytest.mark.parametrize("server_name", ["mariadb", "mysql"])
@pytest.mark.parametrize("exactly_once", [False, True], ids=["at-least-once", "exactly-once"])
def test_kill_9_in_the_snapshot_without_a_signal_table(server_name: str, exactly_once: bool, request, broker,
                                                        unique_database, tmp_path: Path) -> None:
    server = request.getfixturevalue(server_name)
    seed = _seed()
    print(f"fault seed {seed} (replay: BINLOG_CDC_FAULT_SEED={seed})")
    plan = FaultPlan(seed=seed, snapshot_kills=3, streaming_kills=1, exactly_once=exactly_once, preload=8000,
                     alter_during_snapshot=False, alter_every=150, signal_table=False)
    database = unique_database(server)
    outcome = FaultRun(server, broker, database, tmp_path, plan).run()
    print(outcome.summary())
    # a kill point past the end of the snapshot becomes a streaming kill
    assert sum(outcome.kills.values()) == 4 and outcome.kills["snapshot"] >= 2, outcome.events
    assert outcome.report.records > 0 and outcome.transactions > 50
    assert not outcome.report.violations, (f"seed {seed}: {len(outcome.report.violations)} violations:\n"
                                           + "\n".join(outcome.report.violations[:20]))
    log = (tmp_path / "connector.log").read_text(errors="replace")
    assert "Resuming the interrupted snapshot as an incremental snapshot" in log, log[-3000:]
    assert "starting it again" not in log and "taking the snapshot again" not in log
    assert not server.query(f"SELECT * FROM {SIGNAL_TABLE}", database=database), "the connector wrote watermarks"
