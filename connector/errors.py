"""Every error binlog-cdc raises on purpose, as one tree, and the exit codes they end in.

Each error is either Terminal (retrying cannot help: fix configuration, server, data) or Retriable
(a reconnect or a restart may cure it), and belongs to one category saying which part failed. It
carries a structured `where` (binlog file:pos, table, topic), the `statement` at fault and the `fix`,
and renders as one line: `<cause> at <file:pos> table <t>: <statement...>. Fix: <...>`.

    BinlogCdcError                          cause, where, statement, fix; str() is one line
    ├── TerminalError                       mixin: retrying cannot help            -> exit 2
    ├── RetriableError                      mixin: a retry or restart may help     -> exit 3 once retries ran out
    │
    ├── ConfigError (T)                     invalid/missing properties, every problem in one message
    ├── SourceError                         the MySQL/MariaDB side
    │   ├── ServerSetupError (T)            binlog_format/row image/privileges/purged position/modes
    │   ├── BinlogDecodeError (T)           a binlog event cannot be decoded (PayloadError: compressed transactions)
    │   ├── SourceConnectionError (R)       cannot connect, connection lost
    │   └── ReselectFailed (T)              a post processor's re-select failed (reselect.error.handling.mode=fail)
    ├── SchemaError (T)                     DDL or TABLE_MAP inconsistent with the schema history
    │   ├── UnsupportedBinlogColumn (T)     a column type the binlog decoder cannot read
    │   └── RowValueError (T)               a row value its column's converter or schema cannot take
    │   └── SchemaHistoryError (T)          schema_history/errors.py: DdlParseError, HistoryCorruptError,
    │                                       HistoryStoreError
    ├── SinkError                           Kafka (connector/kafka/errors.py re-exports these)
    │   ├── KafkaConfigError (T)            unknown/invalid producer property, topic cannot be created
    │   ├── KafkaDeliveryError (T)          Kafka refused a record for good
    │   ├── KafkaTransactionFatal (T)       the transactional producer cannot continue (fenced)
    │   ├── KafkaWriterClosed (T)           the writer was used after close()
    │   ├── KafkaBackpressureTimeout (R)    no acknowledgement within the send timeout
    │   ├── KafkaWriterInterrupted (R)      shutdown requested while blocked on back-pressure
    │   ├── KafkaTransactionAborted (R)     the transaction was aborted: restart from the committed offset
    │   ├── SteppedDown (R)                 connector/ha: another instance took over (HA); a restart is a standby
    │   ├── SchemaRegistryError (T)         the registry refused a schema (IncompatibleSchemaError: HTTP 409)
    │   └── SchemaRegistryUnavailable (R)   the registry cannot be reached
    └── OffsetStoreError                    the offsets file/topic (connector/offsets/store.py re-exports these)
        ├── OffsetStoreUnusable (T)         cannot be read or written, or holds something that is not an offset
        └── OffsetFlushTimeout (R)          a write was not confirmed in time; the next commit writes it again

Exit codes (README "Running it"; mapped in one place, `connector.cli.main`):
0 clean stop, 1 `validate` found problems, 2 terminal error, 3 retriable error that outlived its retries,
4 internal error (a bug: one summary line, the traceback at DEBUG), 128+N a second signal N (immediate exit).

This module is a leaf: it imports nothing from the project, so `schema_history` may build on it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import ClassVar

__all__ = [
    "ExitCode", "Where", "one_line",
    "BinlogCdcError", "TerminalError", "RetriableError",
    "ConfigError",
    "SourceError", "ServerSetupError", "BinlogDecodeError", "SourceConnectionError", "ReselectFailed",
    "SchemaError", "UnsupportedBinlogColumn", "RowValueError", "TransformError",
    "SinkError", "KafkaWriterError", "KafkaConfigError", "KafkaDeliveryError", "KafkaTransactionFatal",
    "KafkaWriterClosed", "KafkaBackpressureTimeout", "KafkaWriterInterrupted", "KafkaTransactionAborted",
    "SchemaRegistryError", "IncompatibleSchemaError", "SchemaRegistryUnavailable",
    "OffsetStoreError", "OffsetStoreUnusable", "OffsetFlushTimeout",
]


class ExitCode(enum.IntEnum):
    """The process exit codes, as documented in README "Running it"."""

    OK = 0  # clean stop: SIGTERM/SIGINT, or a snapshot-only mode finished
    PROBLEMS = 1  # `validate` found problems a start would run into
    TERMINAL = 2  # configuration or another terminal error: fix, then start again
    RETRIABLE = 3  # a transient failure outlived its retries: starting again may work
    INTERNAL = 4  # a bug: the summary line names it, --log-level DEBUG shows the traceback


# A statement is shown up to this many characters: enough to recognise it, short enough for one log line.
STATEMENT_CHARS = 300


def one_line(text: str) -> str:
    """`text` with every run of whitespace (newlines included) folded into one space."""
    return " ".join(text.split())


@dataclass(frozen=True)
class Where:
    """Where a failure happened; every part is optional."""

    file: str | None = None
    pos: int | None = None
    table: str | None = None
    topic: str | None = None

    def __str__(self) -> str:
        parts = []
        if self.file:
            parts.append(f"at {self.file}:{self.pos}" if self.pos is not None else f"at {self.file}")
        if self.table:
            parts.append(f"table {self.table}")
        if self.topic:
            parts.append(f"topic {self.topic}")
        return " ".join(parts)


class BinlogCdcError(Exception):
    """Base of the tree. `retriable` comes from the TerminalError/RetriableError mixin of the concrete class."""

    retriable: ClassVar[bool] = False

    def __init__(self, cause: str, *, where: Where | None = None, statement: str | None = None,
                 fix: str | None = None) -> None:
        self.cause = cause
        self.where = where or Where()
        self.statement = statement
        self.fix = fix
        super().__init__(self.render())

    def render(self) -> str:
        """`<cause> at <file:pos> table <t>: <statement...>. Fix: <...>`, on one line."""
        text = one_line(self.cause)
        where = str(self.where)
        if where:
            text += f" {where}"
        if self.statement:
            shown = one_line(self.statement)
            if len(shown) > STATEMENT_CHARS:
                shown = shown[:STATEMENT_CHARS] + "..."
            text += f": {shown}"
        if self.fix:
            text = text.rstrip(".") + f". Fix: {one_line(self.fix)}"
        return text

    def __str__(self) -> str:
        return self.render()


class TerminalError(BinlogCdcError):
    """Mixin: retrying cannot help."""

    retriable = False


class RetriableError(BinlogCdcError):
    """Mixin: a reconnect or a restart may cure it."""

    retriable = True


# ---------------------------------------------------------------- configuration


class ConfigError(TerminalError):
    """Invalid or missing properties; `problems` lists every one of them, each naming its property and fix."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = [one_line(p) for p in problems]
        count = f"{len(self.problems)} problem{'s' if len(self.problems) != 1 else ''}"
        super().__init__(f"invalid configuration ({count}): " + "; ".join(self.problems))


# ---------------------------------------------------------------- source (MySQL/MariaDB)


class SourceError(BinlogCdcError):
    """Category: the source server or its binlog."""


class ServerSetupError(SourceError, TerminalError):
    """The server refuses what change data capture needs (settings, privileges, a purged position)."""


class BinlogDecodeError(SourceError, TerminalError):
    """A binlog event cannot be decoded (corrupt, truncated or of an unknown kind)."""


class SourceConnectionError(SourceError, RetriableError):
    """The server cannot be reached, or the connection dropped."""


class ReselectFailed(SourceError, TerminalError):
    """reselect.error.handling.mode=fail: a re-select found no row or its query failed (dispatch/reselect.py)."""


# ---------------------------------------------------------------- schema


class SchemaError(TerminalError):
    """DDL that cannot be understood, or binlog rows that disagree with the schema history."""


class UnsupportedBinlogColumn(SchemaError):
    """A TABLE_MAP holds a column type the binlog decoder cannot read (exclude or change the column)."""


class RowValueError(SchemaError):
    """A row holds a value its column cannot be written as (an unexpected type, a null in a required field):
    the cause names the column (connector/events/row_errors.py)."""


# ---------------------------------------------------------------- sink (Kafka)


class TransformError(TerminalError):
    """A configured transform cannot handle a record, where Debezium's transform fails and stops the task
    too; the record and the ones after it are read again at the next start."""


class SinkError(BinlogCdcError):
    """Category: Kafka and the schema registry."""


# The writer's errors were a tree of their own; the name stays for callers that catch them all.
KafkaWriterError = SinkError


class KafkaConfigError(SinkError, TerminalError):
    """A producer property is unknown, unsupported by librdkafka, or invalid; or a topic cannot be created."""


class KafkaDeliveryError(SinkError, TerminalError):
    """Kafka did not accept a record; nothing from this record on may be committed."""

    def __init__(self, topic: str, partition: int | None, error: object) -> None:
        self.topic = topic
        self.partition = partition
        self.error = error
        shown = topic if partition is None or partition < 0 else f"{topic}[{partition}]"
        super().__init__(f"delivery to {shown} failed: {error}",
                         fix="check the broker and the topic (the cause above names the problem); this record and "
                             "the ones after it are read from the binlog again at the next start")


class KafkaTransactionFatal(SinkError, TerminalError):
    """The transactional producer cannot continue (e.g. fenced by another instance with the same transactional.id)."""


class KafkaWriterClosed(SinkError, TerminalError):
    """The writer was used after `close()` (a bug in the caller)."""


class KafkaBackpressureTimeout(SinkError, RetriableError):
    """`send` waited longer than `block_timeout_s` for the broker to acknowledge earlier records."""


class KafkaWriterInterrupted(SinkError, RetriableError):
    """`should_stop()` became true while `send` was blocked on back-pressure."""


class KafkaTransactionAborted(SinkError, RetriableError):
    """The transaction was aborted: none of its records (nor its offsets) are visible. Restart from the
    last committed offset with a new writer."""


class SchemaRegistryError(SinkError, TerminalError):
    """The registry refused a schema for good."""


class IncompatibleSchemaError(SchemaRegistryError):
    """HTTP 409: the schema is incompatible with the subject's registered versions."""


class SchemaRegistryUnavailable(SinkError, RetriableError):
    """The registry could not be reached or failed (5xx)."""


# ---------------------------------------------------------------- offsets


class OffsetStoreError(BinlogCdcError):
    """Category: the offsets file or topic."""


class OffsetStoreUnusable(OffsetStoreError, TerminalError):
    """The store cannot be read or written, or holds something that is not an offset."""


class OffsetFlushTimeout(OffsetStoreError, RetriableError):
    """Writing an offset was not confirmed in time; the next commit writes it again."""
