"""spark_sink: Debezium change topics → typed Spark DataFrames → tables kept equal to the source.

Reads only the wire format (never imports connector/, snapshot/ or schema_history/), so it
works on this project's output and on real Debezium's alike.

    Kafka ──► reader (JVM "kafka" source | Python "binlog_cdc_kafka" source) ──► raw rows
    raw rows ──► wire (json | json-schemaless | avro) ──► decoder + semantic_types ──► typed rows
    typed rows ──► applier (truncate, last change per key by binlog position: ordering) ──► targets
                   (Delta via deltalake | Delta via Spark MERGE | Parquet changelog + current | Iceberg)

Typical job::

    raw = spark_sink.read_kafka(spark, "broker:9092", topic_pattern=r"dbserver1\\.inventory\\..*")
    raw.writeStream.option("checkpointLocation", ckpt).foreachBatch(
        lambda df, batch_id: spark_sink.apply_changes(df, lambda topic: DeltaTarget(f"/lake/{topic}"),
                                                      batch_id=batch_id)).start()
"""

from __future__ import annotations

import importlib
from typing import Any

# Names are imported on first use (PEP 562): Spark's Python workers import spark_sink.kafka_source
# and must connect back to the JVM within a fixed 10 s; importing the whole package eagerly
# (applier, sqlglot, ...) took 9 s of that on a loaded 2-core host (issue 25).
_HOMES = {
    "spark_sink.applier": ("ApplyResult", "apply_changes"),
    "spark_sink.connect_schema": ("ConnectField", "from_avro", "from_connect_json"),
    "spark_sink.ddl_schema": ("schemas_from_history",),
    "spark_sink.decoder": ("KAFKA_COLUMNS", "META_COLUMNS", "TableLayout"),
    "spark_sink.evolution": ("SchemaEvolution", "SchemaChangeRefused"),
    "spark_sink.history": ("HistoryTarget",),
    "spark_sink.iceberg": ("IcebergTarget",),
    "spark_sink.kafka_source": ("KafkaDataSource",),
    "spark_sink.ordering": ("latest_per_key",),
    "spark_sink.reader": ("DecodeOptions", "decode_batch", "decode_split", "discover_versions", "history_schemas",
                          "read_changes", "read_kafka", "split_records"),
    "spark_sink.semantic_types": ("TimeMode",),
    "spark_sink.targets": ("DeltaTarget", "FanOut", "ParquetTarget", "SparkDeltaTarget", "Target", "read_current"),
    "spark_sink.transactions": ("CommitPoint", "commit_point", "commit_points"),
    "spark_sink.registry": ("HttpSchemaRegistry", "RegistryConfig"),
    "spark_sink.wire": ("SchemaRegistry", "ValueFormat"),
}
_MODULE_OF = {name: module for module, names in _HOMES.items() for name in names}


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'spark_sink' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_MODULE_OF])


__all__ = [
    "ApplyResult", "CommitPoint", "ConnectField", "DecodeOptions", "DeltaTarget", "FanOut", "HistoryTarget",
    "HttpSchemaRegistry", "IcebergTarget", "KAFKA_COLUMNS", "KafkaDataSource", "META_COLUMNS", "ParquetTarget",
    "RegistryConfig", "SchemaChangeRefused", "SchemaEvolution", "SchemaRegistry",
    "SparkDeltaTarget", "TableLayout", "Target", "TimeMode", "ValueFormat", "apply_changes",
    "commit_point", "commit_points", "decode_batch", "decode_split", "discover_versions", "from_avro",
    "from_connect_json", "history_schemas", "latest_per_key", "read_changes", "read_current", "read_kafka",
    "schemas_from_history", "split_records",
]
