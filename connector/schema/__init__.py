"""The connector's view of the schema history: the tracker that applies DDL from the binlog, the
TABLE_MAP check against the in-memory schema, and the live server's SHOW CREATE TABLE fallback."""
