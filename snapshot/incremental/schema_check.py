"""incremental.snapshot.allow.schema.changes=true: Debezium 3.6.3's schema verification of the table being read.

A chunk is read only once the table's result columns (`SELECT * ... LIMIT 0`, the driver's description: names,
types, sizes, nullability) were the same in two windows in a row (`schemaHistoryIsUpToDate`): the first window of
a table, and the first one after its columns changed, close empty, which gives streaming the time to take a DDL
the table already has. A chunk whose query returns other columns than the verified ones is dropped and the table
verified again (`checkSchemaChanges`, then `revertChunk`). The state lives in the context and resets per table
(`resetChunk`); it is not stored in offsets, as in Debezium.
"""

from __future__ import annotations

import logging

import pymysql
from sqlglot import exp

from schema_history.model import TableId
from snapshot.chunks import DIALECT, table_expression
from snapshot.incremental.context import IncrementalContext

__all__ = ["ResultColumnsChanged", "check_chunk_columns", "schema_verified"]

log = logging.getLogger(__name__)


class ResultColumnsChanged(Exception):
    """The chunk query's columns differ from the verified ones: the window closes empty."""


def schema_verified(conn: pymysql.connections.Connection, context: IncrementalContext, table_id: TableId) -> bool:
    """Whether the table's result columns equal those the previous window saw (then until they change)."""
    if context.schema_verified:
        return True
    with conn.cursor() as cur:
        cur.execute(exp.select(exp.Star()).from_(table_expression(table_id)).limit(0).sql(dialect=DIALECT))
        shape = tuple(cur.description or ())
    conn.commit()
    if context.result_shape is not None:
        context.schema_verified = context.result_shape == shape
    context.result_shape = shape
    log.info("incremental snapshot's schema verification of %s passed = %s", table_id.dotted(),
             context.schema_verified)
    return context.schema_verified


def check_chunk_columns(context: IncrementalContext, description: tuple, table_id: TableId) -> None:
    """ResultColumnsChanged (the chunk reverted, verification to start again) when the chunk query returned other
    columns than the verified ones: the schema history may not have the table's DDL yet."""
    if description == context.result_shape:
        return
    log.info("incremental snapshot: the columns of %s changed since its schema was verified; the chunk is read "
             "again once they are stable", table_id.dotted())
    context.result_shape, context.schema_verified = description, False
    context.revert_chunk()
    raise ResultColumnsChanged()
