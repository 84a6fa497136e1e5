"""What the seeded fault runs share (fault_run.FaultRun: kill -9 and other faults; ha_run.HaRun: failovers between
instances): one database and broker, a topic prefix of its own, everything random drawn from the plan's seed and
every event logged with it, the committed ends of the topics at each fault (exactly-once's views), and the topics
read back at the end with the tables' final state beside them."""
from __future__ import annotations

import json
import logging
import random
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.fault_check import KillView, Report, Seen, parse_records
from tests.support.fault_workload import TABLES
from tests.support.kafka_dump import consume_all

log = logging.getLogger(__name__)


@dataclass(kw_only=True)
class RunOutcome:
    """What every seeded run reports; each run's outcome adds its own counts (and its plan, first)."""

    transactions: int = 0
    events: list[str] = field(default_factory=list)
    report: Report = field(default_factory=Report)


def committed_ends(bootstrap: str, topics: list[str], since: dict[tuple[str, int], int]) -> dict[tuple[str, int], int]:
    """Next offset after the last record a read_committed consumer sees now, per single-partition topic,
    reading on from `since`."""
    ends = {(t, 0): since.get((t, 0), 0) for t in topics}
    for r in consume_all(bootstrap, {t: 1 for t in topics}, timeout=120, start=ends):
        ends[(r.topic, r.partition)] = max(ends[(r.topic, r.partition)], r.offset + 1)
    return ends


class SeededRun:
    def __init__(self, server: Any, broker: Any, database: str, workdir: Path, seed: int, prefix: str,
                 outcome: RunOutcome, bootstrap: str | None = None) -> None:
        self.server, self.broker, self.database, self.workdir, self.seed = server, broker, database, workdir, seed
        self.outcome = outcome
        self.bootstrap = bootstrap or broker.bootstrap_servers
        self.rng = random.Random(seed)
        self.prefix = f"{prefix}{uuid.uuid4().hex[:8]}"
        self.data_topics = {f"{self.prefix}.{database}.{t}": t for t in TABLES}
        self.views: list[KillView] = []  # the committed ends at each fault
        self._ends: dict[tuple[str, int], int] = {}

    def _event(self, text: str) -> None:
        line = f"[seed {self.seed}] {text}"
        log.info(line)
        self.outcome.events.append(line)

    def _note_view(self) -> KillView:
        """A fault now: what a read_committed consumer sees of the data topics at this point."""
        self._ends = committed_ends(self.bootstrap, list(self.data_topics), self._ends)
        view = KillView(int(time.time() * 1000), dict(self._ends))
        self.views.append(view)
        return view

    def _read_back(self) -> tuple[list[Seen], dict[str, list[dict[str, Any]]]]:
        """Every record of the data topics (also written to records.jsonl, to diagnose a failure), and each
        table's rows now."""
        seen = parse_records(consume_all(self.bootstrap, {t: 1 for t in self.data_topics}, timeout=180),
                             self.data_topics)
        self.outcome.report.records = len(seen)
        with open(self.workdir / "records.jsonl", "w", encoding="utf-8") as out:
            out.writelines(json.dumps([s.topic, s.offset, s.run[:8], s.timestamp_ms, s.table, s.key, s.op, s.ver])
                           + "\n" for s in seen)
        return seen, {t: self._rows(t) for t in TABLES}

    def _rows(self, table: str) -> list[dict[str, Any]]:
        conn = self.server.connect(self.database)
        try:
            with conn.cursor() as cur:
                cur.execute(f"SELECT * FROM {table}")
                columns = [d[0] for d in cur.description]
                return [dict(zip(columns, row)) for row in cur.fetchall()]
        finally:
            conn.close()
