"""Mask what legitimately differs between two runs, so the rest can be compared exactly.

Same rules as the reference harness's normalize_events.py (written anew here):
* `ts_ms` / `ts_us` / `ts_ns` of the envelope, of `source`, of transaction records and of
  schema-change records -> "<ts>"; also `source.ts_ms` / `source_ts_ms` (and _us/_ns) at the top level of
  a value, where a Flatten transform (delimiter `.` or `_`) puts the source's;
* a CloudEvents value's `time` and `iodebeziumtsms`/`tsus`/`tsns` (the source timestamps) -> "<ts>";
* `ts_sec` of a record's source offset, of offsets.json and of a history `position` -> "<ts>";
* the `__debezium.context.runId` header (a per-run UUID) -> "<runId>";
* incremental-snapshot watermarks written to the signal table: the random chunk id of their `id`
  ("<uuid>-open" -> "<chunk>-open") and their `data` (window timestamps) -> "<window>";
* notifications (`notification.enabled.channels=sink`): the wall-clock `timestamp` -> "<ts>" and an `id`
  that is a random UUID (initial snapshots; an incremental snapshot's is its signal's id, kept) -> "<uuid>",
  in the key and the value of records whose value has exactly a notification's fields; and of its
  `additional_data` keys that share a HashMap bucket, sorted (Debezium copies a `Map.of`, whose iteration
  order is salted per JVM, into a HashMap: colliding keys such as `status` and `data_collections` come in
  either order from one Debezium run to the next; bucket order is kept and compared);
* MySQL server UUIDs: every UUID seen as the source of a GTID ("<uuid>:<n>" in
  source.gtid, gtids, transaction_id, transaction ids) is replaced in every string of the
  record by "<server-uuid>" ("<server-uuid-2>", ... in order of first appearance).
Key order is kept: JsonConverter writes fields in schema order and the history/offset
documents have a defined order, so a reordering is a real difference.
"""
from __future__ import annotations

import pickle
import re
from typing import Any, TypeVar

TS_KEYS = ("ts_ms", "ts_us", "ts_ns")
FLAT_SOURCE_TS_KEYS = tuple(f"source{d}{k}" for d in "._" for k in TS_KEYS)
_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_GTID_SOURCE = re.compile(rf"(?<![0-9a-fA-F-])({_UUID})(?=:)")


T = TypeVar("T")


def _copy(tree: T) -> T:
    """A deep copy of JSON-shaped data; pickle's C round trip is ~5x faster than `copy.deepcopy` here."""
    return pickle.loads(pickle.dumps(tree, pickle.HIGHEST_PROTOCOL))


class UuidMasker:
    """Learns server UUIDs from GTID-bearing strings, then masks them in any JSON value."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self._pattern: re.Pattern[str] | None = None

    def learn(self, value: Any) -> None:
        if not isinstance(value, str):
            return
        for uuid in _GTID_SOURCE.findall(value):
            uuid = uuid.lower()
            if uuid not in self.names:
                n = len(self.names) + 1
                self.names[uuid] = "<server-uuid>" if n == 1 else f"<server-uuid-{n}>"
                self._pattern = re.compile("|".join(map(re.escape, self.names)), re.I)

    def mask(self, value: Any) -> Any:
        if self._pattern is None:
            return value
        if isinstance(value, str):
            return self._pattern.sub(lambda m: self.names[m.group(0).lower()], value)
        if isinstance(value, list):
            return [self.mask(v) for v in value]
        if isinstance(value, dict):
            return {self.mask(k): self.mask(v) for k, v in value.items()}
        return value


def _mask_ts(d: Any, keys: tuple[str, ...] = TS_KEYS) -> None:
    if isinstance(d, dict):
        for k in keys:
            if k in d:
                d[k] = "<ts>"


def _payload(part: Any) -> Any:
    if not isinstance(part, dict):
        return None
    # schemas.enable=false: the key/value is the payload itself
    return part.get("payload") if set(part) == {"schema", "payload"} else part


def _gtid_strings(event: dict) -> list[Any]:
    out: list[Any] = []
    off = event.get("sourceOffset")
    if isinstance(off, dict):
        out += [off.get("gtids"), off.get("transaction_id")]
    for part in ("key", "value"):
        p = _payload(event.get(part))
        if isinstance(p, dict):
            out.append(p.get("id"))  # transaction topic
            if isinstance(p.get("source"), dict):
                out.append(p["source"].get("gtid"))
            if isinstance(p.get("transaction"), dict):
                out.append(p["transaction"].get("id"))
    return out


_WATERMARK_ID = re.compile(rf"^{_UUID}-(open|close)$")
WATERMARK_TYPES = ("snapshot-window-open", "snapshot-window-close")


def _mask_watermark(row: Any) -> None:
    """A signal-table row written by an incremental snapshot (its id is a random chunk id)."""
    if not isinstance(row, dict) or not isinstance(row.get("id"), str):
        return
    match = _WATERMARK_ID.match(row["id"])
    if match is None:
        return
    row["id"] = f"<chunk>-{match.group(1)}"
    if row.get("type") in WATERMARK_TYPES and "data" in row:
        row["data"] = "<window>"


def mask_watermarks(event: dict) -> dict:
    """Mask, in place, the watermark rows of one events.jsonl line (a rule the reference normalizer lacks)."""
    _mask_watermark(_payload(event.get("key")))
    value = _payload(event.get("value"))
    if isinstance(value, dict):
        _mask_watermark(value.get("before"))
        _mask_watermark(value.get("after"))
    return event


def mask_flat_source_ts(event: dict) -> dict:
    """Mask, in place, a flattened source timestamp at the top of the value (a rule the reference normalizer
    lacks: Flatten$Value on a change event lifts `source.ts_ms` to `source_ts_ms`)."""
    _mask_ts(_payload(event.get("value")), FLAT_SOURCE_TS_KEYS)
    return event


CLOUDEVENT_TS_KEYS = ("time", "iodebeziumtsms", "iodebeziumtsus", "iodebeziumtsns")


def mask_cloudevent_ts(event: dict) -> dict:
    """Mask, in place, the source timestamps of a CloudEvents value (a rule the reference normalizer lacks: its
    harness writes no CloudEvents)."""
    p = _payload(event.get("value"))
    if isinstance(p, dict) and p.get("specversion") == "1.0":
        _mask_ts(p, CLOUDEVENT_TS_KEYS)
    return event


_NOTIFICATION_FIELDS = {"id", "type", "aggregate_type", "additional_data", "timestamp"}
_RANDOM_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")


def _java_bucket(key: str, capacity: int) -> int:
    h = 0
    for unit in _utf16_units(key):
        h = (31 * h + unit) & 0xFFFFFFFF
    return (h ^ (h >> 16)) & (capacity - 1)


def _utf16_units(text: str) -> list[int]:
    data = text.encode("utf-16-be")
    return [(data[i] << 8) | data[i + 1] for i in range(0, len(data), 2)]


def _bucket_sorted(data: dict) -> dict:
    """`new HashMap<>(Map.of(n pairs))` plus a put of connector_name: the copy's capacity, the Map.of keys that
    share a bucket sorted."""
    wanted, capacity = int((len(data) - 1) / 0.75 + 1.0), 1
    while capacity < wanted:
        capacity *= 2
    capacity = capacity if len(data) > 1 else 16
    while len(data) > capacity * 0.75:
        capacity *= 2
    # Only runs of neighbours in one bucket are sorted (connector_name, put after the copy, stays last in
    # its bucket): a different bucket order is a real difference and must stay visible.
    runs: list[list[str]] = []
    for k in data:
        if runs and _java_bucket(runs[-1][-1], capacity) == _java_bucket(k, capacity):
            runs[-1].append(k)
        else:
            runs.append([k])
    keys = [k for run in runs for k in sorted(run, key=lambda k: (k == "connector_name", k))]
    return {k: data[k] for k in keys}


def mask_notification(event: dict) -> dict:
    value, key = _payload(event.get("value")), _payload(event.get("key"))
    if not isinstance(value, dict) or set(value) != _NOTIFICATION_FIELDS:
        return event
    value["timestamp"] = "<ts>"
    if isinstance(value.get("additional_data"), dict):
        value["additional_data"] = _bucket_sorted(value["additional_data"])
    for part in (value, key):
        if isinstance(part, dict) and isinstance(part.get("id"), str) and _RANDOM_UUID.fullmatch(part["id"]):
            part["id"] = "<uuid>"
    return event


def normalize_event(event: dict, masker: UuidMasker) -> dict:
    """A masked copy of one events.jsonl line (the masker learns across a whole file)."""
    e = _copy(event)
    p = _payload(e.get("value"))
    mask_cloudevent_ts(e)
    _mask_ts(p)
    mask_flat_source_ts(e)
    if isinstance(p, dict):
        _mask_ts(p.get("source"))
    for h in e.get("headers") or []:
        if h.get("key") == "__debezium.context.runId" and isinstance(h.get("value"), dict):
            h["value"]["payload"] = "<runId>"
    _mask_ts(e.get("sourceOffset"), ("ts_sec",))
    mask_watermarks(e)
    mask_notification(e)
    for s in _gtid_strings(e):
        masker.learn(s)
    return masker.mask(e)


def normalize_events(events: list[dict]) -> list[dict]:
    masker = UuidMasker()
    return [normalize_event(e, masker) for e in events]


def normalize_offsets(entries: list[dict]) -> list[dict]:
    """offsets.json: [{"key": [name, partition], "value": {...}}]"""
    masker = UuidMasker()
    out = _copy(entries)
    for e in out:
        val = e.get("value") if isinstance(e, dict) else None
        if isinstance(val, dict):
            _mask_ts(val, ("ts_sec",))
            masker.learn(val.get("gtids"))
            masker.learn(val.get("transaction_id"))
    return masker.mask(out)


def normalize_history(docs: list[dict]) -> list[dict]:
    """schema_history.jsonl documents."""
    masker = UuidMasker()
    out = _copy(docs)
    for d in out:
        _mask_ts(d, ("ts_ms",))
        pos = d.get("position")
        if isinstance(pos, dict):
            _mask_ts(pos, ("ts_sec",))
            masker.learn(pos.get("gtids"))
            masker.learn(pos.get("transaction_id"))
    return masker.mask(out)
