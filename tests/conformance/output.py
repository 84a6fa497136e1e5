"""Turn what the connector left on Kafka into the reference harness's files.

events.jsonl line: {"seq", "topic", "kafkaPartition": null, "key", "value", "headers"} with
key/value/headers parsed from their JsonConverter bytes. Kafka keeps order per partition
only, so lines are merged across partitions by broker timestamp (ties: topic, partition),
each partition in offset order; `seq` is the line number of that merge.
"""
from __future__ import annotations

import base64
import heapq
import json
from itertools import groupby
from pathlib import Path
from typing import Any

from tests.support.kafka_dump import KafkaRecord


def parse_json_bytes(data: bytes | None) -> Any:
    """JsonConverter bytes -> JSON value; null stays None. Anything that is not JSON is kept
    as {"<not json>": text} so that the comparison shows it instead of crashing."""
    if data is None:
        return None
    try:
        return json.loads(data)
    except ValueError:
        return {"<not json>": data.decode("utf-8", "replace")}


def avro_line(data: bytes | None, wire: str = "avro") -> Any:
    """Confluent wire-format bytes as the harness writes them: {"schema_id", "<wire>_base64"} (wire: avro or
    protobuf); null stays None."""
    if data is None:
        return None
    return {"schema_id": int.from_bytes(data[1:5], "big"), f"{wire}_base64": base64.b64encode(data).decode("ascii")}


def write_avro_schemas(path: Path, registry: Any, schema_type: str = "AVRO") -> None:
    """The harness's avro_schemas.json (protobuf_schemas.json) from a tests.support.schema_registry server."""
    subjects = {s: [{"version": n, "id": i, "schema_type": schema_type, "schema": text}
                    for n, (i, text) in enumerate(versions, start=1)]
                for s, versions in registry.subjects().items()}
    path.write_text(json.dumps({"schema_registry_url": registry.url, "subjects": subjects}, indent=2,
                               ensure_ascii=False) + "\n", encoding="utf-8")


def event_lines(records: list[KafkaRecord], avro: bool = False, partitions: bool = False,
                wire: str = "avro") -> list[dict[str, Any]]:
    """`avro`: keys and values are Confluent wire-format bytes of `wire` (avro or protobuf).
    `partitions`: kafkaPartition is the partition each record was read from (a golden whose transforms pick
    partitions compares them); otherwise null, as the producer's own choice is not Debezium's to make."""
    per_partition = [list(g) for _, g in groupby(sorted(records, key=lambda r: (r.topic, r.partition, r.offset)),
                                                 key=lambda r: (r.topic, r.partition))]
    merged = heapq.merge(*per_partition, key=lambda r: (r.timestamp_ms, r.topic, r.partition))
    lines = []
    for seq, r in enumerate(merged, start=1):
        lines.append({"seq": seq, "topic": r.topic, "kafkaPartition": r.partition if partitions else None,
                      "key": avro_line(r.key, wire) if avro else parse_json_bytes(r.key),
                      "value": avro_line(r.value, wire) if avro else parse_json_bytes(r.value),
                      "headers": [{"key": k, "value": parse_json_bytes(v)} for k, v in r.headers]})
    return lines


def write_jsonl(path: Path, docs: list[Any]) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for d in docs:
            f.write(json.dumps(d, ensure_ascii=False, separators=(",", ":")) + "\n")


def kind_of(line: dict[str, Any]) -> str:
    """The harness's run_info `by_kind` classification."""
    v = line.get("value")
    p = v.get("payload") if isinstance(v, dict) else None
    if v is None:
        return "tombstone"
    if isinstance(p, dict) and "op" in p:
        return f"op={p['op']}"
    if isinstance(p, dict) and "status" in p:
        return f"tx={p['status']}"
    if isinstance(p, dict) and "ddl" in p:
        return "schema_change"
    return "other"


def summarize(lines: list[dict[str, Any]]) -> dict[str, Any]:
    by_topic: dict[str, int] = {}
    by_kind: dict[str, int] = {}
    for line in lines:
        by_topic[line["topic"]] = by_topic.get(line["topic"], 0) + 1
        k = kind_of(line)
        by_kind[k] = by_kind.get(k, 0) + 1
    return {"records": len(lines), "by_topic": by_topic, "by_kind": by_kind}
