"""Streaming: binlog events to changes (the event-type handler table and Debezium's streaming offsets), the
reconnecting loop and its pause gate (blocking snapshots), the binlog streaming source the coordinator runs,
heartbeats and the binlog purge monitor."""
