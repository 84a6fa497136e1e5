"""Settings of the schema history, parsed once at the edge (`schema.history.internal.*`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from schema_history.ddl.filters import DEFAULT_DDL_FILTER
from schema_history.model import TableId


def _capture_all(table_id: TableId) -> bool:
    return True


@dataclass(frozen=True)
class SchemaHistorySettings:
    skip_unparseable_ddl: bool = False
    """`schema.history.internal.skip.unparseable.ddl`: log and skip DDL that cannot be parsed."""
    store_only_captured_tables_ddl: bool = False
    """`schema.history.internal.store.only.captured.tables.ddl`: record only DDL touching captured tables."""
    store_only_captured_databases_ddl: bool = False
    """`schema.history.internal.store.only.captured.databases.ddl`: record only DDL of captured databases."""
    ddl_filter: tuple[str, ...] = DEFAULT_DDL_FILTER
    """`schema.history.internal.ddl.filter`: regexes of statements never applied nor recorded."""
    include_comments: bool = False
    checkpoint_interval: int = 0
    """Beyond Debezium: after this many recorded statements, record the whole schema (0 = never)."""
    """`include.schema.comments`: keep column and table COMMENTs in the parsed tables (and history)."""
    prefer_ddl: bool = False
    """`schema.history.internal.prefer.ddl`: recover by re-parsing DDL instead of using tableChanges."""
    table_filter: Callable[[TableId], bool] = field(default=_capture_all)
    """The connector's table include/exclude filters (decides what "captured" means)."""
    database_filter: Callable[[str], bool] = field(default=lambda db: True)
    """The connector's database include/exclude filters."""
    gtid_source_filter: Callable[[str], bool] | None = None
    """`gtid.source.includes/excludes` as a predicate on a GTID source (MySQL server UUID, MariaDB
    `domain-server`); recovery compares GTID positions on the followed sources only. None: all followed."""
