"""A fault-injection run: `binlog-cdc run` is killed with SIGKILL many times, at seeded random points of
its initial snapshot and of streaming, while `FaultWriter` commits; optionally the database restarts, the
binlog dump thread is killed (`KILL CONNECTION`) and the broker freezes (SIGSTOP/SIGCONT). Then the topics
are checked (fault_check.py). Everything random comes from `FaultPlan.seed`, and every fault is logged
with it, so a failing run can be replayed: `FaultPlan(seed=...)` with the same counts.
"""
from __future__ import annotations

import json
import os
import signal
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

from tests.conformance.config import KAFKA_OFFSETS, write_properties
from tests.support.connector_process import ConnectorProcess
from tests.support.connector_process import default_connector_cmd
from tests.integration.service.support import kill_dump_threads, restart_in_place, wait_until
from tests.support.connector_config import connector_properties
from tests.support.dbserver import DBZ_USER
from tests.support.fault_check import (
    check_exactly_once,
    check_final_state,
    check_history,
    check_key_order,
    check_replays,
)
from tests.support.fault_workload import SIGNAL_TABLE, TABLES, FaultWriter, create_tables
from tests.support.seeded_run import RunOutcome, SeededRun



# How long a run may make no progress before it is called stuck: a bound for a hung connector, not a speed
# requirement (seen: 120 s ran out for a snapshot kill point at load 35 on the 2-core machine, the connector
# progressing)
STALL_S = 600.0
# The whole wait for the end (the rest of a resumed snapshot included), as long as it progresses: a bound for a
# connector that keeps moving without ever finishing, far above the slowest run seen
CATCH_UP_S = 3600.0

@dataclass(frozen=True)
class FaultPlan:
    seed: int
    snapshot_kills: int = 3
    streaming_kills: int = 7
    exactly_once: bool = False
    preload: int = 20000  # rows per table: long enough a snapshot to kill it several times
    alter_every: int = 150  # writer transactions between ALTER TABLE ... ADD COLUMN
    db_restarts: int = 0
    dump_kills: int = 0
    broker_freezes: int = 0
    max_records_between_kills: int = 400
    # False: no ALTER until streaming began. True: ALTERs while the interrupted snapshot's remainder is read
    # beside streaming (streamed DDL between the chunks)
    alter_during_snapshot: bool = True
    encode_workers: int = 0  # encode.workers: rows events rendered in worker processes
    # False: the default configuration, no signal table: an interrupted snapshot resumes with watermarks that
    # write nothing (GTID sets on MySQL, the chunk view's binlog position on MariaDB: snapshot/incremental/)
    signal_table: bool = True


@dataclass
class FaultOutcome(RunOutcome):
    plan: FaultPlan
    kills: dict[str, int] = field(default_factory=lambda: {"snapshot": 0, "streaming": 0})
    faults: dict[str, int] = field(default_factory=lambda: {"db_restart": 0, "dump_kill": 0, "broker_freeze": 0})
    alters: int = 0

    def summary(self) -> dict[str, Any]:
        return {"seed": self.plan.seed, "exactly_once": self.plan.exactly_once,
                "signal_table": self.plan.signal_table, "kills": self.kills,
                "faults": self.faults, "transactions": self.transactions, "alters": self.alters,
                **self.report.summary()}


class FaultRun(SeededRun):
    """One database, one broker, one plan. `run()` returns the outcome; `outcome.report.violations` empty
    means every check passed."""

    outcome: FaultOutcome

    def __init__(self, server: Any, broker: Any, database: str, workdir: Path, plan: FaultPlan,
                 bootstrap: str | None = None) -> None:
        super().__init__(server, broker, database, workdir, plan.seed, "fault", FaultOutcome(plan), bootstrap)
        self.plan = plan
        self._loaded: Any = None  # the committed offset the running connector started from
        self.streaming_ver: int | None = None
        self.config = workdir / "application.properties"
        self.proc = ConnectorProcess(list(default_connector_cmd()), self.config, workdir / "status.json",
                                     workdir / "connector.log")

    # ------------------------------------------------------------------ set-up
    def _write_config(self) -> None:
        props = connector_properties(self.workdir, self.server, self.broker, self.database, self.prefix,
                                     server_id=5400 + self.plan.seed % 1000)
        props["debezium.sink.kafka.producer.bootstrap.servers"] = self.bootstrap
        if self.plan.signal_table:
            props["debezium.source.signal.data.collection"] = f"{self.database}.{SIGNAL_TABLE}"
        props["debezium.source.table.exclude.list"] = f"{self.database}.{SIGNAL_TABLE}"
        if self.plan.encode_workers:
            props["debezium.source.encode.workers"] = str(self.plan.encode_workers)
        if self.plan.exactly_once:
            del props["debezium.source.offset.storage.file.filename"]
            props.update({"debezium.source.offset.storage": KAFKA_OFFSETS,
                          "debezium.source.offset.storage.topic": f"{self.prefix}-offsets",
                          "debezium.source.offset.storage.partitions": "1",
                          "debezium.source.offset.storage.replication.factor": "1",
                          "debezium.sink.kafka.producer.transactional.id": f"{self.prefix}-txn"})
        write_properties(self.config, props)

    # ------------------------------------------------------------------ faults
    def _status(self) -> dict[str, Any]:
        return self.proc.status() or {}

    def _rows_scanned(self) -> int:
        return sum(((self._status().get("snapshot") or {}).get("RowsScanned") or {}).values())

    def _kill(self, kind: str) -> None:
        status = self._status()
        self.proc.kill()
        self._loaded = status.get("committed_offset")
        self.outcome.kills[kind] += 1
        self._event(f"kill #{sum(self.outcome.kills.values())} ({kind}) in phase {status.get('phase')}, "
                    f"{time.monotonic() - self._started:.1f} s after start, sent {status.get('records_sent')} "
                    f"acked {status.get('records_acked')}")
        if self.plan.exactly_once:
            self._note_view()

    def _wait_progress(self, condition: Callable[[dict[str, Any]], bool], what: str,
                       timeout: float = STALL_S) -> None:
        def ready() -> bool:
            if self.proc._proc is None or self.proc._proc.poll() is not None:
                raise AssertionError(f"connector exited (seed {self.plan.seed}):\n{self.proc.log_tail()}")
            return condition(self._status())
        wait_until(ready, timeout, what, interval=0.02)

    def _first_commit(self, status: dict[str, Any]) -> bool:
        # In exactly-once mode a run is killed only once it committed a transaction: a run that commits
        # none leaves its predecessor's unfinished offset as the newest one Tansu shows (quirk 4), which
        # the next run would load; Apache Kafka would have aborted it.
        return not self.plan.exactly_once or status.get("committed_offset") not in (None, self._loaded)

    def _committed_in_run(self, status: dict[str, Any]) -> bool:
        # A snapshot is killed once an offset saying how far it got is committed (the first one is committed
        # before the first row, snapshot/scan.py): then the restart continues the snapshot (snapshot/remainder.py),
        # which is what these kills test. Killed before, a run leaves no trace but the schema history, and the
        # restart takes a new snapshot, as Debezium (the history then holds each CREATE twice); not checked here.
        return status.get("committed_offset") not in (None, self._loaded)

    def _kill_in_snapshot(self) -> None:
        """Kill while the initial snapshot runs or, after an earlier kill, while its remainder is read beside
        streaming (acknowledged records then count as progress); once it is done, kill as in streaming."""
        target = self.rng.randint(1, max(2, self.plan.preload // 2))
        self._event(f"snapshot kill point: {target} rows into this run")

        def ready(st: dict[str, Any]) -> bool:
            if st.get("phase") != "streaming":
                committed = st.get("committed_offset") or {}
                return self._rows_scanned() >= target and "snapshot_resume_table" in committed
            # whether the remainder is still read shows in this run's committed offsets
            if not self._committed_in_run(st):
                return False
            return not self._in_remainder(st) or st.get("records_acked", 0) >= target

        self._wait_progress(ready, "snapshot kill point")
        status = self._status()
        if status.get("phase") == "streaming" and not self._in_remainder(status):
            self._streaming_began()
            self._kill("streaming")
        else:
            self._kill("snapshot")

    def _in_remainder(self, status: dict[str, Any]) -> bool:
        """The committed offset says the rest of an interrupted snapshot is being read (snapshot/remainder.py)."""
        offset = status.get("committed_offset") or {}
        return offset.get("incremental_snapshot_correlation_id") == "initial-snapshot-resume"

    def _kill_in_streaming(self) -> None:
        self.proc.wait_streaming(120)
        self._streaming_began()
        self._maybe_other_fault()
        # counted in acknowledged records, so that every run gets somewhere before it dies
        target = self._status().get("records_acked", 0) + self.rng.randint(1, self.plan.max_records_between_kills)
        self._event(f"streaming kill point: records_acked >= {target}")
        self._wait_progress(lambda st: st.get("records_acked", 0) >= target and self._first_commit(st),
                            "streaming kill point")
        self._kill("streaming")

    def _maybe_other_fault(self) -> None:
        todo = [(name, n - self.outcome.faults[name]) for name, n in
                (("db_restart", self.plan.db_restarts), ("dump_kill", self.plan.dump_kills),
                 ("broker_freeze", self.plan.broker_freezes))]
        remaining_kills = self.plan.streaming_kills - self.outcome.kills["streaming"]
        todo = [(name, left) for name, left in todo if left > 0]
        if not todo or self.rng.random() > sum(left for _, left in todo) / max(1, remaining_kills):
            return
        name = self.rng.choice([n for n, _ in todo])
        self.outcome.faults[name] += 1
        self._event(f"{name} #{self.outcome.faults[name]}")
        if name == "db_restart":
            self.writer.pause()
            restart_in_place(self.server, down_s=self.rng.uniform(0.2, 1.5))
            self.writer.resume(reconnect=True)
        elif name == "dump_kill":
            kill_dump_threads(self.server, self.server.user)
        else:
            pid = self.broker._proc.pid
            os.kill(pid, signal.SIGSTOP)
            try:
                # the freeze's length is the fault itself, not a wait for a condition
                time.sleep(self.rng.uniform(0.5, 4.0))
            finally:
                os.kill(pid, signal.SIGCONT)

    def _start(self) -> None:
        self._started = time.monotonic()
        self.proc.start()

    def _streaming_began(self) -> None:
        # changes committed after this version are certainly after the snapshot's consistent point
        if self.streaming_ver is None:
            self.streaming_ver = self.writer.version
            self.writer.allow_alters.set()

    # ------------------------------------------------------------------ the run
    def run(self) -> FaultOutcome:
        plan = self.plan
        self._event(f"plan {json.dumps(asdict(plan))}, prefix {self.prefix}")
        histories = create_tables(self.server, self.database, plan.preload, plan.seed)
        # the connector's user writes the watermarks of a resumed snapshot (snapshot/remainder.py), unless the plan
        # is the default configuration (no signal table: nothing is written)
        if plan.signal_table:
            self.server.run_sql("".join(f"GRANT INSERT ON `{self.database}`.{SIGNAL_TABLE} TO '{DBZ_USER}'@'{host}';"
                                        for host in ("127.0.0.1", "localhost")))
        self.broker_topics = [*self.data_topics, self.prefix]
        self.broker.create_topics(self.broker_topics)
        self._write_config()
        self.writer = FaultWriter(self.server, self.database, histories, seed=plan.seed,
                                  alter_every=plan.alter_every)
        if not plan.alter_during_snapshot:
            self.writer.allow_alters.clear()
        self.writer.start()  # before the connector: the snapshot overlaps writes
        try:
            self._start()
            for _ in range(plan.snapshot_kills):
                self._kill_in_snapshot()
                self._start()
            for _ in range(plan.streaming_kills):
                self._kill_in_streaming()
                self._start()
            self.proc.wait_streaming(120)
            self._streaming_began()
            self.writer.stop_requested.set()
            self.writer.running.set()
            self.writer.join(60)
            assert self.writer.error is None, f"writer failed (seed {plan.seed}): {self.writer.error!r}"
            self.proc.wait_caught_up(self.server.binlog_position(), quiet_ms=1000, timeout=CATCH_UP_S, stall_s=STALL_S)
            assert self.proc.stop() == 0, self.proc.log_tail()
        finally:
            self.writer.stop_requested.set()
            self.writer.running.set()
            self.proc.stop(10)
        self.outcome.transactions, self.outcome.alters = self.writer.committed, len(self.writer.alters)
        assert self.streaming_ver is not None
        self._check(histories, self.streaming_ver)
        (self.workdir / "fault_summary.json").write_text(json.dumps(
            {**self.outcome.summary(), "violations": self.outcome.report.violations,
             "events": self.outcome.events,
             "kill_views": [{"killed_at_ms": v.killed_at_ms, "ends": {f"{t}/{p}": o for (t, p), o in v.ends.items()}}
                            for v in self.views]}, indent=1))
        return self.outcome

    def _check(self, histories: dict, streaming_ver: int) -> None:
        report = self.outcome.report
        seen, tables = self._read_back()
        check_final_state(seen, tables, report)
        check_key_order(seen, histories, streaming_ver, report)
        if self.plan.exactly_once:
            check_exactly_once(seen, self.views, report)
        else:
            check_replays(seen, report)
        check_history(self.workdir / "history.jsonl", self.database, TABLES, self.writer.alters, streaming_ver,
                      report)
