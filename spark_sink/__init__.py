"""spark_sink: Debezium change topics → typed Spark DataFrames → tables kept equal to the source.

Reads only the wire format (never imports connector/, snapshot/ or schema_history/), so it
works on this project's output and on real Debezium's alike.

    Kafka ──► reader (JVM "kafka" source | Python "binlog_cdc_kafka" source) ──► raw rows
    raw rows ──► wire (json | json-schemaless | avro) ──► decoder + semantic_types ──► typed rows
    typed rows ──► applier (truncate, last change per key by binlog position: ordering) ──► targets
                   (Delta via deltalake | Delta via Spark MERGE | Parquet changelog + current)

Typical job::

    raw = spark_sink.read_kafka(spark, "broker:9092", topic_pattern=r"dbserver1\\.inventory\\..*")
    raw.writeStream.option("checkpointLocation", ckpt).foreachBatch(
        lambda df, batch_id: spark_sink.apply_changes(df, lambda topic: DeltaTarget(f"/lake/{topic}"),
                                                      batch_id=batch_id)).start()
"""

from spark_sink.applier import ApplyResult, apply_changes
from spark_sink.connect_schema import ConnectField, from_avro, from_connect_json
from spark_sink.ddl_schema import schemas_from_history
from spark_sink.decoder import KAFKA_COLUMNS, META_COLUMNS, TableLayout
from spark_sink.kafka_source import KafkaDataSource
from spark_sink.ordering import latest_per_key
from spark_sink.reader import (DecodeOptions, decode_batch, decode_split, discover_versions,
                               history_schemas, read_changes, read_kafka, split_records)
from spark_sink.semantic_types import TimeMode
from spark_sink.targets import DeltaTarget, ParquetTarget, SparkDeltaTarget, Target, read_current
from spark_sink.registry import HttpSchemaRegistry, RegistryConfig
from spark_sink.wire import SchemaRegistry, ValueFormat

__all__ = [
    "ApplyResult", "ConnectField", "DecodeOptions", "DeltaTarget", "HttpSchemaRegistry",
    "KAFKA_COLUMNS", "KafkaDataSource", "META_COLUMNS", "ParquetTarget", "RegistryConfig", "SchemaRegistry",
    "SparkDeltaTarget", "TableLayout", "Target", "TimeMode", "ValueFormat", "apply_changes",
    "decode_batch", "decode_split", "discover_versions", "from_avro", "from_connect_json",
    "history_schemas", "latest_per_key", "read_changes", "read_current", "read_kafka",
    "schemas_from_history", "split_records",
]
