"""MySQL/MariaDB DDL → changes to a `SchemaState`, with Debezium 3.6's column rules."""

from schema_history.ddl.parser import apply_ddl, apply_statement, strip_versioned_wrapper

__all__ = ["apply_ddl", "apply_statement", "strip_versioned_wrapper"]
