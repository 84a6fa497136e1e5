"""An HA fault run (issue 28, item 4): `binlog-cdc run` as an active instance and a standby (ha.enabled, exactly-once),
while `FaultWriter` commits; the active instance is, in turn, killed with SIGKILL or frozen with SIGSTOP past the
takeover and resumed (it must step down, exit code 3), and a fresh standby is started after each failover. Measured:
the takeover time (the active one gone to another one answering role=active) and the number of instances that said
they were active at once. Then the topics are checked as a kill run's (fault_check.py: nothing lost, per-key order,
exactly-once for read_committed) and for two writers: the records of each run (its runId header) must lie in a time
span no other run's records overlap. Seeded like fault_run.py."""
from __future__ import annotations

import itertools
import json
import os
import signal
import statistics
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tests.support.connector_config import connector_properties
from tests.support.fault_check import (
    KillView,
    Report,
    Seen,
    check_exactly_once,
    check_final_state,
    check_key_order,
)
from tests.support.fault_run import STALL_S
from tests.support.fault_workload import FaultWriter, create_tables
from tests.support.ha_instances import Instance, active_of, ha_properties
from tests.support.seeded_run import RunOutcome, SeededRun
from tests.support.waiting import wait_until



@dataclass(frozen=True)
class HaPlan:
    seed: int
    failovers: int = 6  # alternately kill -9 and SIGSTOP (then SIGCONT) of the active instance
    takeover_ms: int = 10000
    preload: int = 2000  # rows per table
    max_records_between: int = 400  # acknowledged records between two failovers (random up to this)


@dataclass
class HaOutcome(RunOutcome):
    plan: HaPlan
    failovers: dict[str, int] = field(default_factory=lambda: {"kill": 0, "freeze": 0})
    takeover_s: list[float] = field(default_factory=list)  # the fault to a standby answering role=active
    first_write_s: list[float] = field(default_factory=list)  # the fault to the new active one's first record
    max_active_at_once: int = 0

    def summary(self) -> dict[str, Any]:
        t, w = sorted(self.takeover_s), sorted(self.first_write_s)
        return {"seed": self.plan.seed, "takeover_ms": self.plan.takeover_ms, "failovers": self.failovers,
                "takeover_p50_s": round(statistics.median(t), 2) if t else None,
                "takeover_max_s": round(t[-1], 2) if t else None,
                "first_write_p50_s": round(statistics.median(w), 2) if w else None,
                "first_write_max_s": round(w[-1], 2) if w else None,
                "over_bound": sum(1 for x in [*t, *w] if x * 1000 > self.plan.takeover_ms),
                "max_active_at_once": self.max_active_at_once, "transactions": self.transactions,
                **self.report.summary()}


def check_one_writer(seen: list[Seen], report: Report) -> None:
    """Never two active writers: the spans [first, last record time] of the runs do not overlap."""
    spans: dict[str, list[int]] = {}
    for s in seen:
        span = spans.setdefault(s.run, [s.timestamp_ms, s.timestamp_ms])
        span[0], span[1] = min(span[0], s.timestamp_ms), max(span[1], s.timestamp_ms)
    ordered = sorted(spans.items(), key=lambda kv: kv[1][0])
    for (run_a, (_, end_a)), (run_b, (start_b, _)) in itertools.pairwise(ordered):
        if start_b <= end_a:
            report.fail(f"two writers at once: run {run_b[:8]} wrote from {start_b} while run {run_a[:8]} wrote "
                        f"until {end_a}")


def first_writes(seen: list[Seen], views: list[KillView]) -> list[float]:
    """Per failover, the seconds from the fault to the first record of the run that took over (the records' create
    times, the producers' clocks: one machine here)."""
    first: dict[str, int] = {}
    for s in seen:
        first[s.run] = min(first.get(s.run, s.timestamp_ms), s.timestamp_ms)
    starts = sorted(first.values())
    out = []
    for view in sorted(views, key=lambda v: v.killed_at_ms):
        first = next((t for t in starts if t > view.killed_at_ms), None)
        if first is not None:
            out.append((first - view.killed_at_ms) / 1000)
    return out


class HaRun(SeededRun):
    outcome: HaOutcome

    def __init__(self, server: Any, broker: Any, database: str, workdir: Path, plan: HaPlan,
                 bootstrap: str | None = None) -> None:
        super().__init__(server, broker, database, workdir, plan.seed, "ha", HaOutcome(plan), bootstrap)
        self.plan = plan
        self.instances: list[Instance] = []

    def _start(self) -> Instance:
        inst = Instance(self.workdir, f"i{len(self.instances)}", self.props)
        self.instances.append(inst)
        return inst

    def _live(self) -> list[Instance]:
        return [i for i in self.instances if i.proc._proc is not None and i.proc._proc.poll() is None]

    def _count_active(self) -> int:
        n = sum(1 for i in self._live() if not i.frozen and i.health().get("role") == "active")
        self.outcome.max_active_at_once = max(self.outcome.max_active_at_once, n)
        return n

    def _failover(self, kind: str) -> None:
        active = active_of(self._live())
        assert active is not None, "no active instance"
        st = active.proc.status() or {}
        loaded = st.get("committed_offset")
        target = st.get("records_acked", 0) + self.rng.randint(1, self.plan.max_records_between)
        # a run is failed over only once it committed a transaction of its own (as fault_run.py's kills: on Tansu
        # an unfinished transaction of the run before would otherwise be the newest offset)
        wait_until(lambda: (s := active.proc.status() or {}).get("records_acked", 0) >= target
                   and s.get("committed_offset") not in (None, loaded), STALL_S, "progress before the failover",
                   interval=0.02, state=active.proc.status)
        if kind == "kill":
            active.proc.kill()
        else:
            os.kill(active.proc.pid, signal.SIGSTOP)
            active.frozen = True
        gone = time.monotonic()
        view = self._note_view()
        self._event(f"{kind} of {active.name} at {view.killed_at_ms}: committed ends {view.ends}")
        self.outcome.failovers[kind] += 1
        wait_until(lambda: self._count_active() == 1, STALL_S, "a takeover",
                   state=lambda: {i.name: i.health() for i in self._live()})
        took = time.monotonic() - gone
        self.outcome.takeover_s.append(took)
        self._event(f"{kind} of {active.name}: a standby took over after {took:.1f} s")
        if kind == "freeze":
            # past the takeover: the new active instance fenced the old one (init_transactions) and streams
            new = active_of(self._live())
            assert new is not None
            new.proc.wait_streaming(STALL_S)
            time.sleep(self.rng.uniform(0, 2))  # the freeze's length past the takeover is the fault itself
            os.kill(active.proc.pid, signal.SIGCONT)
            active.frozen = False
            rc = active.proc.wait_exit(60)
            stepped = [ln for ln in active.proc.run_log().splitlines() if "stepped down" in ln]
            if rc != 3 or len(stepped) != 1:
                self.outcome.report.fail(f"{active.name} resumed after the takeover: exit {rc}, "
                                         f"{len(stepped)} step-down lines:\n{active.proc.log_tail(10)}")
        self._start().wait_role("standby", STALL_S)
        self._count_active()

    def run(self) -> HaOutcome:
        plan = self.plan
        self._event(f"plan {json.dumps(asdict(plan))}, prefix {self.prefix}")
        histories = create_tables(self.server, self.database, plan.preload, plan.seed)
        self.broker.create_topics([*self.data_topics, self.prefix, f"{self.prefix}-offsets",
                                   f"{self.prefix}-history"])
        base = connector_properties(self.workdir, self.server, self.broker, self.database, self.prefix,
                                    server_id=5400 + plan.seed % 1000)
        base["debezium.sink.kafka.producer.bootstrap.servers"] = self.bootstrap
        self.props = ha_properties(base, self.prefix, self.bootstrap, plan.takeover_ms)
        writer = FaultWriter(self.server, self.database, histories, seed=plan.seed, alter_every=0)
        writer.start()
        try:
            first = self._start()
            first.wait_role("active", STALL_S)
            first.proc.wait_streaming(STALL_S)
            streaming_ver = writer.version
            self._start().wait_role("standby", STALL_S)
            for n in range(plan.failovers):
                self._failover("kill" if n % 2 == 0 else "freeze")
            writer.stop_requested.set()
            writer.running.set()
            writer.join(60)
            assert writer.error is None, f"writer failed (seed {plan.seed}): {writer.error!r}"
            active = active_of(self._live())
            assert active is not None
            wait_until(lambda: active.caught_up(self.server), STALL_S, "caught up", state=active.proc.status)
            for inst in self._live():
                if inst.proc.stop() != 0:
                    self.outcome.report.fail(f"{inst.name} did not stop cleanly:\n{inst.proc.log_tail(10)}")
        finally:
            writer.stop_requested.set()
            writer.running.set()
            for inst in self.instances:
                if inst.frozen and inst.proc.pid is not None:
                    os.kill(inst.proc.pid, signal.SIGCONT)
                inst.proc.stop(10)
        self.outcome.transactions = writer.committed
        self._check(histories, streaming_ver)
        (self.workdir / "ha_summary.json").write_text(json.dumps(
            {**self.outcome.summary(), "violations": self.outcome.report.violations,
             "events": self.outcome.events}, indent=1))
        return self.outcome

    def _check(self, histories: dict, streaming_ver: int) -> None:
        report = self.outcome.report
        seen, tables = self._read_back()
        check_final_state(seen, tables, report)
        check_key_order(seen, histories, streaming_ver, report)
        check_exactly_once(seen, self.views, report)
        check_one_writer(seen, report)
        self.outcome.first_write_s = first_writes(seen, self.views)
