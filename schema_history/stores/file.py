"""`FileSchemaHistory`-compatible store: one compact JSON document per line, UTF-8.

Debezium's own `schema_history.jsonl` files load unchanged, and files written here load in Debezium.
Each append is written and fsync'ed before returning (the history must never lag the offsets).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

from schema_history.errors import HistoryStoreError
from schema_history.record import HistoryRecord


class FileHistoryStore:
    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def check_and_initialize(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # 0600: the history holds every captured table's DDL (umask may only narrow it further).
            self.path.touch(mode=0o600, exist_ok=True)
        except OSError as e:
            raise HistoryStoreError(f"cannot create schema history file {self.path}: {e}") from e

    def append(self, record: HistoryRecord) -> None:
        line = record.to_compact_json() + "\n"
        with open(os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600), "a", encoding="utf-8") as f:
            f.write(line)
            f.flush()
            os.fsync(f.fileno())

    def records(self) -> Iterator[HistoryRecord]:
        if not self.path.exists():
            return
        with open(self.path, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    yield HistoryRecord.from_json(line)

    def raw_records(self) -> Iterator[str]:
        """The records' JSON text, unparsed (recovery parses only what follows a schema checkpoint)."""
        if not self.path.exists():
            return
        with open(self.path, encoding="utf-8") as f:
            yield from (line for line in f if line.strip())

    def exists(self) -> bool:
        return self.path.exists() and self.path.stat().st_size > 0

    def close(self) -> None:
        pass
