"""The `murmur` hash of Debezium's PartitionRouting (`io.debezium.util.MurmurHash3`, Infinispan's variant).

It is the early MurmurHash3 "x64_64" draft, not the final x64_128 nor Kafka's murmur2: 16-byte blocks mixed
with multipliers that change after every block, seed 9001, and the hash is the top 32 bits of the 64-bit result.
A Java `String` is hashed over its UTF-8 bytes (an unpaired surrogate counts as `?`); any other object over the
4 little-endian bytes of its `hashCode()`. Java's tail bytes are signed and sign-extended before being
shifted into place, which changes the result for bytes >= 0x80; that quirk is reproduced on purpose.
Checked against the real jar: tests/unit/test_partition_murmur.py holds vectors printed by it.
"""

from __future__ import annotations

__all__ = ["murmur_bytes", "murmur_int", "murmur_string"]

_M64 = (1 << 64) - 1
_SEED = 9001
_H1 = -7824752305899900300 & _M64
_H2 = 6371974587529090045
_C1 = -8663945395140668459 & _M64
_C2 = 5545529020109919103


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (64 - r))) & _M64


def _fmix(k: int) -> int:
    k ^= k >> 33
    k = (k * 0xFF51AFD7ED558CCD) & _M64
    k ^= k >> 33
    k = (k * 0xC4CEB9FE1A85EC53) & _M64
    return k ^ (k >> 33)


def _digest(data: bytes) -> int:
    """The 64-bit hash of `data` (unsigned), as Java's `MurmurHash3_x64_64(byte[], 9001)`."""
    h1, h2, c1, c2 = _H1 ^ _SEED, _H2 ^ _SEED, _C1, _C2

    def mix(k1: int, k2: int) -> None:
        nonlocal h1, h2, c1, c2
        k1 = _rotl((k1 * c1) & _M64, 23)
        h1 = ((h1 ^ ((k1 * c2) & _M64)) + h2) & _M64
        h2 = _rotl(h2, 41)
        k2 = _rotl((k2 * c2) & _M64, 23)
        h2 = ((h2 ^ ((k2 * c1) & _M64)) + h1) & _M64
        h1 = (h1 * 3 + 1390208809) & _M64
        h2 = (h2 * 3 + 944331445) & _M64
        c1 = (c1 * 5 + 2071795100) & _M64
        c2 = (c2 * 5 + 1808688022) & _M64

    whole = len(data) - len(data) % 16
    for i in range(0, whole, 16):
        mix(int.from_bytes(data[i:i + 8], "little"), int.from_bytes(data[i + 8:i + 16], "little"))
    if len(data) > whole:
        k = [0, 0]
        for i in range(len(data) - 1, whole - 1, -1):
            b = data[i]
            signed = b - 256 if b & 0x80 else b  # Java's byte is signed; `(long) b << s` sign-extends
            k[(i - whole) >> 3] ^= (signed << (8 * (i & 7))) & _M64
        mix(k[0], k[1])
    h2 ^= len(data)
    h1 = (h1 + h2) & _M64
    h2 = (h2 + h1) & _M64
    h1, h2 = _fmix(h1), _fmix(h2)
    return (h1 + h2) & _M64


def _top32(h: int) -> int:
    top = h >> 32
    return top - (1 << 32) if top & 0x80000000 else top


def murmur_bytes(data: bytes) -> int:
    """`MurmurHash3.getInstance().hash(byte[])` as a signed 32-bit int."""
    return _top32(_digest(data))


def murmur_string(text: str) -> int:
    """`hash(String)`: UTF-8 bytes, each lone surrogate as `?` (Python's `replace` error handler does the same)."""
    return _top32(_digest(text.encode("utf-8", "replace")))


def murmur_int(hash_code: int) -> int:
    """`hash(Object)` for anything but a String or array: the hash of its `hashCode()`'s 4 little-endian bytes."""
    return _top32(_digest((hash_code & 0xFFFFFFFF).to_bytes(4, "little")))
