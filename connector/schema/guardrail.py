"""`guardrail.collections.max`: at start, how many tables the connector would hold schemas for, against a limit.

As Debezium 3.6's MySqlConnectorTask + GuardrailValidator: every base table of every readable database
(`SHOW FULL TABLES ... 'BASE TABLE'`), filtered as the schema history filters them — the captured tables with
`schema.history.internal.store.only.captured.tables.ddl=true`, the captured databases' tables with
`...store.only.captured.databases.ddl=true`, else every table but the built-in databases' (with
`table.ignore.builtin`). Over the limit, `guardrail.collections.limit.action` warns or stops the start; the
messages are Debezium's.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import pymysql

from connector.config.modes import GuardrailCollectionsLimitAction
from connector.config.settings import Settings
from connector.config.table_filter import BUILTIN_DATABASES, TableFilter
from connector.errors import ServerSetupError
from schema_history.model import TableId

__all__ = ["check_guardrail", "guardrail_message"]

log = logging.getLogger(__name__)

_ALL_TABLES_HINT = (
    " Since 'schema.history.internal.store.only.captured.tables.ddl' is set to 'false', schemas of all the tables "
    "in the database are being captured. Increase the guardrail limit to allow the validation to pass. To reduce "
    "memory usage and validate only captured tables, consider setting "
    "'schema.history.internal.store.only.captured.tables.ddl=true' or "
    "'schema.history.internal.store.only.captured.databases.ddl=true'. WARNING: Changing these settings means the "
    "connector will NOT be able to automatically start capturing changes from tables that were not originally "
    "added to the include list. You would need to do schema history recovery to add those tables later.")


def all_base_tables(ctl: pymysql.connections.Connection) -> list[TableId]:
    """Every base table of every database the user can read (a database that cannot be listed is skipped)."""
    tables: list[TableId] = []
    with ctl.cursor() as cur:
        cur.execute("SHOW DATABASES")
        for (db,) in cur.fetchall():
            quoted = "`" + str(db).replace("`", "``") + "`"
            try:
                cur.execute(f"SHOW FULL TABLES IN {quoted} WHERE Table_type = 'BASE TABLE'")
            except pymysql.err.MySQLError as exc:
                log.warning("\t skipping database '%s' due to error reading tables: %s", db, exc)
                continue
            tables += [TableId(str(db), str(r[0])) for r in cur.fetchall()]
    return tables


def counted(settings: Settings, table_filter: TableFilter) -> tuple[Callable[[TableId], bool], bool]:
    """The filter of the tables the limit counts, and whether it counts all tables (no store.only.* setting)."""
    h, signal_table = settings.history, settings.signals.data_collection
    if h.store_only_captured_tables_ddl:
        # Debezium's dataCollectionFilter: the captured tables plus the signal table
        return (lambda t: table_filter.table_included(t) or t.dotted() == signal_table), False
    if h.store_only_captured_databases_ddl:
        return (lambda t: table_filter.database_included(t.database)), True
    builtin = settings.filters.ignore_builtin
    return (lambda t: not (builtin and t.database.lower() in BUILTIN_DATABASES)), True


def guardrail_message(count: int, limit: int, all_tables: bool) -> str:
    text = (f"Guardrail limit exceeded: {count} tables/collections configured for capture, but maximum allowed is "
            f"{limit}.")
    return text + (_ALL_TABLES_HINT if all_tables else "")


def check_guardrail(ctl: pymysql.connections.Connection, settings: Settings, table_filter: TableFilter) -> None:
    limit = settings.guardrail_max
    if limit <= 0:
        log.info("Guardrail validation skipped")
        return
    keep, all_tables = counted(settings, table_filter)
    count = sum(1 for t in all_base_tables(ctl) if keep(t))
    if count <= limit:
        log.info("Guardrail validation passed: %d tables/collections configured for capture (limit: %d)", count, limit)
        return
    message = guardrail_message(count, limit, all_tables)
    if settings.guardrail_action is GuardrailCollectionsLimitAction.FAIL:
        raise ServerSetupError(message, fix="raise guardrail.collections.max, capture fewer tables, or set "
                                            "guardrail.collections.limit.action=warn")
    log.warning("%s", message)
