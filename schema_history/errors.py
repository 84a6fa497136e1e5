"""Errors raised by the schema history.

    SchemaHistoryError
    ├── DdlParseError          a shape-changing statement could not be understood (Terminal unless skipped)
    ├── HistoryCorruptError    a stored history record cannot be read back (Terminal)
    └── HistoryStoreError      the store refuses to start or to write (Terminal: fix the store)
"""

from __future__ import annotations


class SchemaHistoryError(Exception):
    """Base of every schema-history failure; none of them is cured by retrying."""

    retriable = False


class DdlParseError(SchemaHistoryError):
    """A DDL statement that may change table shapes could not be parsed.

    The message names the statement; set `schema.history.internal.skip.unparseable.ddl=true` to skip
    such statements (at the price of a possibly wrong schema afterwards).
    """

    def __init__(self, message: str, ddl: str, position: int | None = None) -> None:
        self.ddl = ddl
        self.position = position
        where = f" at offset {position}" if position is not None else ""
        shown = ddl if len(ddl) <= 500 else ddl[:500] + "..."
        super().__init__(f"{message}{where} in DDL statement: {shown}")


class HistoryCorruptError(SchemaHistoryError):
    """A history record is not valid JSON or lacks required fields."""


class HistoryStoreError(SchemaHistoryError):
    """The history store cannot be used as configured (e.g. Kafka topic with several partitions)."""
