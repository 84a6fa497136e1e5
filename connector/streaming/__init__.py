"""Streaming: binlog events to changes (the event-type handler table and Debezium's streaming offsets),
heartbeats and the binlog purge monitor."""
