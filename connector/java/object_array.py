"""A Java `Object[]` of boxed keys in Java serialization, hex-encoded: how Debezium stores an incremental
snapshot's `incremental_snapshot_primary_key` / `incremental_snapshot_maximum_key` (AbstractIncrementalSnapshot-
Context.arrayToSerializedString: ObjectOutputStream, then HexConverter, lower case).

Key values of MySQL tables are what MySQL Connector/J hands Debezium: Integer (signed INT and smaller, and
unsigned up to MEDIUMINT), Long (BIGINT, INT UNSIGNED), String (CHAR/VARCHAR/TEXT keys). `JavaKey` says which
box a Python value gets; any other key type has no encoding here (TypeError), so such a table is refused by
the incremental snapshot with a message rather than stored wrongly.

Stream layout (java.io.ObjectStreamConstants): magic ACED, version 5, then TC_ARRAY with the `[Ljava.lang.Object;`
class descriptor, the length and each element; a boxed number is TC_OBJECT with its class descriptor (the
first time; later a TC_REFERENCE to its handle) whose super class is java.lang.Number, then the value; a
String is TC_STRING. Handles are numbered from 0x7E0000 in the order Java assigns them.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any, Sequence

__all__ = ["INTEGER", "LONG", "STRING", "JavaKey", "deserialize_keys", "serialize_keys"]

_MAGIC = b"\xac\xed\x00\x05"
TC_NULL, TC_REFERENCE, TC_CLASSDESC, TC_OBJECT, TC_STRING, TC_ARRAY, TC_ENDBLOCKDATA = (
    0x70, 0x71, 0x72, 0x73, 0x74, 0x75, 0x78)
_BASE_HANDLE = 0x7E0000
_SERIALIZABLE = 0x02
_OBJECT_ARRAY = ("[Ljava.lang.Object;", 0x90CE589F1073296C)
_NUMBER = ("java.lang.Number", 0x86AC951D0B94E08B)


@dataclass(frozen=True)
class JavaKey:
    """A boxed Java type: class name, serialVersionUID, the field's type code and struct format."""

    class_name: str
    uid: int
    code: str  # "I" int, "J" long; "" for String
    fmt: str


INTEGER = JavaKey("java.lang.Integer", 0x12E2A0A4F7818738, "I", ">i")
LONG = JavaKey("java.lang.Long", 0x3B8BE490CC8F23DF, "J", ">q")
STRING = JavaKey("java.lang.String", 0, "", "")
_BY_CLASS = {k.class_name: k for k in (INTEGER, LONG)}


def _utf(text: str) -> bytes:
    data = text.encode("utf-8")  # keys here are ASCII or BMP text: modified UTF-8 differs only for NUL/astral
    return struct.pack(">H", len(data)) + data


class _Writer:
    def __init__(self) -> None:
        self.out = bytearray(_MAGIC)
        self.handles: dict[str, int] = {}
        self.next_handle = _BASE_HANDLE

    def assign(self, name: str | None = None) -> None:
        if name is not None:
            self.handles[name] = self.next_handle
        self.next_handle += 1

    def class_desc(self, name: str, uid: int, fields: Sequence[tuple[str, str]], super_desc: tuple[str, int] | None
                   ) -> None:
        if name in self.handles:
            self.out += bytes([TC_REFERENCE]) + struct.pack(">I", self.handles[name])
            return
        self.out += bytes([TC_CLASSDESC]) + _utf(name) + struct.pack(">Q", uid) + bytes([_SERIALIZABLE])
        self.assign(name)
        self.out += struct.pack(">H", len(fields))
        for code, field_name in fields:
            self.out += code.encode() + _utf(field_name)
        self.out += bytes([TC_ENDBLOCKDATA])
        if super_desc is None:
            self.out += bytes([TC_NULL])
        else:
            self.class_desc(super_desc[0], super_desc[1], (), None)


def serialize_keys(values: Sequence[Any] | None, types: Sequence[JavaKey]) -> str:
    """`values` (None: a null array) as Debezium's hex string, each boxed as `types` says."""
    w = _Writer()
    if values is None:
        w.out.append(TC_NULL)
        return w.out.hex()
    w.out.append(TC_ARRAY)
    w.class_desc(*_OBJECT_ARRAY, (), None)
    w.assign()  # the array itself
    w.out += struct.pack(">i", len(values))
    for value, java in zip(values, types, strict=True):
        if value is None:
            w.out.append(TC_NULL)
        elif java is STRING:
            if not isinstance(value, str):
                raise TypeError(f"key value {value!r} is not a String")
            w.out += bytes([TC_STRING]) + _utf(value)
            w.assign()
        else:
            if not isinstance(value, int) or isinstance(value, bool):
                raise TypeError(f"key value {value!r} is not an integer")
            w.out.append(TC_OBJECT)
            w.class_desc(java.class_name, java.uid, ((java.code, "value"),), _NUMBER)
            w.assign()
            w.out += struct.pack(java.fmt, value)
    return w.out.hex()


def deserialize_keys(text: str) -> tuple[Any, ...] | None:
    """The key values of a hex string written by Debezium (or `serialize_keys`); ValueError if it holds
    anything but a null or an Object[] of Integer, Long and String."""
    data = bytes.fromhex(text)
    if not data.startswith(_MAGIC):
        raise ValueError("not a Java serialization stream")
    pos = len(_MAGIC)
    handles: list[Any] = []

    def take(n: int) -> bytes:
        nonlocal pos
        if pos + n > len(data):
            raise ValueError("truncated Java serialization stream")
        chunk = data[pos:pos + n]
        pos += n
        return chunk

    def utf() -> str:
        (length,) = struct.unpack(">H", take(2))
        return take(length).decode("utf-8")

    def class_desc() -> str | None:
        tag = take(1)[0]
        if tag == TC_NULL:
            return None
        if tag == TC_REFERENCE:
            (handle,) = struct.unpack(">I", take(4))
            return str(handles[handle - _BASE_HANDLE])
        if tag != TC_CLASSDESC:
            raise ValueError(f"unexpected tag 0x{tag:02x} for a class descriptor")
        name = utf()
        take(9)  # serialVersionUID, flags
        handles.append(name)
        (count,) = struct.unpack(">H", take(2))
        for _ in range(count):
            code = take(1).decode()
            utf()
            if code in "[L":
                raise ValueError("object fields are not supported")
        if take(1)[0] != TC_ENDBLOCKDATA:
            raise ValueError("class annotations are not supported")
        class_desc()  # super class
        return name

    tag = take(1)[0]
    if tag == TC_NULL:
        return None
    if tag != TC_ARRAY or class_desc() != _OBJECT_ARRAY[0]:
        raise ValueError("not an Object[]")
    handles.append("array")
    (length,) = struct.unpack(">i", take(4))
    values: list[Any] = []
    for _ in range(length):
        tag = take(1)[0]
        if tag == TC_NULL:
            values.append(None)
        elif tag == TC_STRING:
            values.append(utf())
            handles.append(values[-1])
        elif tag == TC_OBJECT:
            name = class_desc()
            java = _BY_CLASS.get(name or "")
            if java is None:
                raise ValueError(f"key of class {name} is not supported")
            handles.append(name)
            (value,) = struct.unpack(java.fmt, take(struct.calcsize(java.fmt)))
            values.append(value)
        else:
            raise ValueError(f"unexpected tag 0x{tag:02x} in the key array")
    return tuple(values)
