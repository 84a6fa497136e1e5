"""The schema over time: DDL parsing, history records, stores and recovery.

Imports only the leaves of `connector` (`connector.java.hashmap`). Public surface below.
"""

from schema_history.changes import SchemaChange, TableChange, TableChangeType
from schema_history.ddl.filters import DEFAULT_DDL_FILTER, DdlFilter
from schema_history.ddl.parser import apply_ddl, apply_statement
from schema_history.errors import DdlParseError, HistoryCorruptError, HistoryStoreError, SchemaHistoryError
from schema_history.history import SchemaHistory
from schema_history.model import Column, Table, TableId, Tables
from schema_history.record import HistoryRecord
from schema_history.recovery import is_at_or_before, recover
from schema_history.settings import SchemaHistorySettings
from schema_history.state import SchemaState

__all__ = [
    "Column", "Table", "TableId", "Tables",
    "SchemaState", "SchemaChange", "TableChange", "TableChangeType",
    "apply_ddl", "apply_statement", "DdlFilter", "DEFAULT_DDL_FILTER",
    "HistoryRecord", "SchemaHistory", "SchemaHistorySettings",
    "recover", "is_at_or_before",
    "SchemaHistoryError", "DdlParseError", "HistoryCorruptError", "HistoryStoreError",
]
