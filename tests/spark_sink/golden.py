"""Golden records of real Debezium 3.6.3 (``/work/shared/reference/expected``) → a Kafka broker.

Each ``events.jsonl`` line becomes one Kafka record with the key/value bytes exactly as the
converter wrote them: JsonConverter text is sliced verbatim out of the line (re-serialising
would change float spellings), Avro lines carry the Confluent wire bytes in base64. Headers
are the JsonConverter rendering of each Connect header; tombstones have a null value.
"""

from __future__ import annotations

import base64
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence
from tests.support.shared import REFERENCE as SHARED_REFERENCE

REFERENCE = Path(os.environ.get("BINLOG_CDC_REFERENCE") or SHARED_REFERENCE)
EXPECTED = REFERENCE / "expected"
_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class GoldenRecord:
    seq: int
    topic: str
    key: bytes | None
    value: bytes | None
    headers: tuple[tuple[str, bytes], ...]
    parsed: dict

    def renamed(self, prefix: str) -> "GoldenRecord":
        """The same record on topics named with `prefix` instead of ``dbserver1``."""
        rest = self.topic[len("dbserver1"):]
        return GoldenRecord(self.seq, prefix + rest, self.key, self.value, self.headers, self.parsed)


def _raw_member(line: str, name: str) -> str | None:
    start = line.index(f'"{name}":') + len(name) + 3
    value, end = _DECODER.raw_decode(line, start)
    return None if value is None else line[start:end]


def _avro_bytes(member: dict | None) -> bytes | None:
    return None if member is None else base64.b64decode(member["avro_base64"])


def load(flavour: str) -> list[GoldenRecord]:
    """All records of expected/<flavour>/events.jsonl, in emission order."""
    records = []
    for line in (EXPECTED / flavour / "events.jsonl").read_text(encoding="utf-8").splitlines():
        parsed = json.loads(line)
        if "avro" in flavour:
            key, value = _avro_bytes(parsed["key"]), _avro_bytes(parsed["value"])
        else:
            raw_key, raw_value = _raw_member(line, "key"), _raw_member(line, "value")
            key = raw_key.encode() if raw_key is not None else None
            value = raw_value.encode() if raw_value is not None else None
        headers = tuple((h["key"], json.dumps(h["value"], separators=(",", ":"), ensure_ascii=False).encode())
                        for h in parsed["headers"] or ())
        records.append(GoldenRecord(parsed["seq"], parsed["topic"], key, value, headers, parsed))
    return records


def avro_schemas(flavour: str) -> dict[int, str]:
    """Registry id → schema text of an Avro flavour's mock registry."""
    dump = json.loads((EXPECTED / flavour / "avro_schemas.json").read_text())
    return {v["id"]: v["schema"] for versions in dump["subjects"].values() for v in versions}


def produce(bootstrap: str, records: Iterable[GoldenRecord], partitions: int = 1) -> int:
    """Produce records in order (topics created first with `partitions`), return the count."""
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic
    records = list(records)
    admin = AdminClient({"bootstrap.servers": bootstrap})
    existing = admin.list_topics(timeout=10).topics
    wanted = sorted({r.topic for r in records} - set(existing))
    if wanted:
        for future in admin.create_topics([NewTopic(t, partitions, 1) for t in wanted]).values():
            future.result(timeout=30)
    producer = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "linger.ms": 5})
    errors: list = []
    for r in records:
        partition = 0 if r.key is None or partitions == 1 else _partition_of(r.key, partitions)
        producer.produce(r.topic, value=r.value, key=r.key, headers=list(r.headers),
                         partition=partition, on_delivery=lambda err, msg: err and errors.append(err))
        producer.poll(0)
    producer.flush(30)
    assert not errors, errors
    return len(records)


def _partition_of(key: bytes, partitions: int) -> int:
    import zlib
    return zlib.crc32(key) % partitions


def truncate_record(template: GoldenRecord, pos: int, row: int = 0) -> GoldenRecord:
    """An ``op: t`` record for template's table, shaped as Debezium writes it
    (``skipped.operations=none``): null key, before/after null, source at `pos`."""
    value = json.loads(template.value)  # type: ignore[arg-type]
    payload = value["payload"]
    payload.update(before=None, after=None, op="t")
    payload["source"] = {**payload["source"], "pos": pos, "row": row, "snapshot": "false"}
    payload["transaction"] = None
    data = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()
    return GoldenRecord(template.seq, template.topic, None, data, template.headers, value)


def by_topic(records: Sequence[GoldenRecord], suffix: str) -> list[GoldenRecord]:
    return [r for r in records if r.topic.endswith(suffix)]


def schemaless(record: GoldenRecord) -> GoldenRecord:
    """The record as JsonConverter writes it with ``schemas.enable=false``: payloads only."""
    def strip(raw: bytes | None) -> bytes | None:
        return None if raw is None else json.dumps(json.loads(raw)["payload"], separators=(",", ":"),
                                                   ensure_ascii=False).encode()
    return GoldenRecord(record.seq, record.topic, strip(record.key), strip(record.value), record.headers, record.parsed)
