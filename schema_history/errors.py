"""Errors raised by the schema history: the `SchemaError` branch of the connector's one error tree
(connector/errors.py, a leaf this package may import). None of them is cured by retrying.

    SchemaError (connector.errors)
    └── SchemaHistoryError
        ├── DdlParseError          a shape-changing statement could not be understood (unless skipped)
        ├── HistoryCorruptError    a stored history record cannot be read back
        └── HistoryStoreError      the store refuses to start or to write (fix the store)
"""

from __future__ import annotations

from connector.errors import SchemaError

SKIP_UNPARSEABLE_FIX = ("set schema.history.internal.skip.unparseable.ddl=true to skip such statements (the tables "
                        "they change may then be decoded with a stale schema)")


class SchemaHistoryError(SchemaError):
    """Base of every schema-history failure."""


class DdlParseError(SchemaHistoryError):
    """A DDL statement that may change table shapes could not be parsed.

    `ddl` is the statement and `position` the character offset of the failure in it; the fix is
    `schema.history.internal.skip.unparseable.ddl=true` (at the price of a possibly wrong schema afterwards).
    """

    def __init__(self, message: str, ddl: str, position: int | None = None) -> None:
        self.ddl = ddl
        self.position = position
        at = f" at character {position}" if position is not None else ""
        self.reason = f"{message}{at}"
        super().__init__(f"{self.reason} in DDL statement", statement=ddl, fix=SKIP_UNPARSEABLE_FIX)


class HistoryCorruptError(SchemaHistoryError):
    """A history record is not valid JSON or lacks required fields."""


class HistoryStoreError(SchemaHistoryError):
    """The history store cannot be used as configured (e.g. Kafka topic with several partitions)."""
