"""Where committed source offsets live, and how they are rendered as Kafka Connect writes them.

Every store keeps one offset per Connect *partition key*, `["<connector name>",{"server":"<topic.prefix>"}]`,
the schemaless-JsonConverter bytes that `OffsetStorageWriter` writes (debezium-contract.md §d10). The value is
the offset map as compact JSON whose keys follow Java `HashMap` iteration order, because Debezium's offset maps
are HashMaps; a store written by us therefore reads the same in Debezium, and the other way round.
"""

from __future__ import annotations

import json
from typing import Any, Mapping, Protocol, runtime_checkable

from connector.errors import OffsetFlushTimeout, OffsetStoreError, OffsetStoreUnusable
from connector.java.hashmap import as_hashmap

__all__ = [
    "OffsetStore",
    "OffsetStoreError",
    "OffsetFlushTimeout",
    "OffsetStoreUnusable",
    "partition_key",
    "render_offset",
    "parse_offset",
    "same_partition_key",
]


@runtime_checkable
class OffsetStore(Protocol):
    """One connector's offset: `load()` the last committed one (None if never), `save()` a newer one.

    `save` returns only when the offset is durable (file renamed, Kafka record acknowledged); callers pass
    only offsets whose records were all acknowledged (see `OffsetTracker`).
    """

    def load(self) -> dict[str, Any] | None: ...

    def save(self, offset: Mapping[str, Any]) -> None: ...

    def close(self) -> None: ...


def _compact_json(value: Any) -> bytes:
    # Jackson (JsonConverter) writes raw UTF-8 and no spaces.
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def partition_key(connector_name: str, topic_prefix: str) -> bytes:
    """The Connect offset key: `["<connector name>",{"server":"<topic.prefix>"}]` as compact JSON bytes."""
    return _compact_json([connector_name, {"server": topic_prefix}])


def same_partition_key(raw: bytes | None, key: bytes) -> bool:
    """Whether a stored key is `key`, comparing parsed JSON so formatting differences do not matter."""
    if raw is None:
        return False
    if raw == key:
        return True
    try:
        return json.loads(raw) == json.loads(key)
    except ValueError:
        return False


def render_offset(offset: Mapping[str, Any]) -> bytes:
    """The offset map as Connect stores it: compact JSON, keys in Java HashMap order.

    Re-ordering is idempotent, so callers that already built the dict in HashMap order get it unchanged.
    """
    return _compact_json(as_hashmap(offset))


def parse_offset(raw: bytes, where: str) -> dict[str, Any]:
    """Decode a stored offset value, keeping its key order; `where` names the store for the error message."""
    try:
        value = json.loads(raw)
    except ValueError as exc:
        raise OffsetStoreUnusable(f"{where}: stored offset is not JSON ({exc}): {raw[:200]!r}") from exc
    if not isinstance(value, dict):
        raise OffsetStoreUnusable(f"{where}: stored offset is not a JSON object: {raw[:200]!r}")
    return value
