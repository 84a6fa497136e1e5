"""Iteration order of the Java hash collections Debezium collects snapshot DDL into.

Where Debezium reads `SHOW CREATE TABLE` through a worker pool (`snapshot.locking.mode=none`) it gathers
the statements in a `HashMap<TableId, String>` filled one `putAll` at a time, and writes them to the
history in that map's iteration order. To record the same history the same order is needed: bucket
index of `String.hashCode("db.table")` spread as HashMap does, for the table size that map has grown
to; ties (same bucket) keep insertion order, as a bucket's list does across resizes.
"""

from __future__ import annotations

from typing import Protocol, Sequence, TypeVar

from connector.java.hashmap import java_string_hash


class Dotted(Protocol):
    """What a HashMap key needs here: the `db.table` text Debezium's TableId hashes (schema_history.model.TableId)."""

    def dotted(self) -> str: ...


TableId = TypeVar("TableId", bound=Dotted)


def _bucket(h: int, capacity: int) -> int:
    return (h ^ (h >> 16)) & (capacity - 1)


def put_all_capacity(count: int) -> int:
    """Table size of a HashMap that received `count` single-entry putAll calls (JDK 17): the first sizes
    it for one entry (capacity 2, threshold 1), later puts double it past 0.75 × capacity."""
    capacity = 2
    while count > int(capacity * 0.75):
        capacity *= 2
    return capacity


def hash_map_order(tables: Sequence[TableId]) -> list[TableId]:
    capacity = put_all_capacity(len(tables))
    keyed = [(_bucket(java_string_hash(t.dotted()), capacity), i, t) for i, t in enumerate(tables)]
    return [t for _, _, t in sorted(keyed, key=lambda k: (k[0], k[1]))]


def hash_set_order(tables: Sequence[TableId], source_size: int) -> list[TableId]:
    """Iteration order of `new HashSet<>(all)` minus some elements (Debezium's `Collect.minus`): the table
    size is fixed by the copied collection's size, `max(tableSizeFor(size / 0.75 + 1), 16)`."""
    wanted = int(source_size / 0.75) + 1
    capacity = 16
    while capacity < wanted:
        capacity *= 2
    keyed = [(_bucket(java_string_hash(t.dotted()), capacity), i, t) for i, t in enumerate(tables)]
    return [t for _, _, t in sorted(keyed, key=lambda k: (k[0], k[1]))]
