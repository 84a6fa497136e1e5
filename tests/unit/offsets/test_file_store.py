"""FileOffsetStore and the Java serialization of Connect's offsets file, checked against Java itself."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import pytest

from connector.offsets import FileOffsetStore, OffsetStoreError, partition_key, read_offsets_file
from connector.java.serialization import (
    JavaSerializationError,
    decode_bytes_hashmap,
    encode_bytes_hashmap,
)

DATA = Path(__file__).parent / "data"
DEBEZIUM_DAT = DATA / "debezium-3.6.3-basic.offsets.dat"  # written by Debezium 3.6.3 (reference harness)
DEBEZIUM_JSON = DATA / "debezium-3.6.3-basic.offsets.json"  # the same, decoded by Java
KEY = partition_key("dbz-ref", "dbserver1")


def test_debezium_offsets_dat_decodes_to_its_json_dump() -> None:
    expected = json.loads(DEBEZIUM_JSON.read_text())
    entries = decode_bytes_hashmap(DEBEZIUM_DAT.read_bytes())
    assert [{"key": json.loads(k), "value": json.loads(v)} for k, v in entries] == expected
    assert FileOffsetStore(DEBEZIUM_DAT, KEY).load() == expected[0]["value"]


def test_debezium_offsets_dat_reencodes_byte_for_byte() -> None:
    raw = DEBEZIUM_DAT.read_bytes()
    assert encode_bytes_hashmap(decode_bytes_hashmap(raw)) == raw


def test_save_writes_the_same_bytes_as_debezium(tmp_path: Path) -> None:
    value = json.loads(DEBEZIUM_JSON.read_text())[0]["value"]
    store = FileOffsetStore(tmp_path / "offsets.dat", KEY)
    store.save(value)
    assert (tmp_path / "offsets.dat").read_bytes() == DEBEZIUM_DAT.read_bytes()


def test_round_trip_keeps_other_connectors_and_replaces_ours(tmp_path: Path) -> None:
    path = tmp_path / "offsets.dat"
    other = (partition_key("other", "srv2"), b'{"pos":7}')
    path.write_bytes(encode_bytes_hashmap([other, (KEY, b'{"pos":1}')]))
    store = FileOffsetStore(path, KEY)
    assert store.load() == {"pos": 1}
    store.save({"file": "f.000002", "pos": 4})
    assert store.load() == {"file": "f.000002", "pos": 4}
    assert read_offsets_file(path) == [other, (KEY, b'{"file":"f.000002","pos":4}')]
    assert [p.name for p in tmp_path.iterdir()] == ["offsets.dat"]  # no temporary file left behind
    store.close()


def test_missing_or_empty_file_means_no_offset(tmp_path: Path) -> None:
    assert FileOffsetStore(tmp_path / "nope.dat", KEY).load() is None
    (tmp_path / "empty.dat").write_bytes(b"")
    assert FileOffsetStore(tmp_path / "empty.dat", KEY).load() is None


def test_key_comparison_ignores_json_formatting(tmp_path: Path) -> None:
    path = tmp_path / "offsets.dat"
    path.write_bytes(encode_bytes_hashmap([(b'[ "dbz-ref", { "server" : "dbserver1" } ]', b'{"pos":3}')]))
    assert FileOffsetStore(path, KEY).load() == {"pos": 3}


def test_null_value_means_reset(tmp_path: Path) -> None:
    path = tmp_path / "offsets.dat"
    path.write_bytes(encode_bytes_hashmap([(KEY, None)]))
    assert FileOffsetStore(path, KEY).load() is None


@pytest.mark.parametrize("damage", [
    lambda raw: raw[:-3],                       # truncated
    lambda raw: b"\x00" + raw[1:],              # bad magic
    lambda raw: raw + b"\x00",                  # trailing garbage
    lambda raw: raw.replace(b"HashMap", b"HashSet"),
])
def test_damaged_file_is_a_clear_error(tmp_path: Path, damage: Callable[[bytes], bytes]) -> None:
    path = tmp_path / "offsets.dat"
    path.write_bytes(damage(DEBEZIUM_DAT.read_bytes()))
    with pytest.raises(OffsetStoreError, match="offsets.dat"):
        FileOffsetStore(path, KEY).load()
    with pytest.raises(JavaSerializationError, match="at byte"):
        decode_bytes_hashmap(path.read_bytes())


def _sample_entries() -> list[tuple[bytes | None, bytes | None]]:
    # 14 entries: more than 12, so Java's table grows to 32 buckets (threshold 24); one null value.
    entries: list[tuple[bytes | None, bytes | None]] = [
        (partition_key(f"connector-{i}", f"server{i}"), json.dumps({"pos": i, "file": "é"}).encode())
        for i in range(13)
    ]
    entries.append((partition_key("deleted", "x"), None))
    return entries


def test_java_written_map_decodes(tmp_path: Path, java_offsets_dat: Callable[..., str]) -> None:
    entries = _sample_entries()
    path = tmp_path / "java.dat"
    args = [x.hex() if x is not None else "-" for pair in entries for x in pair]
    java_offsets_dat("write", str(path), *args)
    raw = path.read_bytes()
    decoded = decode_bytes_hashmap(raw)
    # Java orders byte[] keys by identity hash: compare as sets, then check our encoding of Java's order.
    assert sorted(decoded, key=repr) == sorted(entries, key=repr)
    assert encode_bytes_hashmap(decoded) == raw


def test_java_reads_our_map(tmp_path: Path, java_offsets_dat: Callable[..., str]) -> None:
    entries = _sample_entries()
    path = tmp_path / "ours.dat"
    path.write_bytes(encode_bytes_hashmap(entries))
    lines = java_offsets_dat("read", str(path)).split()
    got = [(None if k == "-" else bytes.fromhex(k), None if v == "-" else bytes.fromhex(v))
           for k, v in zip(lines[::2], lines[1::2])]
    assert sorted(got, key=repr) == sorted(entries, key=repr)


def test_java_empty_map_matches(tmp_path: Path, java_offsets_dat: Callable[..., str]) -> None:
    path = tmp_path / "empty.dat"
    java_offsets_dat("write", str(path))
    assert path.read_bytes() == encode_bytes_hashmap([])


def test_real_connect_file_store_reads_ours_and_writes_what_we_read(
    tmp_path: Path, connect_file_store: Callable[..., str]
) -> None:
    ours = tmp_path / "ours.dat"
    offset = {"ts_sec": 1795219050, "file": "mariadb-bin.000002", "pos": 4, "gtids": "0-1-5",
              "server_id": 1, "event": 2}
    FileOffsetStore(ours, KEY).save(offset)
    assert json.loads(connect_file_store("get", str(ours), KEY.decode())) == offset

    theirs = tmp_path / "theirs.dat"
    connect_file_store("set", str(theirs), KEY.decode(), '{"file":"x.000001","pos":5}')
    assert FileOffsetStore(theirs, KEY).load() == {"file": "x.000001", "pos": 5}
    assert theirs.read_bytes() == encode_bytes_hashmap([(KEY, b'{"file":"x.000001","pos":5}')])
