"""Error types. Each says whether retrying can help, and its message names where and how to fix.

    BinlogCdcError
    ├── TerminalError            retrying cannot help: fix configuration, server settings or data
    │   ├── ConfigError          invalid/missing properties (all problems listed at once)
    │   ├── ServerSetupError     binlog_format/row_image/privileges/purged position
    │   ├── SchemaError          DDL or table-map inconsistencies (names table, binlog file/pos, last DDL)
    │   └── SinkError            Kafka refused a record for good (names topic and error)
    └── RetriableError           transient: connection drops, broker unavailable
"""

from __future__ import annotations


class BinlogCdcError(Exception):
    retriable: bool = False


class TerminalError(BinlogCdcError):
    retriable = False


class RetriableError(BinlogCdcError):
    retriable = True


class ConfigError(TerminalError):
    def __init__(self, problems: list[str]) -> None:
        self.problems = list(problems)
        lines = "\n".join(f"  - {p}" for p in self.problems)
        super().__init__(f"invalid configuration ({len(self.problems)} problem(s)):\n{lines}")


class ServerSetupError(TerminalError):
    pass


class SchemaError(TerminalError):
    pass


class SinkError(TerminalError):
    pass


class SourceConnectionError(RetriableError):
    pass
