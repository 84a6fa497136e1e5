"""binlog-cdc's daemon: MySQL/MariaDB binlog to Debezium-format records on Kafka.

The flow, as the imports run (each arrow is "hands its output to"):

    binlog/ ──► streaming/ ──► signals/ ──► dispatch/ ──┬─ DDL ──► schema/ ──► schema_history (parser, model, stores)
    (reader,    (event-type    (signal      (filters,   │
     decoder,    handlers,      table rows   routing)   └─ rows ─► events/ ──► dispatch/encoder ──► kafka/ ── acks ──► offsets/
     GTIDs)      offsets,       → actions)                         (table      (transforms/, then   (producer)      (tracker,
                 loop, pause)                                       schemas,    serde/ converters;                  committer,
    snapshot/ (initial, chunks, incremental) ── op=r ──► dispatch/  record     the JSON fast path)                  stores)
    streaming/heartbeat ──────────────────── heartbeat ──► dispatch/  kinds)
    notifications/ (log line; sink) ── snapshot progress ──► dispatch/

    converters/  column type → Connect value, used by events/ per table version
    transforms/  single message transforms and predicates, compiled per schema, run by dispatch/encoder
    gtids/       GTID sets and MariaDB GTID positions as values (a leaf: binlog, offsets, schema_history use it)
    java/        the JVM's byte-level behaviour (HashMap order, number text, murmur2, serialization)
    config/      Debezium properties → typed Settings, parsed once at the edge; refusals by name
    ops/         metrics, /health, status file
    ha/          high availability: the active instance's lease (a Kafka consumer group), standby, step-down

The coordinator (`coordinator`) decides how to start (snapshot/start_decision.py), runs the initial
snapshot, then streaming, runs ad hoc snapshots beside streaming and pauses streaming for blocking ones.
The root keeps only the composition root (`daemon`, with `signal_wiring`, `snapshot_wiring` and `standby_wiring`),
the coordinator, the command line (`cli`), the error tree (`errors`) and shutdown (`shutdown`).
The order imports run in (each package imports only packages below it) is declared as data in
tests/unit/test_imports.py (`LAYERS`), and checked there.
"""

__all__ = [
    "binlog",
    "config",
    "converters",
    "dispatch",
    "events",
    "gtids",
    "ha",
    "java",
    "kafka",
    "notifications",
    "offsets",
    "ops",
    "schema",
    "serde",
    "signals",
    "streaming",
    "transforms",
]
