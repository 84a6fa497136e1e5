"""The partition Kafka's Java producer (and so Debezium) picks for a keyed record, for checks and tests."""
from __future__ import annotations


def java_murmur2(data: bytes) -> int:
    """Kafka's `Utils.murmur2` (the Java producer's key hash), as a signed 32-bit int."""
    m, mask = 0x5BD1E995, 0xFFFFFFFF
    length = len(data)
    h = (0x9747B28C ^ length) & mask
    whole = length - length % 4
    for i in range(0, whole, 4):
        k = int.from_bytes(data[i:i + 4], "little")
        k = (k * m) & mask
        k ^= k >> 24
        k = (k * m) & mask
        h = ((h * m) & mask) ^ k
    tail = length % 4
    if tail == 3:
        h ^= data[whole + 2] << 16
    if tail >= 2:
        h ^= data[whole + 1] << 8
    if tail >= 1:
        h ^= data[whole]
        h = (h * m) & mask
    h ^= h >> 13
    h = (h * m) & mask
    h ^= h >> 15
    return h - (1 << 32) if h & 0x80000000 else h


def java_default_partition(key: bytes, partitions: int) -> int:
    """The partition Kafka's Java producer picks for a keyed record: `toPositive(murmur2(key)) % n`."""
    return (java_murmur2(key) & 0x7FFFFFFF) % partitions
