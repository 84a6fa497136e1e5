"""Key order of a `java.util.HashMap`, which decides how Debezium's offset maps are serialized.

Debezium builds offsets and history `position` objects as HashMaps, so their JSON key order is the
map's bucket order: bucket = spread(String.hashCode) & (capacity - 1), capacity 16 doubled while
size > 0.75 * capacity; within a bucket, insertion order (a resize keeps the relative order).
Treeified buckets (8+ colliding keys) never happen with offset keys.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Iterable, Mapping


def java_string_hash(text: str) -> int:
    h = 0
    # Java hashes UTF-16 code units; offset keys are ASCII, but be exact for any text.
    data = text.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + ((data[i] << 8) | data[i + 1])) & 0xFFFFFFFF
    return h


def _bucket(key: str, capacity: int) -> int:
    h = java_string_hash(key)
    return (h ^ (h >> 16)) & (capacity - 1)


def hashmap_order(keys: Iterable[str], initial_capacity: int = 16) -> list[str]:
    """Iteration order of a HashMap into which `keys` were put in this order."""
    ordered = list(keys)
    capacity = initial_capacity
    while len(ordered) > capacity * 0.75:
        capacity *= 2
    indexed = [(_bucket(k, capacity), i, k) for i, k in enumerate(ordered)]
    indexed.sort()
    return [k for _, _, k in indexed]


@lru_cache(maxsize=4096)
def _cached_order(keys: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(hashmap_order(keys))


def as_hashmap(mapping: Mapping[str, Any]) -> dict[str, Any]:
    """A dict with `mapping`'s items re-ordered as a Java HashMap built from them would iterate.

    Offsets repeat the same few key sets for every event, so the order is computed once per key set.
    """
    return {k: mapping[k] for k in _cached_order(tuple(mapping))}
