"""Incremental snapshots (DBLog watermarks and de-duplication) beside streaming: context.py (state and
Debezium's `incremental_snapshot_*` offset keys), source.py (chunks between watermarks)."""
