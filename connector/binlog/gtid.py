"""GTIDs as values: MySQL GTID sets (`uuid:1-5:7,uuid2:1-3`) and MariaDB GTID positions (`0-1-42,1-3-7`):
parse, add, merge, subtract, contain, render.

Rendering follows MySQL/Debezium: source UUIDs sorted, intervals sorted and merged, a single
transaction written as `uuid:n`, no whitespace.
"""

from __future__ import annotations

from dataclasses import dataclass

from connector.config.settings import GtidSourceSettings


@dataclass(frozen=True)
class GtidSet:
    intervals: tuple[tuple[str, tuple[tuple[int, int], ...]], ...] = ()

    @staticmethod
    def parse(text: str | None) -> "GtidSet":
        result: dict[str, list[tuple[int, int]]] = {}
        for part in (text or "").replace("\n", "").split(","):
            part = part.strip()
            if not part:
                continue
            uuid, *ranges = part.split(":")
            spans = result.setdefault(uuid.lower(), [])
            for rng in ranges:
                if "-" in rng:
                    lo, hi = rng.split("-", 1)
                    spans.append((int(lo), int(hi)))
                else:
                    spans.append((int(rng), int(rng)))
        return GtidSet._normalized(result)

    @staticmethod
    def _normalized(data: dict[str, list[tuple[int, int]]]) -> "GtidSet":
        out = []
        for uuid in sorted(data):
            merged: list[tuple[int, int]] = []
            for lo, hi in sorted(data[uuid]):
                if merged and lo <= merged[-1][1] + 1:
                    merged[-1] = (merged[-1][0], max(hi, merged[-1][1]))
                else:
                    merged.append((lo, hi))
            if merged:
                out.append((uuid, tuple(merged)))
        return GtidSet(tuple(out))

    def _as_dict(self) -> dict[str, list[tuple[int, int]]]:
        return {uuid: list(spans) for uuid, spans in self.intervals}

    def add(self, gtid: str) -> "GtidSet":
        uuid, _, number = gtid.rpartition(":")
        n = int(number)
        data = self._as_dict()
        data.setdefault(uuid.lower(), []).append((n, n))
        return GtidSet._normalized(data)

    def union(self, other: "GtidSet") -> "GtidSet":
        data = self._as_dict()
        for uuid, spans in other.intervals:
            data.setdefault(uuid, []).extend(spans)
        return GtidSet._normalized(data)

    def contains(self, gtid: str) -> bool:
        uuid, _, number = gtid.rpartition(":")
        n = int(number)
        for u, spans in self.intervals:
            if u == uuid.lower():
                return any(lo <= n <= hi for lo, hi in spans)
        return False

    def subtract(self, other: "GtidSet") -> "GtidSet":
        """The transactions of this set that `other` does not hold."""
        theirs = other._as_dict()
        out: dict[str, list[tuple[int, int]]] = {}
        for uuid, spans in self.intervals:
            for lo, hi in spans:
                pieces = [(lo, hi)]
                for a, b in theirs.get(uuid, []):
                    pieces = [p for x, y in pieces for p in ((x, min(y, a - 1)), (max(x, b + 1), y)) if p[0] <= p[1]]
                out.setdefault(uuid, []).extend(pieces)
        return GtidSet._normalized(out)

    def is_subset_of(self, other: "GtidSet") -> bool:
        theirs = other._as_dict()
        for uuid, spans in self.intervals:
            for lo, hi in spans:
                if not any(a <= lo and hi <= b for a, b in theirs.get(uuid, [])):
                    return False
        return True

    def __str__(self) -> str:
        parts = []
        for uuid, spans in self.intervals:
            rendered = ":".join(f"{lo}" if lo == hi else f"{lo}-{hi}" for lo, hi in spans)
            parts.append(f"{uuid}:{rendered}")
        return ",".join(parts)

    def client_str(self) -> str:
        """As Debezium renders the set it builds while streaming (mysql-binlog-connector-java's GtidSet: every
        interval `start-end`, `uuid:1-1` for a single transaction): the text of its offsets' `gtids`."""
        return ",".join(f"{uuid}:" + ":".join(f"{lo}-{hi}" for lo, hi in spans) for uuid, spans in self.intervals)

    def __bool__(self) -> bool:
        return bool(self.intervals)


@dataclass(frozen=True)
class MariaGtidPosition:
    """A MariaDB GTID position (`gtid_binlog_pos`, `@slave_connect_state`): per replication domain, the last
    transaction done, as `domain-server-seq`. Within a domain, sequence numbers grow along the binlog whatever
    server wrote them, so "done" means every transaction of the domain up to that sequence number.

    Rendered like Debezium's MariaDB offsets (the connector library's MariadbGtidSet): one `d-s-n` per
    domain, ascending domains, comma-separated.
    """

    domains: tuple[tuple[int, int, int], ...] = ()  # (domain, server, seq), one per domain, sorted

    @staticmethod
    def parse(text: str | None) -> "MariaGtidPosition":
        last: dict[int, tuple[int, int]] = {}
        for part in (text or "").replace("\n", "").split(","):
            part = part.strip()
            if part:
                domain, server, seq = (int(x) for x in part.split("-"))
                last[domain] = (server, seq)  # a repeated domain: the last one wins, as in MariaDB
        return MariaGtidPosition(tuple((d, *last[d]) for d in sorted(last)))

    def _as_dict(self) -> dict[int, tuple[int, int]]:
        return {d: (server, seq) for d, server, seq in self.domains}

    def add(self, gtid: str) -> "MariaGtidPosition":
        """The position after transaction `gtid` (`d-s-n`): its domain moves to it."""
        domain, server, seq = (int(x) for x in gtid.split("-"))
        data = self._as_dict()
        data[domain] = (server, seq)
        return MariaGtidPosition(tuple((d, *data[d]) for d in sorted(data)))

    def merge(self, other: "MariaGtidPosition") -> "MariaGtidPosition":
        """Per domain the later of the two positions."""
        data = self._as_dict()
        for d, server, seq in other.domains:
            if d not in data or seq > data[d][1]:
                data[d] = (server, seq)
        return MariaGtidPosition(tuple((d, *data[d]) for d in sorted(data)))

    def subtract(self, other: "MariaGtidPosition") -> "MariaGtidPosition":
        """The domains where this position is ahead of `other` (or that `other` does not know)."""
        theirs = other._as_dict()
        return MariaGtidPosition(tuple(e for e in self.domains if e[0] not in theirs or e[2] > theirs[e[0]][1]))

    def contains(self, gtid: str) -> bool:
        domain, _, seq = (int(x) for x in gtid.split("-"))
        mine = self._as_dict().get(domain)
        return mine is not None and seq <= mine[1]

    def is_subset_of(self, other: "MariaGtidPosition") -> bool:
        """Is everything done here also done at `other`? (`self` is at or before `other` in every domain.)"""
        return not self.subtract(other)

    def sources(self) -> tuple[str, ...]:
        """`domain-server` of each entry: what gtid.source.includes/excludes match on MariaDB."""
        return tuple(f"{d}-{server}" for d, server, _ in self.domains)

    def __str__(self) -> str:
        return ",".join(f"{d}-{server}-{seq}" for d, server, seq in self.domains)

    def __bool__(self) -> bool:
        return bool(self.domains)


@dataclass(frozen=True)
class GtidSourceFilter:
    """`gtid.source.includes` / `gtid.source.excludes`: which GTID source UUIDs the connector follows.

    As Debezium: DML of transactions from other sources is skipped (`gtid.source.filter.dml.events`), their
    TABLE_MAP and DDL events are still applied, and schema history recovery compares GTID sets on the
    followed sources only. Beyond Debezium: their GTIDs are kept out of the offset, and a (re)connect asks the
    server to skip them by adding the server's own GTIDs of those sources to the set sent with
    COM_BINLOG_DUMP_GTID (`merged_for_connect`), so they are neither replayed nor required to be still in the
    binlog (Debezium adds every GTID it reads to its offset, drops the other sources' on restart and so gets
    their transactions again). Patterns are anchored and case-insensitive, like Debezium's; on MariaDB a
    source is `domain-server`.
    """

    includes: tuple[str, ...] = ()
    excludes: tuple[str, ...] = ()
    filter_dml: bool = True

    @property
    def active(self) -> bool:
        return bool(self.includes or self.excludes)

    def accepts(self, uuid: str) -> bool:
        import re

        if self.includes:
            return any(re.fullmatch(p, uuid, re.IGNORECASE) for p in self.includes)
        return not any(re.fullmatch(p, uuid, re.IGNORECASE) for p in self.excludes)

    def retain(self, gtids: GtidSet, keep: bool = True) -> GtidSet:
        return GtidSet(tuple((u, spans) for u, spans in gtids.intervals if self.accepts(u) == keep))

    def merged_for_connect(self, done: GtidSet, server_executed: GtidSet) -> GtidSet:
        return self.retain(done).union(self.retain(server_executed, keep=False))

    @staticmethod
    def from_settings(settings: GtidSourceSettings) -> "GtidSourceFilter":
        return GtidSourceFilter(settings.includes, settings.excludes, settings.filter_dml)
