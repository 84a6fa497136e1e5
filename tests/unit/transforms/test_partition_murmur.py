"""`partition.hash.function=murmur`: Debezium's MurmurHash3 against values printed by the real jar, and the
transform's wiring (the goldens transforms-partitions-murmur[-mysql] check it end to end, per partition)."""
from __future__ import annotations

from pathlib import Path

import pytest

from connector.serde.connect_schema import ConnectSchema, Type
from connector.transforms.murmur3 import murmur_int, murmur_string
from connector.transforms.partition_routing import java_hash, murmur_hash
from tests.unit.transforms.test_kafka_transforms import build, change

VECTORS = Path(__file__).resolve().parents[2] / "fixtures" / "murmur3_vectors.tsv"


def _vectors() -> list[tuple[str, str, int, int]]:
    rows = []
    for line in VECTORS.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            kind, value, murmur, java = line.split("\t")
            rows.append((kind, value, int(murmur), int(java)))
    return rows


def test_murmur_matches_the_jar_on_every_vector() -> None:
    rows = _vectors()
    # lengths 0..40 cross the 8- and 16-byte block edges; é € 😀 ÿ give 2-, 3-, 4-byte UTF-8 and signed tail bytes
    assert len(rows) > 60 and any(k == "str" and len(v) > 64 for k, v, _, _ in rows)
    for kind, value, murmur, java in rows:
        if kind == "str":
            text = bytes.fromhex(value).decode("utf-16-be", "surrogatepass")  # lone surrogates kept, as in Java
            assert java_hash(ConnectSchema(Type.STRING), text) == java, value
            assert murmur_string(text) == murmur, value
        else:
            assert murmur_int(java) == murmur, (kind, value)


def test_murmur_hash_of_connect_values() -> None:
    assert murmur_hash(ConnectSchema(Type.STRING), "t_route") == murmur_string("t_route")
    assert murmur_hash(ConnectSchema(Type.INT64), 1 << 32) == murmur_int(1)  # Long.hashCode first
    assert murmur_hash(ConnectSchema(Type.BOOLEAN), True) == murmur_int(1231)
    with pytest.raises(ValueError, match="no content hash"):
        murmur_hash(ConnectSchema(Type.BYTES), b"x")


def _partition(function: str, after: tuple) -> int | None:
    pr = build("partitions.PartitionRouting", **{"partition.payload.fields": "change.name,change.id",
                                                  "partition.topic.num": "7", "partition.hash.function": function})
    return pr.apply(change(after=after)).partition


def test_partition_is_the_masked_sum_of_murmur_hashes_modulo_the_count() -> None:
    total = (murmur_string("a") + murmur_int(1)) & 0xFFFFFFFF
    assert _partition(" MURMUR ", (1, "a", None)) == (total & 0x7FFFFFFF) % 7  # trimmed, any case, as Debezium
    assert _partition("java", (1, "a", None)) == ((97 + 1) & 0x7FFFFFFF) % 7
    differs = [i for i in range(20) if _partition("murmur", (i, "x", None)) != _partition("java", (i, "x", None))]
    assert differs  # the two functions really pick different partitions


def test_unknown_hash_function_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="partition.hash.function='md5' must be one of java, murmur"):
        build("partitions.PartitionRouting", **{"partition.payload.fields": "after.id", "partition.topic.num": "3",
                                                 "partition.hash.function": "md5"})
