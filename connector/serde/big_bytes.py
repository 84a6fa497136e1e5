"""Row images holding big BYTES values (BLOBs), written as JsonConverter text straight into the record's bytes.

The usual path builds a record as one str and encodes it: a 16 MB BLOB is then alive at once as its
base64 bytes, their str, the quoted str, the row's str, the envelope's str and the encoded bytes, and an
UPDATE carries it twice (issue 17: 294 MB RSS for one such row). Here a BYTES value of at least
`BIG_BYTES` is base64'd in chunks straight into the output buffer: chunks of a multiple of 3 bytes encode
to exactly the text of the whole value, so the bytes are the same as the str path's; and `io.BytesIO`
grows in place and hands its buffer over without a copy (`getvalue()` of an unshared buffer), so the record
exists once. Every other field is written by its schema's own writer (null/default rules included),
joined as JsonConverter joins a struct: `{"name":value,...}`.
"""

from __future__ import annotations

import io
from binascii import b2a_base64
from typing import Any, Callable, Sequence

from connector.java.text import jackson_string
from connector.serde.connect_schema import DECIMAL_NAME, ConnectSchema, Type

__all__ = ["BIG_BYTES", "BigBytesRows"]

# Below this a value's copies cost less than the field-by-field writing: only BLOB-sized values take it.
BIG_BYTES = 1 << 20
# Input bytes per base64 chunk: a multiple of 3 (no padding inside), ~1 MiB of text alive at a time.
_CHUNK = 3 << 18


class BigBytesRows:
    """For one row (struct) schema: finds images holding big BYTES values and writes them into a `BytesIO`."""

    def __init__(self, row_schema: ConnectSchema, threshold: int = BIG_BYTES) -> None:
        self._row_writer = row_schema.writer
        self._threshold = threshold
        self.indexes = _bytes_fields(row_schema)
        self._fields: list[tuple[bytes, Callable[[Any], str]]] = [
            ((b"{" if i == 0 else b",") + jackson_string(f.name).encode("utf-8") + b":", f.schema.writer)
            for i, f in enumerate(row_schema.fields)]

    @classmethod
    def for_schema(cls, row_schema: ConnectSchema) -> "BigBytesRows | None":
        """The writer for `row_schema`, or None when it has no BYTES field (nothing to do per row then)."""
        return cls(row_schema) if _bytes_fields(row_schema) else None

    @property
    def threshold(self) -> int:
        """The size from which a BYTES value is written chunk by chunk."""
        return self._threshold

    def holds_big(self, image: Sequence[Any] | None) -> bool:
        """Whether `image` (a row in field order, or None) has a BYTES value of at least the threshold."""
        if image is None:
            return False
        threshold = self._threshold
        for i in self.indexes:
            value = image[i]
            if value is not None and len(value) >= threshold:
                return True
        return False

    def write(self, out: io.BytesIO, image: Sequence[Any] | None) -> None:
        """The row's JSON text (the row writer's, encoded) into `out`, big BYTES values base64'd chunk by chunk."""
        if not self.holds_big(image):
            out.write(self._row_writer(image).encode("utf-8"))
            return
        assert image is not None
        big = self.indexes
        threshold = self._threshold
        for i, (prefix, writer) in enumerate(self._fields):
            value = image[i]
            if i in big and value is not None and len(value) >= threshold:
                out.write(prefix + b'"')
                _write_base64(out, value)
                out.write(b'"')
            else:
                out.write(prefix + writer(value).encode("utf-8"))
        out.write(b"}")


def _bytes_fields(row_schema: ConnectSchema) -> tuple[int, ...]:
    # Plain BYTES fields only: a Decimal is BYTES too but is written from its number.
    return tuple(i for i, f in enumerate(row_schema.fields)
                 if f.schema.type is Type.BYTES and f.schema.name != DECIMAL_NAME)


def _write_base64(out: io.BytesIO, value: Any) -> None:
    # A memoryview slices without copying; bytes-likes other than bytes go through bytes() as `_bytes` does.
    view = memoryview(value if isinstance(value, (bytes, bytearray)) else bytes(value))
    for start in range(0, len(view), _CHUNK):
        out.write(b2a_base64(view[start:start + _CHUNK], newline=False))
    view.release()
