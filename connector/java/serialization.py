"""Java Object Serialization of a `java.util.HashMap<byte[], byte[]>`, both directions.

Kafka Connect's `FileOffsetBackingStore.save()` copies its offsets into a fresh `new HashMap<>()` of
`byte[] -> byte[]` and writes it with one `ObjectOutputStream.writeObject`; `load()` reads it back with an
`ObjectInputStream` and rejects anything that is not a HashMap. This module speaks exactly that subset of
the Java Object Serialization Stream Protocol (Java SE spec, chapter 6), so Debezium's own `offsets.dat`
loads here and ours loads in Debezium.

Layout written by `HashMap.writeObject` (JDK 8-21, unchanged):
    AC ED 00 05                                   magic, version
    73 72 "java.util.HashMap" <suid> 03 <2 fields: F loadFactor, I threshold> 78 70
    <loadFactor: float 0.75> <threshold: int>     the default fields, sorted by name
    77 08 <buckets: int> <size: int>              block data: table capacity and entry count
    (<key> <value>) * size                        each 75 <[B class desc | reference> <len> <bytes>, or 70 (null)
    78                                            end of the custom data
"""

from __future__ import annotations

import struct
from typing import Sequence

__all__ = ["JavaSerializationError", "decode_bytes_hashmap", "encode_bytes_hashmap"]

_MAGIC = b"\xac\xed\x00\x05"
_TC_NULL = 0x70
_TC_REFERENCE = 0x71
_TC_CLASSDESC = 0x72
_TC_OBJECT = 0x73
_TC_ARRAY = 0x75
_TC_BLOCKDATA = 0x77
_TC_ENDBLOCKDATA = 0x78
_TC_RESET = 0x79
_TC_BLOCKDATALONG = 0x7A
_BASE_HANDLE = 0x7E0000

_HASHMAP = "java.util.HashMap"
_HASHMAP_SUID = 362498820763181265
_BYTE_ARRAY = "[B"
_BYTE_ARRAY_SUID = -5984413125824719648
_SC_WRITE_METHOD = 0x01
_SC_SERIALIZABLE = 0x02

# The class descriptors exactly as ObjectOutputStream writes them (after the TC_CLASSDESC tag).
_HASHMAP_DESC = (
    struct.pack(">H", len(_HASHMAP)) + _HASHMAP.encode()
    + struct.pack(">qB", _HASHMAP_SUID, _SC_WRITE_METHOD | _SC_SERIALIZABLE)
    + struct.pack(">H", 2)
    + b"F" + struct.pack(">H", 10) + b"loadFactor"
    + b"I" + struct.pack(">H", 9) + b"threshold"
    + bytes([_TC_ENDBLOCKDATA, _TC_NULL])
)
_BYTE_ARRAY_DESC = (
    struct.pack(">H", len(_BYTE_ARRAY)) + _BYTE_ARRAY.encode()
    + struct.pack(">qBH", _BYTE_ARRAY_SUID, _SC_SERIALIZABLE, 0)
    + bytes([_TC_ENDBLOCKDATA, _TC_NULL])
)
# Handles are numbered from 0x7E0000 in order of first appearance: the HashMap's class descriptor (0),
# the HashMap itself (1), then the first array's class descriptor (2); later arrays refer back to it.
_BYTE_ARRAY_DESC_HANDLE = _BASE_HANDLE + 2


class JavaSerializationError(ValueError):
    """The bytes are not a Java-serialized `HashMap<byte[], byte[]>` (message gives the byte offset)."""


def _table_capacity(size: int) -> int:
    """Capacity of a `new HashMap<>()` after `size` puts: 16, doubled while size exceeds 0.75 * capacity."""
    capacity = 16
    while size > capacity * 3 // 4:
        capacity *= 2
    return capacity


def encode_bytes_hashmap(entries: Sequence[tuple[bytes | None, bytes | None]]) -> bytes:
    """Serialize entries as `ObjectOutputStream.writeObject(hashMap)` would, in the given order.

    Java orders a `byte[]`-keyed map by identity hash, i.e. unpredictably, so any order is one Java could
    write; for a single entry (one connector per file, the usual case) the bytes equal Java's exactly.
    """
    size = len(entries)
    # An empty `new HashMap<>()` has no table yet: threshold 0, and writeObject reports 16 buckets.
    capacity = _table_capacity(size)
    threshold = capacity * 3 // 4 if size else 0
    out = bytearray(_MAGIC)
    out += bytes([_TC_OBJECT, _TC_CLASSDESC]) + _HASHMAP_DESC
    out += struct.pack(">fi", 0.75, threshold)
    out += bytes([_TC_BLOCKDATA, 8]) + struct.pack(">ii", capacity, size)
    wrote_array_desc = False
    for key, value in entries:
        for item in (key, value):
            if item is None:
                out.append(_TC_NULL)
                continue
            out.append(_TC_ARRAY)
            if wrote_array_desc:
                out.append(_TC_REFERENCE)
                out += struct.pack(">i", _BYTE_ARRAY_DESC_HANDLE)
            else:
                out.append(_TC_CLASSDESC)
                out += _BYTE_ARRAY_DESC
                wrote_array_desc = True
            out += struct.pack(">i", len(item)) + item
    out.append(_TC_ENDBLOCKDATA)
    return bytes(out)


class _Reader:
    """A cursor over the stream with the handle table ObjectInputStream keeps."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self.pos = 0
        self.handles: list[object] = []

    def fail(self, what: str) -> JavaSerializationError:
        return JavaSerializationError(f"{what} at byte {self.pos} of {len(self._data)}")

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self._data):
            raise self.fail(f"truncated stream: wanted {n} bytes")
        chunk = self._data[self.pos:self.pos + n]
        self.pos += n
        return chunk

    def unpack(self, fmt: str) -> tuple:
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))

    def tag(self) -> int:
        # TC_RESET may appear between objects; it only clears the handle table.
        while True:
            (tag,) = self.unpack(">B")
            if tag != _TC_RESET:
                return tag
            self.handles.clear()

    def utf(self) -> str:
        (length,) = self.unpack(">H")
        return self.take(length).decode("utf-8", errors="surrogatepass")

    def new_handle(self, obj: object) -> int:
        self.handles.append(obj)
        return len(self.handles) - 1

    def handle(self) -> object:
        (raw,) = self.unpack(">i")
        index = raw - _BASE_HANDLE
        if not 0 <= index < len(self.handles):
            raise self.fail(f"dangling reference 0x{raw:x}")
        return self.handles[index]


def _read_class_desc(r: _Reader) -> tuple[str, list[tuple[str, str]]]:
    """A class descriptor (new or back-reference) as (class name, [(type code, field name)])."""
    tag = r.tag()
    if tag == _TC_REFERENCE:
        desc = r.handle()
        if not isinstance(desc, tuple):
            raise r.fail("reference is not a class descriptor")
        return desc
    if tag != _TC_CLASSDESC:
        raise r.fail(f"expected a class descriptor, found tag 0x{tag:02x}")
    name = r.utf()
    r.unpack(">qB")  # serialVersionUID and flags: Java checks them against the local class, we know the class
    slot = r.new_handle(None)
    (count,) = r.unpack(">H")
    fields = []
    for _ in range(count):
        code = chr(r.unpack(">B")[0])
        field = r.utf()
        if code in "L[":
            raise r.fail(f"unexpected object field {field!r} in {name}")
        fields.append((code, field))
    if r.tag() != _TC_ENDBLOCKDATA:
        raise r.fail(f"class annotations of {name} are not supported")
    if r.tag() != _TC_NULL:
        raise r.fail(f"{name} has a serializable superclass; only HashMap and byte[] are expected")
    desc = (name, fields)
    r.handles[slot] = desc
    return desc


_PRIMITIVES = {"B": ">b", "C": ">H", "D": ">d", "F": ">f", "I": ">i", "J": ">q", "S": ">h", "Z": ">?"}


def _read_bytes_or_null(r: _Reader) -> bytes | None:
    tag = r.tag()
    if tag == _TC_NULL:
        return None
    if tag == _TC_REFERENCE:
        obj = r.handle()
        if not isinstance(obj, bytes):
            raise r.fail("reference is not a byte[]")
        return obj
    if tag != _TC_ARRAY:
        raise r.fail(f"expected a byte[] or null, found tag 0x{tag:02x}")
    name, _ = _read_class_desc(r)
    if name != _BYTE_ARRAY:
        raise r.fail(f"expected a byte[], found an array of {name}")
    (length,) = r.unpack(">i")
    value = r.take(length)
    r.new_handle(value)
    return value


def decode_bytes_hashmap(data: bytes) -> list[tuple[bytes | None, bytes | None]]:
    """The entries of a serialized `HashMap<byte[], byte[]>`, in stream order."""
    r = _Reader(data)
    if r.take(4) != _MAGIC:
        raise r.fail("not a Java serialization stream (bad magic)")
    if r.tag() != _TC_OBJECT:
        raise r.fail("expected an object")
    name, fields = _read_class_desc(r)
    if name != _HASHMAP:
        raise r.fail(f"expected {_HASHMAP}, found {name}")
    r.new_handle("hashmap")
    for code, _ in fields:
        r.unpack(_PRIMITIVES[code])
    # HashMap.writeObject's int pair (buckets, size) travels as block data, possibly split.
    block = bytearray()
    while len(block) < 8:
        tag = r.tag()
        if tag == _TC_BLOCKDATA:
            block += r.take(r.unpack(">B")[0])
        elif tag == _TC_BLOCKDATALONG:
            block += r.take(r.unpack(">i")[0])
        else:
            raise r.fail(f"expected HashMap block data, found tag 0x{tag:02x}")
    _, size = struct.unpack(">ii", bytes(block[:8]))
    if size < 0:
        raise r.fail(f"negative map size {size}")
    entries = [(_read_bytes_or_null(r), _read_bytes_or_null(r)) for _ in range(size)]
    if r.tag() != _TC_ENDBLOCKDATA:
        raise r.fail("expected the end of the HashMap")
    if r.pos != len(data):
        raise r.fail("trailing bytes after the HashMap")
    return entries
