"""binlog-cdc's daemon: MySQL/MariaDB binlog to Debezium-format records on Kafka.

The flow, as the imports run (each arrow is "hands its output to"):

    binlog/ ──► streaming/ ──► dispatch/ ──┬─ DDL ──► schema/ ──► schema_history (parser, model, stores)
    (reader,    (event-type    (filters,   │
     decoder,    handlers,     routing)    └─ rows ─► events/ ──► serde/ ──► kafka/ ── acks ──► offsets/
     GTIDs)      offsets)                             (table      (Connect    (producer)        (tracker,
                                                       schemas,    JSON,                         committer,
    snapshot/ (initial, parallel) ── op=r ──► dispatch/   envelope)   Avro)                        stores)

    converters/  column type → Connect value, used by events/ per table version
    java/        the JVM's byte-level behaviour (HashMap order, number text, murmur2, serialization)
    config/      Debezium properties → typed Settings, parsed once at the edge
    ops/         metrics, /health, status file

The coordinator (`coordinator`) decides how to start (snapshot/start_decision.py), runs the initial
snapshot, then streaming, and pauses streaming for blocking snapshots.
The root keeps only the composition root (`daemon`), the coordinator of snapshot and streaming,
the command line (`cli`), the error tree (`errors`) and shutdown (`shutdown`).
"""

__all__ = [
    "binlog",
    "config",
    "converters",
    "dispatch",
    "events",
    "java",
    "kafka",
    "offsets",
    "ops",
    "schema",
    "serde",
    "streaming",
]
