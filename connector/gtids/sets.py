"""GTIDs as values: MySQL GTID sets (`uuid:1-5:7,uuid2:1-3`) and MariaDB GTID positions (`0-1-42,1-3-7`):
parse, add, merge, subtract, contain, render.

Rendering follows MySQL/Debezium: source UUIDs sorted, intervals sorted and merged, a single
transaction written as `uuid:n`, no whitespace. MySQL 8.3+ tagged GTIDs (`uuid:etl:4`) are keyed by
`uuid:etl` and rendered MySQL's way, `uuid:1-6:etl:1-4`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Protocol


class GtidSourceSettings(Protocol):
    """`gtid.source.*` as connector/config/database_settings.py holds them (declared here: this module imports
    nothing of the connector, so binlog/, offsets/ and schema_history/ can all use it)."""

    includes: tuple[str, ...]
    excludes: tuple[str, ...]
    filter_dml: bool


_TAG = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,31}")
_INTERVAL = re.compile(r"(\d+)(?:-(\d+))?")


def gtid_source(gtid_or_tsid: str) -> str:
    """The source UUID of a GTID (`uuid:5`, `uuid:tag:5`) or of a set key (`uuid`, `uuid:tag`): what
    gtid.source.includes/excludes match (Debezium cuts the GTID at its first colon)."""
    return gtid_or_tsid.partition(":")[0].strip().lower()


def split_gtid(gtid: str) -> tuple[str, int]:
    """`uuid:5` -> (`uuid`, 5); tagged `uuid:etl:5` -> (`uuid:etl`, 5). The first part is the GTID's key in a
    `GtidSet` (MySQL 8.3+'s "TSID": the source UUID plus the tag, if any), lowercased as MySQL stores tags."""
    tsid, _, number = gtid.strip().rpartition(":")
    if not tsid or not number.isdigit():
        raise ValueError(f"not a MySQL GTID: {gtid!r} (expected uuid:number or uuid:tag:number)")
    return tsid.lower(), int(number)


@dataclass(frozen=True, eq=False)
class GtidSet:
    """A MySQL GTID set. Keys are TSIDs: the source UUID, or `uuid:tag` for tagged GTIDs (MySQL 8.3+,
    `SET gtid_next='AUTOMATIC:tag'`), whose text is `uuid:1-6:etl:1-4` (untagged intervals first, then each
    tag with its intervals).

    Keys keep the order they came in: a parsed set is sorted, `add`/`union` append new keys. MySQL's text
    (`str`) sorts the UUIDs; Debezium's streaming set (`client_str`, mysql-binlog-connector-java's
    LinkedHashMap) keeps them in that order, so a UUID first seen while streaming comes last in its offsets
    (golden gtid_tagged-mysql). Equality ignores the order."""

    intervals: tuple[tuple[str, tuple[tuple[int, int], ...]], ...] = ()

    @staticmethod
    def parse(text: str | None) -> "GtidSet":
        result: dict[str, list[tuple[int, int]]] = {}
        for part in (text or "").replace("\n", "").split(","):
            part = part.strip()
            if not part:
                continue
            uuid, *tokens = (t.strip() for t in part.split(":"))
            tsid = uuid.lower()
            for token in tokens:
                interval = _INTERVAL.fullmatch(token)
                if interval:
                    lo = int(interval.group(1))
                    result.setdefault(tsid, []).append((lo, int(interval.group(2) or lo)))
                elif _TAG.fullmatch(token):
                    tsid = f"{uuid.lower()}:{token.lower()}"  # MySQL tags are case-insensitive, stored lowercase
                else:
                    raise ValueError(f"invalid GTID set {text!r}: {token!r} in {part!r} is neither an interval "
                                     "(n or n-m) nor a tag ([a-z_][a-z0-9_]*, at most 32 characters)")
        # A UUID sorts before its own `uuid:tag` keys (a prefix) and UUIDs have one length: sorted keys are
        # MySQL's order, by UUID, the untagged intervals first, then the tags in order.
        return GtidSet._normalized({tsid: result[tsid] for tsid in sorted(result)})

    @staticmethod
    def _normalized(data: dict[str, list[tuple[int, int]]]) -> "GtidSet":
        out = []
        for uuid in data:
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
        tsid, n = split_gtid(gtid)
        data = self._as_dict()
        data.setdefault(tsid, []).append((n, n))
        return GtidSet._normalized(data)

    def union(self, other: "GtidSet") -> "GtidSet":
        data = self._as_dict()
        for uuid, spans in other.intervals:
            data.setdefault(uuid, []).extend(spans)
        return GtidSet._normalized(data)

    def contains(self, gtid: str) -> bool:
        tsid, n = split_gtid(gtid)
        for u, spans in self.intervals:
            if u == tsid:
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

    def spans_of(self, tsid: str) -> tuple[tuple[int, int], ...]:
        """The intervals of one key (`uuid` or `uuid:tag`), none when the set does not hold it."""
        return dict(self.intervals).get(tsid.lower(), ())

    def _render(self, keys: list[str], interval: Callable[[int, int], str]) -> str:
        """The keys grouped by UUID (in the order of each UUID's first key), each UUID's tags in order after its
        untagged intervals (both MySQL and mysql-binlog-connector-java sort tags)."""
        spans = dict(self.intervals)
        by_uuid: dict[str, list[str]] = {}
        for tsid in keys:
            by_uuid.setdefault(tsid.partition(":")[0], []).append(tsid)
        parts = []
        for uuid, tsids in by_uuid.items():
            pieces = []
            for tsid in sorted(tsids):
                tag = tsid.partition(":")[2]
                pieces += ([tag] if tag else []) + [interval(lo, hi) for lo, hi in spans[tsid]]
            parts.append(f"{uuid}:" + ":".join(pieces))
        return ",".join(parts)

    def __str__(self) -> str:
        """MySQL's text (`gtid_executed`): UUIDs sorted, a single transaction as `n`."""
        return self._render(sorted(dict(self.intervals)), lambda lo, hi: f"{lo}" if lo == hi else f"{lo}-{hi}")

    def client_str(self) -> str:
        """As Debezium renders the set it builds while streaming (mysql-binlog-connector-java's GtidSet: UUIDs in
        the order they came in, every interval `start-end`, `uuid:1-1` for a single transaction): the text of its
        offsets' `gtids`."""
        return self._render([tsid for tsid, _ in self.intervals], lambda lo, hi: f"{lo}-{hi}")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GtidSet) and sorted(self.intervals) == sorted(other.intervals)

    def __hash__(self) -> int:
        return hash(tuple(sorted(self.intervals)))

    def __bool__(self) -> bool:
        return bool(self.intervals)

    def encoded(self) -> bytes:
        """The set as COM_BINLOG_DUMP_GTID sends it (MySQL's `Gtid_set::encode`): the count of keys, then per key
        the UUID's 16 bytes, the number of intervals and each as [start, end+1), all 8-byte little endian. A set
        with a tag uses the tagged format (MySQL 8.3+): the count word carries format 1 in its top and bottom
        bytes, and every key has its tag after the UUID as a serialization-library string (empty untagged)."""
        tagged = any(":" in tsid for tsid, _ in self.intervals)
        n = len(self.intervals)
        out = bytearray(((1 << 56) | (n << 8) | 1 if tagged else n).to_bytes(8, "little"))
        for tsid, spans in self.intervals:
            uuid, _, tag = tsid.partition(":")
            out += bytes.fromhex(uuid.replace("-", ""))
            if tagged:
                out += varlen_uint(len(tag)) + tag.encode("ascii")
            out += len(spans).to_bytes(8, "little")
            for lo, hi in spans:
                out += lo.to_bytes(8, "little") + (hi + 1).to_bytes(8, "little")
        return bytes(out)


def varlen_uint(value: int) -> bytes:
    """MySQL serialization's variable-length unsigned integer (libs/mysql/serialization/variable_length_integers.h):
    n bytes hold n-1 one bits, a zero bit, then the value (n <= 8); 9 bytes are 0xff and 8 value bytes."""
    for size in range(1, 9):
        if value < 1 << (7 * size):
            return ((value << size) | ((1 << (size - 1)) - 1)).to_bytes(size, "little")
    return b"\xff" + value.to_bytes(8, "little")


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
        """Is GTID source `uuid` followed? A `uuid:tag` set key counts as its UUID."""
        uuid = gtid_source(uuid)
        if self.includes:
            return any(re.fullmatch(p, uuid, re.IGNORECASE) for p in self.includes)
        return not any(re.fullmatch(p, uuid, re.IGNORECASE) for p in self.excludes)

    def retain(self, gtids: GtidSet, keep: bool = True) -> GtidSet:
        return GtidSet(tuple((u, spans) for u, spans in gtids.intervals if self.accepts(u) == keep))

    def merged_for_connect(self, done: GtidSet, server_executed: GtidSet) -> GtidSet:
        return self.retain(done).union(self.retain(server_executed, keep=False))

    @staticmethod
    def from_settings(settings: "GtidSourceSettings") -> "GtidSourceFilter":
        return GtidSourceFilter(settings.includes, settings.excludes, settings.filter_dml)
