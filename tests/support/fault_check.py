"""Checks of a fault-injection run, from the topics alone (plus the writer's per-key histories and a SELECT).

* nothing lost: the state rebuilt per key from the topics equals the tables; every change of a key after
  the first one the topics show for it, and every change committed after streaming began, is there;
* order: per key, the changes arrive in commit order (versions, see fault_workload.py);
* at-least-once: a record seen twice is a replay after a restart (another run, told apart by the
  `__debezium.context.runId` header): per topic, a run's duplicates are the first records it wrote, and
  they repeat, in order, the records just before that run. A snapshot read (op=r) a later run sends again
  is a re-read, not a replay: a restart reads the rest of an interrupted snapshot in chunks beside
  streaming (snapshot/remainder.py), so the rows its predecessor sent but did not commit come again where
  their chunk falls, after the replayed changes; the order checks judge where each key's read lands;
* exactly-once: records that were not visible to a read_committed consumer right after their run was
  killed belong to the run's unfinished transaction. Apache Kafka aborts those; Tansu shows them once
  the next run starts (infra.md, quirk 4). Without them the topics must hold every change exactly once,
  and each of them must be written again by a later run, i.e. no committed offset covered it;
* schema history: one CREATE per table, the ALTERs in the order they ran (a replayed one repeats the same
  position), and every line parses.
"""
from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from tests.support.fault_workload import KeyHistory
from tests.support.kafka_dump import KafkaRecord

RUN_ID_HEADER = "__debezium.context.runId"


@dataclass(frozen=True)
class Seen:
    """A data record as the checks need it."""
    topic: str
    partition: int
    offset: int
    timestamp_ms: int
    run: str
    table: str
    key: int
    op: str
    ver: int
    after: Mapping[str, Any] | None

    @property
    def replay_id(self) -> tuple[str, int, str, int]:
        # a snapshot read is one read of the row whatever its version: reading it again is a re-read
        return (self.table, self.key, self.op, -1 if self.op == "r" else self.ver)

    @property
    def change_id(self) -> tuple[str, int, str, int]:
        return (self.table, self.key, self.op, self.ver)


@dataclass(frozen=True)
class KillView:
    """What a read_committed consumer saw right after a kill: {(topic, partition): next offset}."""
    killed_at_ms: int
    ends: Mapping[tuple[str, int], int]


@dataclass
class Report:
    records: int = 0
    runs: int = 0
    duplicates: int = 0
    replay_windows: int = 0
    unfinished: int = 0
    reorders: int = 0
    rereads: int = 0
    violations: list[str] = field(default_factory=list)

    def fail(self, message: str) -> None:
        self.violations.append(message)

    def kinds(self) -> dict[str, int]:
        """Violations counted by kind (the text before the first colon)."""
        out: dict[str, int] = defaultdict(int)
        for v in self.violations:
            out[v.split(":", 1)[0]] += 1
        return dict(out)

    def summary(self) -> dict[str, Any]:
        return {"records": self.records, "runs": self.runs, "duplicates": self.duplicates,
                "replay_windows": self.replay_windows, "unfinished_txn_records": self.unfinished,
                "reorders": self.reorders, "rereads": self.rereads, "violations": len(self.violations),
                "violation_kinds": self.kinds()}


def parse_records(records: Iterable[KafkaRecord], tables: Mapping[str, str]) -> list[Seen]:
    """The data records of `tables` ({topic: table}), tombstones left out."""
    out = []
    for r in records:
        table = tables.get(r.topic)
        if table is None or r.value is None:
            continue
        payload = json.loads(r.value)["payload"]
        run = next((json.loads(v)["payload"] for k, v in r.headers if k == RUN_ID_HEADER and v), "?")
        row = payload["after"] if payload["after"] is not None else payload["before"]
        out.append(Seen(r.topic, r.partition, r.offset, r.timestamp_ms, run, table, json.loads(r.key)["payload"]["id"],
                        payload["op"], row["ver"], payload["after"]))
    return out


def check_final_state(seen: Sequence[Seen], tables: Mapping[str, list[dict[str, Any]]], report: Report) -> None:
    """Replaying the topics in order gives the tables. A column added later shows only in rows changed since,
    so a rebuilt row is compared on the columns it has; the rest must be the table's defaults."""
    state: dict[tuple[str, int], Mapping[str, Any]] = {}
    for s in seen:
        if s.op == "d":
            state.pop((s.table, s.key), None)
        else:
            state[(s.table, s.key)] = s.after  # type: ignore[assignment]
    for table, rows in tables.items():
        actual = {k: v for (t, k), v in state.items() if t == table}
        expected = {row["id"]: row for row in rows}
        for key in sorted(set(expected) - set(actual)):
            report.fail(f"lost: {table} id={key} is in the table but not in the topics")
        for key in sorted(set(actual) - set(expected)):
            report.fail(f"ghost: {table} id={key} is in the topics but not in the table")
        wrong = [k for k in set(actual) & set(expected)
                 if any(expected[k].get(c) != v for c, v in actual[k].items())]
        for key in sorted(wrong):
            report.fail(f"wrong value: {table} id={key}: topics {dict(actual[key])}, table {expected[key]}")


def check_key_order(seen: Sequence[Seen], histories: Mapping[tuple[str, int], KeyHistory], streaming_ver: int,
                    report: Report) -> None:
    """Per key: changes in commit order, none missing after the first one seen, and none missing that was
    committed after `streaming_ver` (the writer's version when the connector first streamed). A step
    forward over changes is allowed only onto a snapshot read (op=r), which stands for them."""
    by_key: dict[tuple[str, int], list[Seen]] = defaultdict(list)
    for s in seen:
        by_key[(s.table, s.key)].append(s)
    for key, history in histories.items():
        records = by_key.get(key, [])
        late = [i for i, ch in enumerate(history.changes) if ch.ver > streaming_ver]
        if not records:
            if late:
                report.fail(f"lost: {key[0]} id={key[1]}: none of its {len(late)} changes after streaming began")
            continue
        seq: list[tuple[int, Seen]] = []
        firsts: set[tuple[str, int, str, int]] = set()
        for s in records:
            if s.change_id in firsts:
                continue  # a duplicate: the duplicate checks judge it
            firsts.add(s.change_id)
            index = history.index_of(s.op, s.ver)
            if index is None:
                report.fail(f"unknown change: {key[0]} id={key[1]} {s.op} ver={s.ver} (run {s.run[:8]})")
                continue
            seq.append((index, s))
        covered = {i for i, _ in seq}
        for (a, sa), (b, sb) in zip(seq, seq[1:]):
            if b < a:
                report.reorders += 1
                # after a snapshot read: the signature of the known snapshot-resume issue (a resumed read at a
                # new consistent point, streaming from the old one); after a streamed change: anything else
                kind = "reordered after a snapshot read" if sa.op == "r" else "reordered"
                report.fail(f"{kind}: {key[0]} id={key[1]}: change #{b} ({sb.op} ver={sb.ver}, run "
                            f"{sb.run[:8]}, offset {sb.offset}) after change #{a} ({sa.op}, run {sa.run[:8]})")
            elif b > a + 1 and sb.op == "r":
                covered.update(range(a + 1, b))
        if not seq:
            continue
        must = set(range(seq[0][0], len(history.changes))) | set(late)
        missing = sorted(must - covered)
        if missing:
            report.fail(f"lost: {key[0]} id={key[1]}: changes {missing[:5]} of {len(history.changes)} "
                        f"({[history.changes[i] for i in missing[:3]]}) never arrived")


def _by_topic(seen: Sequence[Seen]) -> dict[tuple[str, int], list[Seen]]:
    out: dict[tuple[str, int], list[Seen]] = defaultdict(list)
    for s in seen:
        out[(s.topic, s.partition)].append(s)
    for records in out.values():
        records.sort(key=lambda s: s.offset)
    return out


def check_replays(seen: Sequence[Seen], report: Report) -> None:
    """At-least-once: per topic, each run's duplicates are its first records and re-read, in order, a stretch
    of the records written before it that reaches their end unless the run died within it."""
    report.runs = len({s.run for s in seen})
    for (topic, partition), records in _by_topic(seen).items():
        unique: list[tuple[str, int, str, int]] = []  # records in the order of their first appearance
        where: dict[tuple[str, int, str, int], int] = {}
        read_by: dict[tuple[str, int, str, int], str] = {}  # the run that first sent a snapshot read
        start = 0
        while start < len(records):
            run = records[start].run
            end = start
            while end < len(records) and records[end].run == run:
                end += 1
            segment = _changes(records[start:end], read_by, report)
            prefix = 0
            while prefix < len(segment) and segment[prefix].replay_id in where:
                prefix += 1
            if prefix:
                report.replay_windows += 1
                report.duplicates += prefix
                first = where[segment[0].replay_id]
                replayed = [s.replay_id for s in segment[:prefix]]
                if unique[first:first + prefix] != replayed:
                    original = unique[first:first + prefix]
                    at = next((i for i, (x, y) in enumerate(zip(original, replayed)) if x != y), len(original))
                    report.fail(f"replay out of order: {topic}: run {run[:8]} re-wrote {prefix} records from offset "
                                f"{segment[0].offset}; #{at} is {replayed[at]} where the original order has "
                                f"{original[at] if at < len(original) else 'nothing more'}")
                elif prefix < len(segment) and first + prefix != len(unique):
                    report.fail(f"replay skipped records: {topic}: run {run[:8]} re-wrote {prefix} records from "
                                f"offset {segment[0].offset}, then went on with new ones although "
                                f"{len(unique) - first - prefix} earlier records followed them")
            for s in segment[prefix:]:
                if s.replay_id in where:
                    report.duplicates += 1
                    report.fail(f"duplicate outside a replay window: {topic} offset {s.offset} (run {run[:8]}) "
                                f"{s.table} id={s.key} {s.op} ver={s.ver}")
                    continue
                where[s.replay_id] = len(unique)
                unique.append(s.replay_id)
            start = end


def _changes(segment: Sequence[Seen], read_by: dict[tuple[str, int, str, int], str], report: Report) -> list[Seen]:
    """The records of one run's segment but its snapshot reads, which are judged here: a read an earlier run
    sent is a re-read (module docstring), one the same run sent twice a violation."""
    out = []
    for s in segment:
        if s.op != "r":
            out.append(s)
            continue
        first = read_by.get(s.replay_id)
        if first is None:
            read_by[s.replay_id] = s.run
        elif first != s.run:
            report.rereads += 1
        else:
            report.duplicates += 1
            report.fail(f"duplicate outside a replay window: {s.topic} offset {s.offset} (run {s.run[:8]}) "
                        f"{s.table} id={s.key} r")
    return out


def split_unfinished(seen: Sequence[Seen], views: Sequence[KillView]) -> tuple[list[Seen], list[Seen]]:
    """(records committed by their own run, records of a killed run's unfinished transaction). A record's run
    was killed at the first kill after the record's timestamp (runs follow each other)."""
    committed, unfinished = [], []
    ordered = sorted(views, key=lambda v: v.killed_at_ms)
    for s in seen:
        view = next((v for v in ordered if v.killed_at_ms >= s.timestamp_ms), None)
        if view is None or s.offset < view.ends.get((s.topic, s.partition), 0):
            committed.append(s)
        else:
            unfinished.append(s)
    return committed, unfinished


def check_exactly_once(seen: Sequence[Seen], views: Sequence[KillView], report: Report) -> None:
    committed, unfinished = split_unfinished(seen, views)
    report.runs = len({s.run for s in seen})
    report.unfinished = len(unfinished)
    for (topic, _), records in _by_topic(committed).items():
        first: dict[tuple[str, int, str, int], Seen] = {}
        for s in records:
            earlier = first.setdefault(s.replay_id, s)
            if earlier is not s:
                report.duplicates += 1
                report.fail(f"exactly-once broken: {topic} offset {s.offset} (run {s.run[:8]}) repeats offset "
                            f"{earlier.offset} (run {earlier.run[:8]}): {s.table} id={s.key} {s.op} ver={s.ver}")
    later = _by_topic(seen)
    for s in unfinished:
        # A snapshot read stands for the row's state: a chunk read again after the restart leaves out a row whose
        # key changed meanwhile (snapshot/remainder.py), and the later change of that key takes its place.
        again = any(o.offset > s.offset and o.run != s.run
                    and (o.replay_id == s.replay_id or (s.op == "r" and (o.table, o.key) == (s.table, s.key)))
                    for o in later[(s.topic, s.partition)])
        if not again:
            report.fail(f"a committed offset covers a record of an unfinished transaction: {s.topic} offset "
                        f"{s.offset} (run {s.run[:8]}) {s.table} id={s.key} {s.op} ver={s.ver} was never re-sent")


def check_history(path: Path, database: str, tables: Sequence[str], alters: Sequence[tuple[int, str]],
                  streaming_ver: int, report: Report) -> None:
    """The schema history file: parses, one CREATE per table, the ALTERs run after the snapshot's point in
    order (those before it are in the snapshot's CREATE; a replayed ALTER repeats its position), and none
    missing that ran after streaming began (`alters`: (writer version, statement) in the order run)."""
    creates: dict[str, int] = defaultdict(int)
    seen_alters: list[tuple[str, str]] = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            report.fail(f"schema history line {n} does not parse: {line[:120]!r}")
            continue
        for change in record.get("tableChanges", []):
            table = change["id"].replace('"', "").split(".")[-1]
            if change["type"] == "CREATE" and table in tables and not record["ddl"].startswith("-- "):
                creates[table] += 1
        ddl = record.get("ddl", "")
        if ddl.upper().startswith("ALTER TABLE"):
            # the binlog event's identity, without other offset keys (an incremental snapshot's progress)
            position = {k: v for k, v in (record.get("position") or {}).items()
                        if k in ("file", "pos", "gtids", "event", "row", "server_id")}
            seen_alters.append((ddl, json.dumps(position, sort_keys=True)))
    for table in tables:
        if creates[table] != 1:
            report.fail(f"schema history has {creates[table]} CREATE records for {database}.{table}, not 1")
    distinct = list(dict.fromkeys(seen_alters))  # a replayed ALTER repeats its position: counted once
    recorded = [ddl for ddl, _ in distinct]
    ran = [ddl for _, ddl in alters]
    must = [ddl for ver, ddl in alters if ver >= streaming_ver]
    if recorded != ran[len(ran) - len(recorded):] or recorded[len(recorded) - len(must):] != must:
        report.fail(f"schema history ALTERs {recorded} are not the tail of the ones run {ran} (after streaming "
                    f"began: {must})")
