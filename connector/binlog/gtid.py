"""MySQL GTID sets (`uuid:1-5:7,uuid2:1-3`) as values: parse, add, merge, contain, render.

Rendering follows MySQL/Debezium: source UUIDs sorted, intervals sorted and merged, a single
transaction written as `uuid:n`, no whitespace.
"""

from __future__ import annotations

from dataclasses import dataclass


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

    def __bool__(self) -> bool:
        return bool(self.intervals)


@dataclass(frozen=True)
class GtidSourceFilter:
    """`gtid.source.includes` / `gtid.source.excludes`: which GTID source UUIDs the connector follows.

    Debezium semantics: DML of transactions from other sources is skipped (`gtid.source.filter.dml.events`),
    their GTIDs are kept out of the offset, and a (re)connect asks the server to skip them by adding the
    server's own GTIDs of those sources to the set sent with COM_BINLOG_DUMP_GTID (`merged_for_connect`), so
    they are neither replayed nor required to be still in the binlog. Patterns are anchored and
    case-insensitive, like Debezium's.
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
    def from_properties(raw: dict[str, str]) -> "GtidSourceFilter":
        from connector.config.fields import BY_NAME

        return GtidSourceFilter(
            includes=BY_NAME["gtid.source.includes"].value(raw) or (),
            excludes=BY_NAME["gtid.source.excludes"].value(raw) or (),
            filter_dml=bool(BY_NAME["gtid.source.filter.dml.events"].value(raw)),
        )
