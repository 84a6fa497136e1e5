"""Offsets in a Kafka Connect `FileOffsetBackingStore` file (`offset.storage.file.filename`).

The file is a Java-serialized `HashMap<byte[], byte[]>` of partition key -> offset value, both schemaless
JsonConverter bytes (see `java_serialization`). It may hold other connectors' entries: they are kept as
they are. Unlike Connect, which overwrites the file in place, we write a temporary file, fsync it and
rename it over the old one, so a crash leaves either the old or the new offsets, never a torn file.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any, Mapping

from connector.java.serialization import (
    JavaSerializationError,
    decode_bytes_hashmap,
    encode_bytes_hashmap,
)
from connector.errors import OffsetStoreUnusable
from connector.offsets.store import parse_offset, render_offset, same_partition_key

__all__ = ["FileOffsetStore", "read_offsets_file", "write_offsets_file"]


def read_offsets_file(path: str | os.PathLike[str]) -> list[tuple[bytes | None, bytes | None]]:
    """All (key, value) entries of a Connect offsets file; [] if it does not exist or is empty."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise OffsetStoreUnusable(f"cannot read offsets file {path}: {exc.strerror or exc}",
                                  fix="make offset.storage.file.filename readable by the connector") from exc
    if not data:
        return []
    try:
        return decode_bytes_hashmap(data)
    except JavaSerializationError as exc:
        raise OffsetStoreUnusable(
            f"offsets file {path} is not a Kafka Connect FileOffsetBackingStore file ({exc})",
            fix="restore the file from a backup, or move it away to start without offsets (snapshot.mode decides "
                "what a start without offsets does)") from exc


def write_offsets_file(path: str | os.PathLike[str], entries: list[tuple[bytes | None, bytes | None]]) -> None:
    """Atomically replace `path` with a serialized HashMap of `entries`."""
    target = Path(path)
    data = encode_bytes_hashmap(entries)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        # The rename is durable only once the directory entry is.
        dir_fd = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except OSError as exc:
        raise OffsetStoreUnusable(f"cannot write offsets file {path}: {exc.strerror or exc}",
                                  fix="make the directory of offset.storage.file.filename writable and not full"
                                  ) from exc


class FileOffsetStore:
    """`OffsetStore` over a Connect offsets file, for the connector whose partition key is `key`."""

    def __init__(self, path: str | os.PathLike[str], key: bytes) -> None:
        self._path = Path(path)
        self._key = key

    @property
    def path(self) -> Path:
        return self._path

    def load(self) -> dict[str, Any] | None:
        for raw_key, raw_value in read_offsets_file(self._path):
            if same_partition_key(raw_key, self._key):
                # A null value is how Connect records a deleted (reset) offset.
                return None if raw_value is None else parse_offset(raw_value, str(self._path))
        return None

    def save(self, offset: Mapping[str, Any]) -> None:
        # Re-read so entries of other connectors sharing the file survive; the file is small.
        entries = read_offsets_file(self._path)
        value = render_offset(offset)
        for i, (raw_key, _) in enumerate(entries):
            if same_partition_key(raw_key, self._key):
                entries[i] = (self._key, value)
                break
        else:
            entries.append((self._key, value))
        write_offsets_file(self._path, entries)

    def close(self) -> None:
        """Nothing is held open between saves."""
